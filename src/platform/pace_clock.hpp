// PaceClock: the clock that paces a worker to --poll-period-us between
// processes (the spawn slow path's poll check and credits, the poll between
// tasks). It is read once every few dozen inline spawns of a few
// nanoseconds, so its own cost is work: steady_clock (clock_gettime through
// the vDSO) orders the time-stamp counter read with a fence and costs
// several times the bare counter, which does not wait for the instructions
// before it (docs/design/paced-grants.md). Where the processor says
// its counter is invariant (CPUID 0x80000007, EDX bit 8: constant rate,
// runs in every C-state) now_ns() is the counter scaled by a rate measured
// once per process against steady_clock (calibrate(), ~1 ms, the first time
// a worker joins another process); elsewhere, and before calibrate(), it is
// steady_clock. Its time base is its own: compare its readings only with
// each other, never with platform::now_ns(). Each worker compares only its
// own readings; a thread that moves to a core whose counter is offset (the
// kernel keeps them synchronised where it trusts the counter) sees one
// period a little shorter or longer, which pacing tolerates.
#pragma once

#include <cstdint>

#include "platform/timer.hpp"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace heist::platform {

class PaceClock {
 public:
  // Switches to the counter where it is invariant (the rate is measured on
  // the first call in the process; later calls copy it).
  void calibrate() noexcept;
  bool uses_counter() const noexcept { return ns_per_tick_ > 0.0; }

  std::int64_t now_ns() const noexcept {
#if defined(__x86_64__)
    if (ns_per_tick_ > 0.0) return static_cast<std::int64_t>(static_cast<double>(__rdtsc()) * ns_per_tick_);
#endif
    return platform::now_ns();
  }

 private:
  double ns_per_tick_ = 0.0;  // 0: steady_clock
};

// Nanoseconds per time-stamp counter tick, measured once per process; 0
// where the counter is not invariant, the measurement is implausible, or the
// processor is not x86-64. Exposed for tests.
double counter_ns_per_tick() noexcept;

}  // namespace heist::platform
