// Unit tests of the spawn policies' pure decision logic (SpawnDecider,
// src/policy/spawn_policy.hpp): no threads, no runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "heist/options.hpp"
#include "policy/spawn_policy.hpp"

namespace {

using heist::SpawnPolicy;
using heist::policy::SpawnDecider;

heist::Options with_policy(SpawnPolicy p) {
  heist::Options o;
  o.policy = p;
  o.queue_bound = 40;
  o.slaw_stack_frames = 64;  // S
  o.slaw_queue_tasks = 40;   // F
  o.slaw_interval = 16;      // INT
  return o;
}

TEST(SpawnDecider, HelpFirstAlwaysQueuesWorkFirstNever) {
  SpawnDecider help(with_policy(SpawnPolicy::help_first));
  SpawnDecider work(with_policy(SpawnPolicy::work_first));
  for (std::size_t q : {0u, 1u, 39u, 40u, 100000u})
    for (unsigned frames : {0u, 1u, 1000u}) {
      EXPECT_TRUE(help.defer(q, frames));
      EXPECT_FALSE(work.defer(q, frames));
    }
}

TEST(SpawnDecider, BoundedQueuesBelowTheBound) {
  SpawnDecider d(with_policy(SpawnPolicy::bounded));
  EXPECT_TRUE(d.defer(0, 0));
  EXPECT_TRUE(d.defer(39, 0));
  EXPECT_FALSE(d.defer(40, 0));
  EXPECT_FALSE(d.defer(1000, 0));
  EXPECT_TRUE(d.defer(10, 500));  // only the queue counts
}

TEST(SpawnDecider, SlawSwitchesEveryIntervalOnQueueAndStack) {
  SpawnDecider d(with_policy(SpawnPolicy::slaw));
  EXPECT_TRUE(d.slaw_help_first());
  // A short queue: stays help-first.
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(d.defer(10, 0));
  // F tasks queued: switches at the next evaluation (within INT spawns).
  int spawns = 0;
  while (d.defer(40, 0)) ASSERT_LE(++spawns, 16);
  EXPECT_FALSE(d.slaw_help_first());
  // S inline frames: back to help-first within INT spawns.
  spawns = 0;
  while (!d.defer(40, 64)) ASSERT_LE(++spawns, 16);
  EXPECT_TRUE(d.slaw_help_first());
}

TEST(SpawnDecider, SlawBoundsInlineFramesWhileTheQueueStaysLong) {
  // A depth-first search whose queue never drains: each inline spawn nests
  // one frame deeper, a queued one does not. SLAW's S bounds the nesting
  // (plus the INT spawns between two evaluations), however long it runs.
  const heist::Options o = with_policy(SpawnPolicy::slaw);
  SpawnDecider d(o);
  unsigned frames = 0, deepest = 0;
  std::size_t queued = 0;
  for (int spawn = 0; spawn < 100000; ++spawn) {
    if (d.defer(queued, frames)) ++queued;
    else deepest = std::max(deepest, ++frames);
  }
  EXPECT_GT(deepest, 0u);  // it did switch to work-first
  EXPECT_LE(deepest, static_cast<unsigned>(o.slaw_stack_frames + o.slaw_interval));
}

}  // namespace
