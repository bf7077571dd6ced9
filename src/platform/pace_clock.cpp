#include "platform/pace_clock.hpp"

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace heist::platform {

namespace {

#if defined(__x86_64__)
bool counter_is_invariant() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  // unsigned under GCC, int under Clang
  if (static_cast<unsigned>(__get_cpuid_max(0x80000000u, nullptr)) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
}

// One (counter, steady_clock) pair: the clock read between two counter
// reads, paired with their midpoint; a pair whose counter reads lie more
// than 100,000 ticks apart (20-50 us at 2-5 GHz: a preemption between
// them) is taken again.
struct Sample {
  double ticks;
  std::int64_t ns;
};

bool sample(Sample& s) noexcept {
  for (int attempt = 0; attempt < 8; ++attempt) {
    const std::uint64_t before = __rdtsc();
    const std::int64_t ns = platform::now_ns();
    const std::uint64_t after = __rdtsc();
    if (after - before < 100'000) {
      s = {0.5 * (static_cast<double>(before) + static_cast<double>(after)), ns};
      return true;
    }
  }
  return false;
}

double measure() noexcept {
  if (!counter_is_invariant()) return 0.0;
  // Two samples 1 ms apart: the clock's ~30 ns of jitter makes the rate
  // good to ~1e-4, far finer than pacing needs.
  Sample first{}, last{};
  if (!sample(first)) return 0.0;
  while (platform::now_ns() - first.ns < 1'000'000) {
  }
  if (!sample(last)) return 0.0;
  const double ticks = last.ticks - first.ticks;
  if (ticks <= 0.0) return 0.0;
  const double rate = static_cast<double>(last.ns - first.ns) / ticks;
  return rate > 0.01 && rate < 10.0 ? rate : 0.0;  // 100 MHz to 100 GHz, else distrust it
}
#endif

}  // namespace

double counter_ns_per_tick() noexcept {
#if defined(__x86_64__)
  static const double rate = measure();
  return rate;
#else
  return 0.0;
#endif
}

void PaceClock::calibrate() noexcept { ns_per_tick_ = counter_ns_per_tick(); }

}  // namespace heist::platform
