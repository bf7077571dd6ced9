// Exponential back-off for idle and waiting workers: spin, then yield, then
// sleep. The sleep phase is what lets runs with more threads (or ranks) than
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

class Backoff {
 public:
  explicit Backoff(BackoffLimits limits = {}) noexcept : limits_(limits) {}

  void reset() noexcept { round_ = 0; }

  // One step of waiting; each call waits longer than the previous one.
  void pause() noexcept {
    if (round_ < limits_.spin_rounds) {
      for (unsigned i = 0, n = 1u << round_; i < n; ++i) cpu_relax();
    } else if (round_ < limits_.spin_rounds + limits_.yield_rounds) {
      std::this_thread::yield();
    } else {
      const unsigned k = std::min(round_ - limits_.spin_rounds - limits_.yield_rounds, 20u);
      const std::int64_t us = std::min(limits_.min_sleep_us << k, limits_.max_sleep_us);
      std::this_thread::sleep_for(std::chrono::microseconds(us));
    }
    ++round_;
  }

  bool sleeping() const noexcept { return round_ >= limits_.spin_rounds + limits_.yield_rounds; }

 private:
  BackoffLimits limits_;
  unsigned round_ = 0;
};

}  // namespace heist::platform
