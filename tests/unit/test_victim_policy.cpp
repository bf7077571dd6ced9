// Unit tests of the victim policies (src/policy/victim_policy.hpp) against
// fake topologies and a seeded RNG: attempt counts per level, level order,
// restart at the bottom after a success, 4 log2 N at the top, SuccessOnly's
// inter-node choice among advertisers.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "platform/rng.hpp"
#include "policy/victim_policy.hpp"

namespace {

using heist::HvsCounts;
using heist::VictimSpec;
using heist::platform::Rng;
using heist::policy::HierarchicalVictims;
using heist::policy::kLevels;
using heist::policy::Level;
using heist::policy::RandomVictims;
using heist::policy::SuccessOnlyVictims;
using heist::policy::Topology;
using heist::policy::VictimChoice;

// 2 nodes x 2 processes x 2 sockets x 2 workers (a socket is a cache group): 16 places.
Topology machine16() { return Topology::uniform({2, 1, 1, 2, 2, 2}); }

std::uint32_t& at(HvsCounts& c, Level l) { return c.attempts[static_cast<std::size_t>(heist::policy::index(l))]; }

// The levels of `n` successive failed picks, run-length encoded: (level, count)...
std::vector<std::pair<Level, int>> runs(heist::policy::VictimPolicy& p, const Topology& t, int thief, Rng& rng, int n) {
  std::vector<std::pair<Level, int>> out;
  for (int i = 0; i < n; ++i) {
    const VictimChoice c = p.next(rng);
    EXPECT_NE(c.place, thief);
    EXPECT_EQ(c.level, t.common_level(thief, c.place)) << "place " << c.place;
    p.on_result(c, 0);
    if (out.empty() || out.back().first != c.level) out.emplace_back(c.level, 0);
    ++out.back().second;
  }
  return out;
}

using Runs = std::vector<std::pair<Level, int>>;

TEST(HierarchicalVictims, PhasesAreTheLevelsWithVictims) {
  const Topology t = machine16();
  const HierarchicalVictims hvs(t, 0);
  const auto& ph = hvs.phases();
  ASSERT_EQ(ph.size(), 4u);  // cache (= numa = socket), process, node, machine
  EXPECT_EQ(ph[0].level, Level::cache);
  EXPECT_EQ(ph[0].candidates, (std::vector<int>{1}));
  EXPECT_EQ(ph[1].level, Level::process);
  EXPECT_EQ(ph[1].candidates, (std::vector<int>{2, 3}));
  EXPECT_EQ(ph[2].level, Level::node);
  EXPECT_EQ(ph[2].candidates, (std::vector<int>{4, 5, 6, 7}));
  EXPECT_EQ(ph[3].level, Level::machine);
  EXPECT_EQ(ph[3].candidates, (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  // Defaults: the places of the thief's domain at each level; 4 * log2(16) at the top.
  EXPECT_EQ(ph[0].attempts, 2u);
  EXPECT_EQ(ph[1].attempts, 4u);
  EXPECT_EQ(ph[2].attempts, 8u);
  EXPECT_EQ(ph[3].attempts, 16u);
}

TEST(VictimPolicy, ASweepIsOneWalkOverEveryVictim) {
  const Topology t = machine16();
  EXPECT_EQ(HierarchicalVictims(t, 0).sweep(), 2u + 4u + 8u + 16u);  // every phase's attempts
  EXPECT_EQ(RandomVictims(t, 0).sweep(), 15u);                       // every other place ...
  EXPECT_EQ(RandomVictims(0, 2).sweep(), 1u);
  EXPECT_EQ(RandomVictims(0, 4096).sweep(), 48u);                    // ... at most 4 log2 N
  EXPECT_EQ(SuccessOnlyVictims(t, 0).sweep(), 2u + 4u + 8u + 1u);    // the inside walk and a request
}

TEST(HierarchicalVictims, WalksBottomUpThenWraps) {
  const Topology t = machine16();
  HierarchicalVictims hvs(t, 13);
  Rng rng(42);
  const Runs expected{{Level::cache, 2}, {Level::process, 4}, {Level::node, 8}, {Level::machine, 16},
                      {Level::cache, 2}, {Level::process, 4}, {Level::node, 8}, {Level::machine, 16}, {Level::cache, 1}};
  EXPECT_EQ(runs(hvs, t, 13, rng, 61), expected);
  EXPECT_EQ(hvs.rounds(), 2u);
}

TEST(HierarchicalVictims, SuccessRestartsAtTheBottom) {
  const Topology t = machine16();
  HierarchicalVictims hvs(t, 4);
  Rng rng(7);
  EXPECT_EQ(runs(hvs, t, 4, rng, 9), (Runs{{Level::cache, 2}, {Level::process, 4}, {Level::node, 3}}));
  const VictimChoice c = hvs.next(rng);  // the 4th node-level attempt
  EXPECT_EQ(c.level, Level::node);
  hvs.on_result(c, 3);
  EXPECT_EQ(hvs.phase(), 0u);
  // A full fresh count at the bottom, then up again.
  EXPECT_EQ(runs(hvs, t, 4, rng, 7), (Runs{{Level::cache, 2}, {Level::process, 4}, {Level::node, 1}}));
  // A success at the bottom also restarts the count there.
  const VictimChoice d = hvs.next(rng);
  ASSERT_EQ(d.level, Level::node);
  hvs.on_result(d, 0);
  hvs.restart();
  const VictimChoice e = hvs.next(rng);
  EXPECT_EQ(e.level, Level::cache);
  hvs.on_result(e, 1);
  EXPECT_EQ(runs(hvs, t, 4, rng, 3), (Runs{{Level::cache, 2}, {Level::process, 1}}));
}

TEST(HierarchicalVictims, CountsAreConfigurable) {
  const Topology t = machine16();
  HvsCounts counts;
  at(counts, Level::cache) = 1;
  at(counts, Level::process) = 3;
  at(counts, Level::machine) = 5;  // node keeps its default (8)
  HierarchicalVictims hvs(t, 9, counts);
  Rng rng(3);
  EXPECT_EQ(runs(hvs, t, 9, rng, 18),
            (Runs{{Level::cache, 1}, {Level::process, 3}, {Level::node, 8}, {Level::machine, 5}, {Level::cache, 1}}));
}

TEST(HierarchicalVictims, TopLevelDefaultIsFourLog2N) {
  EXPECT_EQ(HierarchicalVictims::top_attempts(2), 4u);
  EXPECT_EQ(HierarchicalVictims::top_attempts(16), 16u);
  EXPECT_EQ(HierarchicalVictims::top_attempts(17), 20u);  // ceil(log2 17) = 5
  EXPECT_EQ(HierarchicalVictims::top_attempts(256), 32u);
  // One node: the node level is the top and gets the default.
  const Topology one_node = Topology::uniform({2, 1, 1, 1, 4, 1});  // 4 ranks x 2 workers
  const HierarchicalVictims hvs(one_node, 0);
  ASSERT_EQ(hvs.phases().size(), 2u);
  EXPECT_EQ(hvs.phases()[1].level, Level::node);
  EXPECT_EQ(hvs.phases()[1].attempts, 12u);  // 4 * ceil(log2 8)
}

TEST(HierarchicalVictims, PicksCoverEveryCandidateOfAPhase) {
  const Topology t = machine16();
  HvsCounts counts;
  for (int l = 1; l < kLevels; ++l) counts.attempts[static_cast<std::size_t>(l)] = 400;
  HierarchicalVictims hvs(t, 0, counts);
  Rng rng(11);
  std::map<Level, std::map<int, int>> seen;
  for (int i = 0; i < 1600; ++i) {
    const VictimChoice c = hvs.next(rng);
    ++seen[c.level][c.place];
  }
  EXPECT_EQ(seen[Level::machine].size(), 8u);
  for (const auto& [place, n] : seen[Level::machine]) EXPECT_GT(n, 20) << place;  // 50 expected each
  EXPECT_EQ(seen[Level::node].size(), 4u);
}

TEST(HierarchicalVictims, IrregularMachine) {
  // Rank 0: 3 workers (two share a cache); rank 1: 1 worker on the same node; rank 2: 1 worker on node 1.
  const Topology t = Topology::from_domains({{0, 0, 0, 0, 0, 0, 0},
                                             {1, 0, 0, 0, 0, 0, 0},
                                             {2, 1, 1, 1, 0, 0, 0},
                                             {3, 2, 2, 2, 1, 0, 0},
                                             {4, 3, 3, 3, 2, 1, 0}});
  const HierarchicalVictims lone(t, 3);  // the single worker of rank 1: node, then machine
  ASSERT_EQ(lone.phases().size(), 2u);
  EXPECT_EQ(lone.phases()[0].level, Level::node);
  EXPECT_EQ(lone.phases()[0].candidates, (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(lone.phases()[0].attempts, 4u);
  EXPECT_EQ(lone.phases()[1].candidates, (std::vector<int>{4}));
  EXPECT_EQ(lone.phases()[1].attempts, 12u);  // 4 * ceil(log2 5)
  const HierarchicalVictims first(t, 0);
  ASSERT_EQ(first.phases().size(), 4u);
  EXPECT_EQ(first.phases()[0].level, Level::cache);
  EXPECT_EQ(first.phases()[1].level, Level::process);
  EXPECT_EQ(first.phases()[1].candidates, (std::vector<int>{2}));
  EXPECT_EQ(first.phases()[1].attempts, 3u);
}

TEST(HierarchicalVictims, SameSeedSameChoices) {
  const Topology t = machine16();
  HierarchicalVictims a(t, 5), b(t, 5);
  Rng ra(99), rb(99);
  for (int i = 0; i < 200; ++i) {
    const VictimChoice x = a.next(ra), y = b.next(rb);
    ASSERT_EQ(x.place, y.place);
    ASSERT_EQ(x.level, y.level);
  }
}

TEST(RandomVictims, UniformOverEveryOtherPlace) {
  const Topology t = machine16();
  RandomVictims random(t, 6);
  Rng rng(5);
  std::map<int, int> seen;
  std::map<Level, int> levels;
  for (int i = 0; i < 3000; ++i) {
    const VictimChoice c = random.next(rng);
    ASSERT_NE(c.place, 6);
    ASSERT_EQ(c.level, t.common_level(6, c.place));
    ++seen[c.place];
    ++levels[c.level];
  }
  EXPECT_EQ(seen.size(), 15u);
  for (const auto& [place, n] : seen) EXPECT_GT(n, 120) << place;  // 200 expected each
  EXPECT_GT(levels[Level::machine], levels[Level::node]);  // 8 of 15 places are on the other node
  // The flat form, as one process's workers use it.
  RandomVictims flat(2, 3);
  for (int i = 0; i < 100; ++i) {
    const VictimChoice c = flat.next(rng);
    EXPECT_TRUE(c.place == 0 || c.place == 1);
    EXPECT_EQ(c.level, Level::process);
  }
}

TEST(SuccessOnlyVictims, InsideTheNodeLikeHvsThenAcrossByAdvertisement) {
  const Topology t = machine16();
  SuccessOnlyVictims so(t, 2);
  EXPECT_TRUE(so.has_inside_node());
  EXPECT_EQ(so.other_node_ranks(), (std::vector<int>{2, 3}));
  Rng rng(17);
  // The inside walk: cache 2, process 4, node: its place count (8), never machine.
  EXPECT_FALSE(so.inter_node_due());
  EXPECT_EQ(runs(so, t, 2, rng, 14), (Runs{{Level::cache, 2}, {Level::process, 4}, {Level::node, 8}}));
  EXPECT_TRUE(so.inter_node_due());
  // Only ranks on another node that advertise work; rank 1 (same node) is never picked.
  const std::array<std::uint32_t, 4> adverts{0, 9, 0, 5};
  for (int i = 0; i < 50; ++i) {
    const std::optional<int> r = so.next_rank(rng, adverts);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(*r, 3);
  }
  EXPECT_FALSE(so.inter_node_due());  // next_rank ended the round
  const std::array<std::uint32_t, 4> none{4, 4, 0, 0};
  EXPECT_FALSE(so.next_rank(rng, none).has_value());
  // Both advertisers get picked.
  std::set<int> picked;
  const std::array<std::uint32_t, 4> both{0, 0, 1, 1};
  for (int i = 0; i < 50; ++i) picked.insert(*so.next_rank(rng, both));
  EXPECT_EQ(picked, (std::set<int>{2, 3}));
}

TEST(SuccessOnlyVictims, SuccessInsideTheNodeRestartsTheRound) {
  const Topology t = machine16();
  SuccessOnlyVictims so(t, 8);
  Rng rng(1);
  runs(so, t, 8, rng, 13);
  const VictimChoice c = so.next(rng);  // the last node-level attempt: the round is done
  EXPECT_TRUE(so.inter_node_due());
  so.on_result(c, 2);
  EXPECT_FALSE(so.inter_node_due());
  EXPECT_EQ(so.inside().phase(), 0u);
}

TEST(SuccessOnlyVictims, OneWorkerPerNodeGoesStraightAcross) {
  const Topology t = Topology::uniform({1, 1, 1, 1, 1, 4});  // 4 nodes of one single-worker rank
  SuccessOnlyVictims so(t, 1);
  EXPECT_FALSE(so.has_inside_node());
  EXPECT_TRUE(so.inter_node_due());
  Rng rng(2);
  EXPECT_THROW(so.next(rng), std::logic_error);
  const std::array<std::uint32_t, 4> adverts{1, 1, 0, 1};
  for (int i = 0; i < 20; ++i) {
    const int r = *so.next_rank(rng, adverts);
    EXPECT_TRUE(r == 0 || r == 3);
    EXPECT_TRUE(so.inter_node_due());
  }
  // One node: nothing across, HVS inside.
  const Topology one = Topology::uniform({2, 1, 1, 1, 2, 1});
  SuccessOnlyVictims inside(one, 0);
  EXPECT_FALSE(inside.has_other_nodes());
  runs(inside, one, 0, rng, 40);
  EXPECT_FALSE(inside.inter_node_due());
}

TEST(VictimPolicyFactory, MakesWhatTheSpecNames) {
  const Topology t = machine16();
  VictimSpec spec;
  for (auto [kind, name] : {std::pair{VictimSpec::Kind::random, "random"}, std::pair{VictimSpec::Kind::hvs, "hvs"},
                            std::pair{VictimSpec::Kind::success_only, "success-only"}}) {
    spec.kind = kind;
    EXPECT_EQ(std::string(heist::policy::make_victim_policy(spec, t, 0)->name()), name);
  }
  EXPECT_THROW(heist::policy::make_victim_policy(spec, Topology::uniform({}), 0), std::invalid_argument);
}

}  // namespace
