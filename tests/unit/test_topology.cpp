// Unit tests of policy::Topology (src/policy/topology.hpp): uniform and
// explicit machines, nesting checks, common levels, present levels.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "policy/topology.hpp"

namespace {

using heist::policy::kLevels;
using heist::policy::Level;
using heist::policy::Topology;

// 2 nodes x 2 processes x 2 NUMA domains x 2 workers sharing a cache = 16
// places. Each NUMA domain is one cache group, each process one socket.
Topology sixteen() {
  Topology::Fanout f;
  f.workers_per_cache = 2;
  f.caches_per_numa = 1;
  f.numas_per_socket = 2;
  f.sockets_per_process = 1;
  f.processes_per_node = 2;
  f.nodes = 2;
  return Topology::uniform(f);
}

TEST(Topology, UniformNumbersDomainsInPlaceOrder) {
  const Topology t = sixteen();  // cache = numa: pairs; socket = process: quads; node: 8; machine: 16
  ASSERT_EQ(t.places(), 16);
  EXPECT_EQ(t.domain(5, Level::worker), 5);
  EXPECT_EQ(t.domain(5, Level::cache), 2);
  EXPECT_EQ(t.domain(5, Level::numa), 2);
  EXPECT_EQ(t.domain(5, Level::socket), 1);
  EXPECT_EQ(t.domain(5, Level::process), 1);
  EXPECT_EQ(t.domain(5, Level::node), 0);
  EXPECT_EQ(t.domain(13, Level::node), 1);
  EXPECT_EQ(t.domain(13, Level::machine), 0);
  EXPECT_EQ(t.rank_of(13), 3);
  EXPECT_EQ(t.members(Level::process, 2), (std::vector<int>{8, 9, 10, 11}));
  EXPECT_EQ(t.members(Level::node, 1), (std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15}));
  EXPECT_TRUE(t.members(Level::node, 7).empty());
  EXPECT_EQ(t.domain_count(Level::cache), 8);
  EXPECT_EQ(t.domain_count(Level::machine), 1);
}

TEST(Topology, CommonLevel) {
  const Topology t = sixteen();
  EXPECT_EQ(t.common_level(3, 3), Level::worker);
  EXPECT_EQ(t.common_level(2, 3), Level::cache);
  EXPECT_EQ(t.common_level(0, 3), Level::socket);  // the lowest level where they meet (= process)
  EXPECT_EQ(t.common_level(0, 4), Level::node);
  EXPECT_EQ(t.common_level(0, 8), Level::machine);
  EXPECT_EQ(t.common_level(15, 8), Level::node);
}

TEST(Topology, PresentLevelsAreThoseThatGroup) {
  Topology::Fanout f;
  f.workers_per_cache = 2;
  f.sockets_per_process = 2;
  f.processes_per_node = 2;
  f.nodes = 3;
  const Topology t = Topology::uniform(f);  // 2 x 2 x 2 x 3 = 24 places
  EXPECT_FALSE(t.level_present(Level::worker));
  EXPECT_TRUE(t.level_present(Level::cache));
  EXPECT_FALSE(t.level_present(Level::numa));    // one cache group per NUMA domain
  EXPECT_FALSE(t.level_present(Level::socket));  // one NUMA domain per socket
  EXPECT_TRUE(t.level_present(Level::process));  // two sockets per process
  EXPECT_TRUE(t.level_present(Level::node));
  EXPECT_TRUE(t.level_present(Level::machine));

  const Topology one_node = Topology::uniform({2, 1, 1, 1, 2, 1});
  EXPECT_FALSE(one_node.level_present(Level::machine));
  EXPECT_TRUE(one_node.level_present(Level::node));
  const Topology single = Topology::uniform({});
  for (int l = 0; l < kLevels; ++l) EXPECT_FALSE(single.level_present(heist::policy::level_at(l)));
}

std::array<int, kLevels> d(int w, int cache, int numa, int socket, int process, int node) {
  return {w, cache, numa, socket, process, node, 0};
}

TEST(Topology, ExplicitDomainsMayBeIrregular) {
  // Rank 0 has 3 workers, rank 1 has 1; both on node 0; rank 2 (2 workers) on node 1.
  const Topology t = Topology::from_domains(
      {d(0, 0, 0, 0, 0, 0), d(1, 0, 0, 0, 0, 0), d(2, 1, 1, 1, 0, 0), d(3, 2, 2, 2, 1, 0), d(4, 3, 3, 3, 2, 5),
       d(5, 3, 3, 3, 2, 5)});
  EXPECT_EQ(t.places(), 6);
  EXPECT_EQ(t.rank_of(4), 2);
  EXPECT_EQ(t.common_level(0, 2), Level::process);
  EXPECT_EQ(t.common_level(0, 3), Level::node);
  EXPECT_EQ(t.common_level(3, 5), Level::machine);
  EXPECT_EQ(t.common_level(4, 5), Level::cache);
  EXPECT_EQ(t.members(Level::node, 5), (std::vector<int>{4, 5}));
  const std::string text = t.describe();
  EXPECT_NE(text.find("6 places"), std::string::npos) << text;
  EXPECT_NE(text.find("node 0: ranks 0 1"), std::string::npos) << text;
  EXPECT_NE(text.find("node 5: ranks 2"), std::string::npos) << text;
}

TEST(Topology, RejectsDomainsThatDoNotNest) {
  // Places 0 and 1 share a socket but sit in different processes.
  EXPECT_THROW(Topology::from_domains({d(0, 0, 0, 0, 0, 0), d(1, 1, 1, 0, 1, 0)}), std::invalid_argument);
  // Two places with one worker id.
  EXPECT_THROW(Topology::from_domains({d(0, 0, 0, 0, 0, 0), d(0, 0, 0, 0, 0, 0)}), std::invalid_argument);
  // A second machine.
  std::array<int, kLevels> other = d(1, 1, 1, 1, 1, 1);
  other[kLevels - 1] = 1;
  EXPECT_THROW(Topology::from_domains({d(0, 0, 0, 0, 0, 0), other}), std::invalid_argument);
  EXPECT_THROW(Topology::from_domains({}), std::invalid_argument);
  EXPECT_THROW(Topology::uniform({1, 0, 1, 1, 1, 1}), std::invalid_argument);
}

TEST(Topology, DescribeNamesEveryLevel) {
  const Topology t = Topology::uniform({2, 1, 1, 1, 2, 2});
  const std::string text = t.describe();
  for (const char* name : {"machine", "node", "process", "socket", "numa", "cache"})
    EXPECT_NE(text.find(name), std::string::npos) << name << " missing in:\n" << text;
  EXPECT_NE(text.find("socket: 4 domains of 2 places (no grouping: same as numa)"), std::string::npos) << text;
  EXPECT_NE(text.find("node 1: ranks 2 3"), std::string::npos) << text;
}

}  // namespace
