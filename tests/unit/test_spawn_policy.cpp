// Unit tests of the spawn policies' pure decision logic (SpawnDecider,
// src/policy/spawn_policy.hpp): no threads, no runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>

#include "heist/options.hpp"
#include "policy/spawn_policy.hpp"

namespace {

using heist::SpawnPolicy;
using heist::policy::SpawnAction;
using heist::policy::SpawnDecider;
using heist::policy::SpawnFacts;

// The decision for a worker with `queued` tasks in its deque (none of them
// public, none running) and `frames` bodies on its stack.
bool defer(SpawnDecider& d, std::size_t queued, unsigned frames) {
  return d.decide(SpawnFacts{queued, queued, 0, frames, false}) != SpawnAction::run_inline;
}

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
      EXPECT_TRUE(defer(help, q, frames));
      EXPECT_FALSE(defer(work, q, frames));
    }
}

TEST(SpawnDecider, BoundedQueuesBelowTheBound) {
  SpawnDecider d(with_policy(SpawnPolicy::bounded));
  EXPECT_TRUE(defer(d, 0, 0));
  EXPECT_TRUE(defer(d, 39, 0));
  EXPECT_FALSE(defer(d, 40, 0));
  EXPECT_FALSE(defer(d, 1000, 0));
  EXPECT_TRUE(defer(d, 10, 500));  // only the queue counts
}

TEST(SpawnDecider, SlawSwitchesEveryIntervalOnQueueAndStack) {
  SpawnDecider d(with_policy(SpawnPolicy::slaw));
  EXPECT_TRUE(d.slaw_help_first());
  // A short queue: stays help-first.
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(defer(d, 10, 0));
  // F tasks queued: switches at the next evaluation (within INT spawns).
  int spawns = 0;
  while (defer(d, 40, 0)) ASSERT_LE(++spawns, 16);
  EXPECT_FALSE(d.slaw_help_first());
  // S inline frames: back to help-first within INT spawns.
  spawns = 0;
  while (!defer(d, 40, 64)) ASSERT_LE(++spawns, 16);
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
    if (defer(d, queued, frames)) ++queued;
    else deepest = std::max(deepest, ++frames);
  }
  EXPECT_GT(deepest, 0u);  // it did switch to work-first
  EXPECT_LE(deepest, static_cast<unsigned>(o.slaw_stack_frames + o.slaw_interval));
}

}  // namespace

namespace {

TEST(SpawnDecider, BoundedWithDemandQueuesOnlyWhatAThiefCanUse) {
  heist::Options o;
  o.policy = SpawnPolicy::bounded;
  SpawnDecider d(o);
  // Nothing public: queue it and publish it.
  EXPECT_EQ(d.decide(SpawnFacts{3, 3, 0, 0, false}), SpawnAction::queue_public);
  // Something public already and nobody asked: run inline.
  EXPECT_EQ(d.decide(SpawnFacts{3, 3, 1, 0, false}), SpawnAction::run_inline);
  // A thief asked: the next kAskedTasks spawns are queued and published.
  for (int i = 0; i < SpawnDecider::kAskedTasks; ++i)
    EXPECT_EQ(d.decide(SpawnFacts{3, 3, 1, 0, i == 0}), SpawnAction::queue_public);
  EXPECT_EQ(d.decide(SpawnFacts{3, 3, 1, 0, false}), SpawnAction::run_inline);
  // The HotSLAW bound wins over a request.
  EXPECT_EQ(d.decide(SpawnFacts{40, 40, 0, 0, true}), SpawnAction::run_inline);
  EXPECT_GT(d.inline_credits(), 0);
}

TEST(SpawnDecider, BoundedWithoutDemandIsHotSlawExactly) {
  heist::Options o;
  o.policy = SpawnPolicy::bounded;
  o.queue_demand = false;
  SpawnDecider d(o);
  EXPECT_EQ(d.decide(SpawnFacts{39, 39, 5, 0, false}), SpawnAction::queue);
  EXPECT_EQ(d.decide(SpawnFacts{40, 12, 0, 0, true}), SpawnAction::run_inline);  // held counts running tasks
}

}  // namespace
