// Exponential back-off for idle and waiting workers: spin, then yield, then
// sleep. backoff_step() is the schedule, pure (the simulator turns the same
// steps into simulated time); Backoff performs it. The sleep phase is what lets runs with more threads (or ranks) than
// cores finish promptly: an idle worker must give its core to the one that
// has work instead of spinning on it.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>

#include "platform/cpu.hpp"

namespace heist::platform {

struct BackoffLimits {
  unsigned spin_rounds = 6;       // rounds of 1, 2, 4, ... 32 pause instructions
  unsigned yield_rounds = 4;      // then this many sched_yield()s
  std::int64_t min_sleep_us = 5;  // then sleeps doubling from here ...
  std::int64_t max_sleep_us = 500;  // ... up to this cap
};

// What round `round` of a back-off does: spin `spins` pause instructions,
// or yield once, or sleep `sleep_us`.
struct BackoffStep {
  unsigned spins = 0;
  bool yield = false;
  std::int64_t sleep_us = 0;
};

constexpr BackoffStep backoff_step(unsigned round, const BackoffLimits& limits) noexcept {
  if (round < limits.spin_rounds) return {1u << round, false, 0};
  if (round < limits.spin_rounds + limits.yield_rounds) return {0, true, 0};
  const unsigned k = std::min(round - limits.spin_rounds - limits.yield_rounds, 20u);
  return {0, false, std::min(limits.min_sleep_us << k, limits.max_sleep_us)};
}

// Waits one step: its pause instructions, a yield, or a sleep.
inline void backoff_wait(const BackoffStep& step) noexcept {
  if (step.spins > 0) {
    for (unsigned i = 0; i < step.spins; ++i) cpu_relax();
  } else if (step.yield) {
    std::this_thread::yield();
  } else {
    std::this_thread::sleep_for(std::chrono::microseconds(step.sleep_us));
  }
}

class Backoff {
 public:
  explicit Backoff(BackoffLimits limits = {}) noexcept : limits_(limits) {}

  void reset() noexcept { round_ = 0; }

  // One step of waiting; each call waits longer than the previous one.
  void pause() noexcept {
    backoff_wait(backoff_step(round_, limits_));
    ++round_;
  }

  bool sleeping() const noexcept { return round_ >= limits_.spin_rounds + limits_.yield_rounds; }

 private:
  BackoffLimits limits_;
  unsigned round_ = 0;
};

}  // namespace heist::platform
