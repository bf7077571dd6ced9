// Built-in task costs of each app the simulator generates: what `heist sim
// <app>` uses when no cost flag (--task-ns, --costs, --calibrate) is given.
//
// Source: `heist sim <app> --calibrate --calibrate-repeat 5` (cli/sim_calibrate.cpp:
// one-worker runs of the real app, sequential, help-first and bounded, median
// of 5) on the project's 2-core x86-64 VM, Release build, 2026-11-25, with
// each app's default parameters (fib --n 35, nqueens --n 13, uts --tree T1,
// bpc --depth 1000 --consumers 100). The machine was shared (load about 5), so
// the costs are this machine's order of magnitude, not a measurement to
// quote: calibrate (--calibrate) for a simulation whose absolute times matter.
// Per-task costs hardly depend on the app's size parameters (a UTS node's
// SHA-1 is the same in every tree; BPC's busy times are part of the workload).
#pragma once

#include <string_view>

#include "sim/sim_config.hpp"

namespace heist::sim {

struct DefaultCosts {
  const char* app;
  TaskCosts costs;  // inline_ns, queued_ns, sequential_ns
};

inline constexpr DefaultCosts kDefaultCosts[] = {
    {"fib", {7.4, 106, 1.56}},       // 29.9 M tasks: 0.220 s bounded, 3.16 s help-first, 0.047 s sequential
    {"nqueens", {23.3, 116, 13.9}},  // 4.67 M tasks: 0.109 s bounded, 0.544 s help-first
    {"uts", {138, 222, 0}},          // T1, 4.13 M nodes: 0.568 s bounded, 0.918 s help-first
    {"bpc", {3030, 3690, 0}},        // 101,000 tasks, 0.501 s busy-wait: 0.808 s bounded, 0.873 s help-first
};

// The built-in costs of `app`, or nullptr when there are none.
inline const TaskCosts* default_costs(std::string_view app) noexcept {
  for (const DefaultCosts& d : kDefaultCosts)
    if (app == d.app) return &d.costs;
  return nullptr;
}

}  // namespace heist::sim
