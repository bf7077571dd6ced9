// The program both sim.same_actions tests run for real: fib with spawn and
// wait, every call a registered task (the simulator's fib workload has the
// same shape: sim/workloads.hpp). One translation unit of a binary includes it.
#pragma once

#include <cstdint>

#include "heist/heist.hpp"

namespace same_actions {

void fib(const int& n, std::uint64_t* out);
inline const auto fib_task = heist::register_task<fib>("test.same_actions.fib");
inline void fib(const int& n, std::uint64_t* out) {
  if (n < 2) {
    *out = static_cast<std::uint64_t>(n);
    return;
  }
  std::uint64_t x = 0, y = 0;
  heist::spawn(fib_task, n - 1, &x);
  heist::spawn(fib_task, n - 2, &y);
  heist::wait();
  *out = x + y;
}

}  // namespace same_actions
