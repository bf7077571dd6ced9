// Built-in task costs of each app the simulator generates: what `heist sim
// <app>` uses when no cost flag (--task-ns, --costs, --calibrate) is given.
//
// Source: `heist sim <app> --calibrate --calibrate-repeat 5` (cli/sim_calibrate.cpp:
// one-worker runs of the real app, sequential, help-first and bounded, median
// of 5), five times, the median of the five calibrations per cost, on the
// project's 2-core x86-64 VM, Release build, 2026-11-27 (main at 1f811db),
// with each app's default parameters (fib --n 35, nqueens --n 13, uts --tree
// T1, bpc --depth 1000 --consumers 100). The VM was otherwise idle, and still
// its calibrations spread by up to 45 % (UTS queued_ns 108-157 ns): these are
// this machine's order of magnitude, not a measurement to quote; calibrate
// (--calibrate) for a simulation whose absolute times matter. (The costs of
// 2026-11-25, fib 7.4/106, nqueens 23.3/116, UTS 138/222, bpc 3030/3690 ns,
// were measured under a load of about 5, before the spawn fast path of issue
// 16.) Per-task costs hardly depend on the app's size parameters (a UTS
// node's SHA-1 is the same in every tree; BPC's busy times are part of the
// workload).
//
// Queued costs scaled 2026-11-28, when the queued spawn path lost a quarter
// of its instructions (main at 97b0d78): the old and the new binary
// calibrated five times, interleaved, the median ratio of their queued_ns
// applied to the costs above (fib 0.666, nqueens 0.802, uts 0.894; the
// inline path is unchanged, its ratios were 0.95-1.01). bpc's spread
// (0.62-1.22) said nothing: its costs stay.
#pragma once

#include <string_view>

#include "sim/sim_config.hpp"

namespace heist::sim {

struct DefaultCosts {
  const char* app;
  TaskCosts costs;  // inline_ns, queued_ns, sequential_ns
};

inline constexpr DefaultCosts kDefaultCosts[] = {
    {"fib", {5.36, 43.0, 0.42}},     // 29.9 M tasks: 0.16 s bounded, 1.5 s help-first, 0.021 s sequential
    {"nqueens", {15.2, 70.5, 7.79}}, // 4.67 M tasks: 0.075 s bounded, 0.33 s help-first
    {"uts", {82.5, 134, 0}},         // T1, 4.13 M nodes: 0.36 s bounded, 0.55 s help-first
    {"bpc", {434, 503, 0}},          // 101,000 tasks, 0.501 s busy-wait: 0.544 s bounded, 0.552 s help-first
};

// The built-in costs of `app`, or nullptr when there are none.
inline const TaskCosts* default_costs(std::string_view app) noexcept {
  for (const DefaultCosts& d : kDefaultCosts)
    if (app == d.app) return &d.costs;
  return nullptr;
}

}  // namespace heist::sim
