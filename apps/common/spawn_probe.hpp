// HotSLAW Table 1's "Task Creation Ovhd." measured on this machine: the
// cost of creating one task beyond calling its body, found by comparing a
// loop of spawns of an empty task with a loop of direct calls of the same
// (non-inlined) empty function, in a one-worker Runtime of its own.
//
//  * queued_us: policy help-first, so every spawn copies the input into a
//    task slot and pushes it; wait() pops and dispatches it. This is what
//    HotSLAW's taskq_put costs (0.16-0.17 us in Table 1).
//  * inline_us: policy work-first, so every spawn runs the body at once on
//    the inline fast path (what a spawn costs when the bounded queue
//    serializes it).
// Spawns come in batches of 1000 between waits; the median of 5 rounds of
// 100 batches is reported. The input is the smallest of 8, 16, 32, 64 bytes
// that holds the app's largest task input (64 when larger).
#pragma once

#include <cstddef>

#include "heist/options.hpp"

namespace heist::apps {

struct SpawnCost {
  double queued_us = 0;
  double inline_us = 0;
  std::size_t input_bytes = 0;  // of the probe task
};

// Creates (and destroys) its own Runtime: call when no other Runtime exists.
// `like` supplies the slot and deque options; workers, policy and MPI are set here.
SpawnCost measure_spawn_cost(std::size_t input_bytes, const Options& like);

}  // namespace heist::apps
