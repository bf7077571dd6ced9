// Monotonic time in nanoseconds for statistics and benchmarks.
#pragma once

#include <chrono>
#include <cstdint>

namespace heist::platform {

inline std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

inline double ns_to_s(std::int64_t ns) noexcept { return static_cast<double>(ns) * 1e-9; }

}  // namespace heist::platform
