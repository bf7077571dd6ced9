// Unit tests of the spawn policies' pure decision logic (SpawnDecider,
// src/policy/spawn_policy.hpp): no threads, no runtime.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "heist/options.hpp"
#include "policy/spawn_policy.hpp"

namespace {

using heist::SpawnPolicy;
using heist::policy::SpawnAction;
using heist::policy::SpawnDecider;
using heist::policy::SpawnFacts;

heist::Options with_policy(SpawnPolicy p) {
  heist::Options o;
  o.policy = p;
  o.queue_bound = 40;
  o.slaw_stack_frames = 64;  // S
  o.slaw_queue_tasks = 40;   // F
  o.slaw_interval = 16;      // INT
  return o;
}

// A decider for one policy (the runtime passes the policy of the spawning
// task's finish scope with each decision).
struct Decider {
  // One worker in the run: --queued-levels auto is 0, so each policy's own
  // rule decides (the tests of the queued generations set them).
  explicit Decider(SpawnPolicy p, heist::Options o) : kind(p), d((o.policy = p, o), 1) {}
  explicit Decider(SpawnPolicy p) : Decider(p, with_policy(p)) {}
  SpawnAction decide(const SpawnFacts& f) { return d.decide(kind, f); }
  bool slaw_help_first() const { return d.slaw_help_first(); }
  std::int64_t inline_credits() const { return d.inline_credits(); }
  SpawnPolicy kind;
  SpawnDecider d;
};

SpawnFacts facts(std::size_t held, std::size_t queued, std::size_t public_tasks, unsigned frames, bool asked) {
  SpawnFacts f;
  f.held = held;
  f.queued = queued;
  f.public_tasks = public_tasks;
  f.inline_frames = frames;
  f.depth = frames;
  f.thief_asked = asked;
  return f;
}

// The decision for a worker with `queued` tasks in its deque (none of them
// public, none running) and `frames` bodies on its stack.
bool defer(Decider& d, std::size_t queued, unsigned frames) {
  return d.decide(facts(queued, queued, 0, frames, false)) != SpawnAction::run_inline;
}

TEST(SpawnDecider, HelpFirstAlwaysQueuesInlineNever) {
  Decider help(SpawnPolicy::help_first);
  Decider in(SpawnPolicy::inline_child);
  for (std::size_t q : {0u, 1u, 39u, 40u, 100000u})
    for (unsigned frames : {0u, 1u, 1000u}) {
      EXPECT_TRUE(defer(help, q, frames));
      EXPECT_FALSE(defer(in, q, frames));
    }
}

TEST(SpawnDecider, WorkFirstExposesShallowSpawnsAndOnRequest) {
  heist::Options o = with_policy(SpawnPolicy::work_first);
  o.expose_depth = 3;
  Decider d(SpawnPolicy::work_first, o);
  SpawnFacts f = facts(0, 0, 0, 0, false);
  f.can_expose = true;
  f.many_workers = true;
  for (unsigned depth = 0; depth <= 3; ++depth) {
    f.depth = depth;
    EXPECT_EQ(d.decide(f), SpawnAction::expose) << depth;
  }
  f.depth = 4;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  EXPECT_GT(d.inline_credits(), 1000);
  f.thief_asked = true;  // deep, but a thief asked: expose here
  EXPECT_EQ(d.decide(f), SpawnAction::expose);
  f.thief_asked = false;
  f.many_workers = false;  // alone: nothing is exposed unasked
  f.depth = 0;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  f.many_workers = true;
  f.can_expose = false;  // e.g. a help loop below: runs inline
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
}

TEST(SpawnDecider, CreditsNeverOutrunTheStack) {
  for (SpawnPolicy p : {SpawnPolicy::inline_child, SpawnPolicy::bounded, SpawnPolicy::work_first}) {
    Decider d(p);
    SpawnFacts f = facts(100, 100, 1, 10, false);
    f.inline_budget = 7;
    EXPECT_EQ(d.decide(f), SpawnAction::run_inline) << heist::to_string(p);
    EXPECT_LE(d.inline_credits(), 7) << heist::to_string(p);
  }
}

TEST(SpawnDecider, AFullStackQueuesExceptUnderWorkFirst) {
  SpawnFacts f = facts(100, 100, 1, 10, false);
  f.inline_budget = 0;
  for (SpawnPolicy p : {SpawnPolicy::inline_child, SpawnPolicy::bounded, SpawnPolicy::slaw, SpawnPolicy::adaptive}) {
    Decider d(p);
    for (int i = 0; i < 40; ++i) EXPECT_EQ(d.decide(f), SpawnAction::queue) << heist::to_string(p);
  }
  Decider wf(SpawnPolicy::work_first);
  EXPECT_EQ(wf.decide(f), SpawnAction::stack_exhausted);
  f.can_expose = true;  // a thief asked: the child runs on a fresh fiber, this stack does not grow
  f.thief_asked = true;
  EXPECT_EQ(wf.decide(f), SpawnAction::expose);
}

TEST(SpawnDecider, AdaptiveIsSlawWithWorkFirst) {
  Decider d(SpawnPolicy::adaptive);
  SpawnFacts f = facts(10, 10, 0, 0, false);
  f.can_expose = true;
  f.many_workers = true;
  f.depth = 100;  // deeper than expose_depth: work-first runs the child inline
  for (int i = 0; i < 100; ++i) EXPECT_EQ(d.decide(f), SpawnAction::queue);  // help-first builds parallelism
  f.queued = f.held = 40;  // F queued: work-first from the next evaluation
  int spawns = 0;
  while (d.decide(f) == SpawnAction::queue) ASSERT_LE(++spawns, 16);
  EXPECT_FALSE(d.slaw_help_first());
  // The inline credits cover the rest of the INT interval, so the fast path
  // brings the next evaluation within INT spawns.
  EXPECT_LE(d.inline_credits(), 15);
  f.depth = 1;  // shallow: exposes
  EXPECT_EQ(d.decide(f), SpawnAction::expose);
  f.inline_frames = 64;  // S frames on the stack: back to help-first
  spawns = 0;
  while (d.decide(f) != SpawnAction::queue) ASSERT_LE(++spawns, 16);
  EXPECT_TRUE(d.slaw_help_first());
}

TEST(SpawnDecider, BoundedQueuesBelowTheBound) {
  Decider d(SpawnPolicy::bounded);
  EXPECT_TRUE(defer(d, 0, 0));
  EXPECT_TRUE(defer(d, 39, 0));
  EXPECT_FALSE(defer(d, 40, 0));
  EXPECT_FALSE(defer(d, 1000, 0));
  EXPECT_TRUE(defer(d, 10, 500));  // only the queue counts
}

TEST(SpawnDecider, SlawSwitchesEveryIntervalOnQueueAndStack) {
  Decider d(SpawnPolicy::slaw);
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
  Decider d(SpawnPolicy::slaw, o);
  unsigned frames = 0, deepest = 0;
  std::size_t queued = 0;
  for (int spawn = 0; spawn < 100000; ++spawn) {
    if (defer(d, queued, frames)) ++queued;
    else deepest = std::max(deepest, ++frames);
  }
  EXPECT_GT(deepest, 0u);  // it did switch to inline
  EXPECT_LE(deepest, static_cast<unsigned>(o.slaw_stack_frames + o.slaw_interval));
}

}  // namespace

namespace {

TEST(SpawnDecider, BoundedWithDemandQueuesOnlyWhatAThiefCanUse) {
  heist::Options o;
  Decider d(SpawnPolicy::bounded, o);
  // Nothing public: queue it and publish it.
  EXPECT_EQ(d.decide(facts(3, 3, 0, 0, false)), SpawnAction::queue_public);
  // Something public already and nobody asked: run inline.
  EXPECT_EQ(d.decide(facts(3, 3, 1, 0, false)), SpawnAction::run_inline);
  // A thief asked: the next kAskedTasks spawns are queued and published.
  for (int i = 0; i < SpawnDecider::kAskedTasks; ++i)
    EXPECT_EQ(d.decide(facts(3, 3, 1, 0, i == 0)), SpawnAction::queue_public);
  EXPECT_EQ(d.decide(facts(3, 3, 1, 0, false)), SpawnAction::run_inline);
  // The HotSLAW bound wins over a request.
  EXPECT_EQ(d.decide(facts(40, 40, 0, 0, true)), SpawnAction::run_inline);
  EXPECT_GT(d.inline_credits(), 0);
}

TEST(SpawnDecider, BoundedWithDemandKeepsAPublicTaskPerIdleWorker) {
  heist::Options o;
  Decider d(SpawnPolicy::bounded, o);
  SpawnFacts f = facts(3, 3, 1, 0, false);
  f.idle_workers = 1;  // one thief: one public task is enough (as without the count)
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  f.idle_workers = 0;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  // Fifteen idle workers (the start of a run on 16 cores): queue and publish
  // until there are fifteen public tasks, then inline again.
  f.idle_workers = 15;
  for (std::size_t p : {1u, 7u, 14u}) {
    f.public_tasks = p;
    EXPECT_EQ(d.decide(f), SpawnAction::queue_public) << p;
  }
  f.public_tasks = 15;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  // The HotSLAW bound still wins.
  f = facts(40, 40, 0, 0, false);
  f.idle_workers = 15;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  // Without --queue-demand the count is not read.
  heist::Options off;
  off.queue_demand = false;
  Decider hotslaw(SpawnPolicy::bounded, off);
  f = facts(3, 3, 0, 0, false);
  f.idle_workers = 15;
  EXPECT_EQ(hotslaw.decide(f), SpawnAction::queue);
}

TEST(SpawnDecider, TheTopLevelsBelowAStealAreQueuedWhateverTheBound) {
  heist::Options o;
  o.queued_levels = 2;
  Decider d(SpawnPolicy::bounded, o);
  // At the bound, one task public, nobody idle: generations 0 and 1 below
  // a stolen task are queued (privately), generation 2 runs inline.
  SpawnFacts f = facts(40, 40, 1, 0, false);
  for (unsigned levels : {0u, 1u}) {
    f.levels = levels;
    EXPECT_EQ(d.decide(f), SpawnAction::queue) << levels;
  }
  f.levels = 2;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  // One of them is kept public (a thief finds it without asking first),
  // not one per idle worker: that published too much across nodes.
  f = facts(40, 40, 0, 0, false);
  EXPECT_EQ(d.decide(f), SpawnAction::queue_public);
  f.public_tasks = 3;
  f.idle_workers = 4;
  EXPECT_EQ(d.decide(f), SpawnAction::queue);
  // Below the bound, deeper generations follow the demand rule as before.
  f = facts(3, 3, 1, 0, false);
  f.levels = 2;
  f.idle_workers = 1;
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  f.idle_workers = 4;
  EXPECT_EQ(d.decide(f), SpawnAction::queue_public);
  // Past kTopLevelHeld even the top levels run inline (memory stays bounded).
  f = facts(SpawnDecider::kTopLevelHeld, SpawnDecider::kTopLevelHeld, 0, 0, false);
  EXPECT_EQ(d.decide(f), SpawnAction::run_inline);
  // A thief asked: a top-level spawn is published even with tasks public.
  f = facts(40, 40, 3, 0, true);
  EXPECT_EQ(d.decide(f), SpawnAction::queue_public);
  // Without --queue-demand the levels are not read: HotSLAW's bound wins.
  o.queue_demand = false;
  Decider hotslaw(SpawnPolicy::bounded, o);
  f = facts(40, 40, 0, 0, false);
  EXPECT_EQ(hotslaw.decide(f), SpawnAction::run_inline);
}

// A queued child counts 1 + floor(log2 n) generations below its spawner
// for the spawner's n-th queued child: about 2^L tasks below a stolen one
// whatever the branching.
TEST(SpawnDecider, LaterChildrenCountAsDeeperGenerations) {
  EXPECT_EQ(SpawnDecider::child_levels(0, 1), 1u);
  EXPECT_EQ(SpawnDecider::child_levels(0, 2), 2u);
  EXPECT_EQ(SpawnDecider::child_levels(0, 3), 2u);
  EXPECT_EQ(SpawnDecider::child_levels(0, 4), 3u);
  EXPECT_EQ(SpawnDecider::child_levels(2, 7), 5u);
  EXPECT_EQ(SpawnDecider::child_levels(2, 8), 6u);
  // Tasks queued below a stolen task when every spawner at a level below L
  // queues all its children: a binary tree (fib) against one of ten (nqueens).
  const auto queued_below = [](auto&& self, unsigned branching, std::uint32_t levels, std::uint32_t limit) -> unsigned {
    if (levels >= limit) return 0;
    unsigned n = 0;
    for (std::uint32_t child = 1; child <= branching; ++child)
      n += 1 + self(self, branching, SpawnDecider::child_levels(levels, child), limit);
    return n;
  };
  EXPECT_EQ(queued_below(queued_below, 2, 0, 5), 24u);
  EXPECT_EQ(queued_below(queued_below, 10, 0, 5), 360u) << "one generation a child: 111,110";
}

TEST(SpawnDecider, AutoQueuedLevelsGrowWithTheRunsWorkers) {
  // One generation more for every factor of 4, two more from 4 workers on
  // for child_levels' steps (one level is the same under either step).
  const std::pair<int, unsigned> expected[] = {{1, 0}, {2, 1}, {3, 1}, {4, 4}, {15, 4},
                                               {16, 5}, {63, 5}, {64, 6}, {256, 7}, {4096, 9}};
  for (const auto& [workers, levels] : expected) EXPECT_EQ(SpawnDecider::auto_queued_levels(workers), levels) << workers;
  heist::Options o;  // queued_levels -1: auto
  o.policy = SpawnPolicy::bounded;
  SpawnDecider d(o, 16);
  EXPECT_EQ(d.queued_levels(), 5u);
  d.size_run(1);  // the runtime learns the run's size between processes
  EXPECT_EQ(d.queued_levels(), 0u);
  // Ranks of one worker: as one process of that many workers, at least 2.
  // Processes of several workers: their own levels plus one, at least what
  // one worker per process needs. Then two more for child_levels' steps.
  const std::array<std::array<int, 3>, 11> runs{{{1, 16, 5},    // 16 ranks x 1
                                                {1, 2, 4},      // 2 ranks x 1
                                                {1, 3, 4},      // 3 ranks x 1
                                                {1, 4, 4},      // 4 ranks x 1
                                                {16, 1, 5},     // one process of 16
                                                {8, 2, 5},      // 2 ranks x 8
                                                {4, 4, 5},      // 4 ranks x 4
                                                {8, 32, 5},     // HotSLAW's 32 nodes x 8
                                                {16, 4, 6},     // 4 nodes x 16
                                                {24, 64, 6},    // HabaneroUPC++'s 64 nodes x 24
                                                {16, 256, 7}}};  // 256 nodes x 16
  for (const auto& [workers, processes, levels] : runs)
    EXPECT_EQ(SpawnDecider::auto_queued_levels(workers, processes), static_cast<unsigned>(levels))
        << processes << " x " << workers;
  SpawnDecider hybrid(o, 8, 32);
  EXPECT_EQ(hybrid.queued_levels(), 5u);
  o.queued_levels = 1;  // an explicit value ignores the size
  SpawnDecider fixed(o, 16);
  fixed.size_run(4096);
  EXPECT_EQ(fixed.queued_levels(), 1u);
}

TEST(SpawnDecider, BoundedWithoutDemandIsHotSlawExactly) {
  heist::Options o;
  o.queue_demand = false;
  Decider d(SpawnPolicy::bounded, o);
  EXPECT_EQ(d.decide(facts(39, 39, 5, 0, false)), SpawnAction::queue);
  EXPECT_EQ(d.decide(facts(40, 12, 0, 0, true)), SpawnAction::run_inline);  // held counts running tasks
}

}  // namespace
