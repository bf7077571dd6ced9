// Unit tests of chunk selection per level (src/policy/chunk_policy.hpp) and
// of Chameleon's sort-based push pairing (src/policy/push_balance.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "policy/chunk_policy.hpp"
#include "policy/push_balance.hpp"

namespace {

using heist::ChunkSpec;
using heist::policy::ChunkPolicy;
using heist::policy::Level;
using heist::policy::plan_push;
using heist::policy::PushThresholds;
using heist::policy::PushTransfer;
using heist::policy::RankLoad;

constexpr Level kAll[] = {Level::worker, Level::cache,  Level::numa,   Level::socket,
                          Level::process, Level::node, Level::machine};

ChunkSpec spec(ChunkSpec::Kind kind, std::uint32_t k) {
  ChunkSpec s;
  s.kind = kind;
  s.k = k;
  return s;
}

TEST(ChunkPolicy, FixedAndHalfAreTheSameAtEveryLevel) {
  const ChunkPolicy fixed(spec(ChunkSpec::Kind::fixed, 3));
  const ChunkPolicy half(spec(ChunkSpec::Kind::half, 0));
  for (Level l : kAll) {
    EXPECT_EQ(fixed.take(2, l), 2u);
    EXPECT_EQ(fixed.take(7, l), 3u);
    EXPECT_EQ(half.take(1, l), 1u);
    EXPECT_EQ(half.take(3, l), 1u);
    EXPECT_EQ(half.take(150, l), 75u);
    EXPECT_EQ(fixed.take(0, l), 0u);
    EXPECT_EQ(half.take(0, l), 0u);
  }
  EXPECT_EQ(fixed.take(9), 3u);  // the one-argument form
  EXPECT_EQ(ChunkPolicy().take(9), 1u);
}

TEST(ChunkPolicy, SharersSplitStealHalfButNotAFixedCount) {
  const ChunkPolicy fixed(spec(ChunkSpec::Kind::fixed, 3));
  const ChunkPolicy half(spec(ChunkSpec::Kind::half, 0));
  EXPECT_EQ(half.take(150, Level::machine, 1), 75u);
  EXPECT_EQ(half.take(150, Level::machine, 3), 25u);
  EXPECT_EQ(half.take(150, Level::machine, 0), 75u) << "no sharers counts as one";
  EXPECT_EQ(half.take(5, Level::machine, 9), 1u) << "at least one";
  EXPECT_EQ(half.take(0xFFFFFFFFu, Level::machine, 0x80000000u), 1u) << "no overflow in 2 x sharers";
  EXPECT_EQ(fixed.take(150, Level::machine, 3), 3u);
}

TEST(ChunkPolicy, HcsTakesKInsideANodeAndHalfAcross) {
  const ChunkPolicy hcs(spec(ChunkSpec::Kind::hcs, 2));
  for (Level l : kAll) {
    if (l == Level::machine) continue;
    EXPECT_EQ(hcs.take(100, l), 2u) << heist::policy::to_string(l);
    EXPECT_EQ(hcs.at(l), 2u);
  }
  EXPECT_EQ(hcs.take(100, Level::machine), 50u);
  EXPECT_EQ(hcs.take(1, Level::machine), 1u);
  EXPECT_EQ(hcs.at(Level::machine), ChunkSpec::kHalf);
}

TEST(ChunkPolicy, HcsLevelsAreConfigurable) {
  ChunkSpec s = spec(ChunkSpec::Kind::hcs, 1);
  s.levels[static_cast<std::size_t>(heist::policy::index(Level::process))] = 4;
  s.levels[static_cast<std::size_t>(heist::policy::index(Level::node))] = ChunkSpec::kHalf;
  s.levels[static_cast<std::size_t>(heist::policy::index(Level::machine))] = 8;
  const ChunkPolicy hcs(s);
  EXPECT_EQ(hcs.take(100, Level::cache), 1u);
  EXPECT_EQ(hcs.take(100, Level::process), 4u);
  EXPECT_EQ(hcs.take(100, Level::node), 50u);
  EXPECT_EQ(hcs.take(100, Level::machine), 8u);
  EXPECT_EQ(hcs.take(5, Level::machine), 5u);
}

std::vector<RankLoad> loads(std::initializer_list<std::uint32_t> tasks) {
  std::vector<RankLoad> out;
  int r = 0;
  for (std::uint32_t t : tasks) out.push_back({r++, t});
  return out;
}

TEST(PlanPush, PairsMostWithLeastLoaded) {
  PushThresholds t;
  t.max_tasks = 1000;
  // Sorted: r2 (40), r0 (30), r3 (10), r1 (0): pairs (r2, r1) and (r0, r3).
  const auto plan = plan_push(loads({30, 0, 40, 10}), t);
  ASSERT_EQ(plan.size(), 2u);
  EXPECT_EQ(plan[0], (PushTransfer{2, 1, 20}));
  EXPECT_EQ(plan[1], (PushTransfer{0, 3, 10}));
}

TEST(PlanPush, ThresholdsHoldBackSmallImbalances) {
  PushThresholds t;
  t.min_imbalance = 5;
  t.min_imbalance_ratio = 0.5;
  t.min_local_tasks = 3;
  // (r0 12, r3 0): ratio 1, moves 6; (r1 10, r2 8): diff 2 < 5: nothing.
  EXPECT_EQ(plan_push(loads({12, 10, 8, 0}), t), (std::vector<PushTransfer>{{0, 3, 6}}));
  // Relative threshold: 20 vs 12 is 40% < 50%.
  EXPECT_TRUE(plan_push(loads({20, 12}), t).empty());
  // The sender must hold min_local_tasks.
  EXPECT_TRUE(plan_push(loads({2, 0}), t).empty());
  // Equal loads: nothing to do.
  EXPECT_TRUE(plan_push(loads({7, 7, 7}), PushThresholds{}).empty());
}

TEST(PlanPush, CapShareAndOddCounts) {
  PushThresholds t;
  t.max_tasks = 4;
  EXPECT_EQ(plan_push(loads({0, 100}), t), (std::vector<PushTransfer>{{1, 0, 4}}));
  t.max_tasks = 100;
  t.share = 0.25;
  EXPECT_EQ(plan_push(loads({0, 100}), t), (std::vector<PushTransfer>{{1, 0, 25}}));
  t.share = 0.1;
  t.min_imbalance = 1;
  t.min_local_tasks = 1;
  t.min_imbalance_ratio = 0;
  EXPECT_EQ(plan_push(loads({3, 0}), t), (std::vector<PushTransfer>{{0, 1, 1}}));  // at least one task
  // Five ranks: the middle one is unpaired.
  t.share = 0.5;
  const auto plan = plan_push(loads({50, 40, 30, 20, 10}), t);
  EXPECT_EQ(plan, (std::vector<PushTransfer>{{0, 4, 20}, {1, 3, 10}}));
}

TEST(PlanPush, TiesAreBrokenByRankSoEveryRankPlansAlike) {
  PushThresholds t;
  const std::vector<RankLoad> a{{3, 10}, {1, 10}, {0, 0}, {2, 0}};
  const std::vector<RankLoad> b{{2, 0}, {0, 0}, {1, 10}, {3, 10}};
  EXPECT_EQ(plan_push(a, t), plan_push(b, t));
  EXPECT_EQ(plan_push(a, t), (std::vector<PushTransfer>{{1, 2, 5}, {3, 0, 5}}));
}

}  // namespace
