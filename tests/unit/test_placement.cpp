// Where workers sit and the Topology built from it: the user-defined
// hierarchy (--hierarchy), hwloc detection (whatever this machine is, the ids
// must nest), and the machine assembled from several ranks and nodes.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "heist/options.hpp"
#include "platform/hw_topology.hpp"
#include "sched/placement.hpp"

namespace {

using heist::HierarchySpec;
using heist::OptionError;
using heist::parse_hierarchy;
using heist::platform::WorkerSite;
using heist::policy::Level;
using heist::policy::Topology;

TEST(Hierarchy, ParsesAndPrints) {
  EXPECT_FALSE(parse_hierarchy("detect").defined());
  EXPECT_FALSE(parse_hierarchy("").defined());
  const HierarchySpec h = parse_hierarchy("cache=2,socket=8");
  EXPECT_EQ(h.workers_per_cache, 2u);
  EXPECT_EQ(h.workers_per_numa, 0u);
  EXPECT_EQ(h.workers_per_socket, 8u);
  EXPECT_EQ(heist::to_string(h), "cache=2,socket=8");
  EXPECT_EQ(parse_hierarchy(heist::to_string(h)), h);
  EXPECT_EQ(heist::to_string(HierarchySpec{}), "detect");
  EXPECT_EQ(parse_hierarchy("numa=4 socket=4").workers_per_numa, 4u);
}

TEST(Hierarchy, RejectsWhatDoesNotNest) {
  EXPECT_THROW(parse_hierarchy("cache=2,socket=3"), OptionError);
  EXPECT_THROW(parse_hierarchy("numa=4,socket=2"), OptionError);
  EXPECT_THROW(parse_hierarchy("core=2"), OptionError);
  EXPECT_THROW(parse_hierarchy("cache=0"), OptionError);
  EXPECT_THROW(parse_hierarchy("cache"), OptionError);
  EXPECT_THROW(parse_hierarchy("cache=x"), OptionError);
  EXPECT_THROW(parse_hierarchy("@/nonexistent/heist-hierarchy"), OptionError);
}

TEST(Hierarchy, ReadsAFile) {
  const std::string path = testing::TempDir() + "heist_hierarchy_test.txt";
  {
    std::ofstream f(path);
    f << "# two workers share a cache, four a socket\ncache=2\n\nsocket=4  # per socket\n";
  }
  const HierarchySpec h = parse_hierarchy("@" + path);
  std::remove(path.c_str());
  EXPECT_EQ(h.workers_per_cache, 2u);
  EXPECT_EQ(h.workers_per_socket, 4u);
}

TEST(Sites, FromTheUserHierarchy) {
  const auto sites = heist::platform::sites_from_spec(parse_hierarchy("cache=2,socket=4"), 8);
  EXPECT_EQ(sites.source, "user");
  ASSERT_EQ(sites.workers.size(), 8u);
  const int cache[] = {0, 0, 1, 1, 2, 2, 3, 3};
  const int socket[] = {0, 0, 0, 0, 1, 1, 1, 1};
  for (int w = 0; w < 8; ++w) {
    EXPECT_EQ(sites.workers[static_cast<std::size_t>(w)].cache, cache[w]);
    EXPECT_EQ(sites.workers[static_cast<std::size_t>(w)].numa, cache[w]);  // unset: groups like the cache level
    EXPECT_EQ(sites.workers[static_cast<std::size_t>(w)].socket, socket[w]);
  }
}

// Whatever this machine is: one site per worker, and the ids nest.
TEST(Sites, DetectedSitesNest) {
  for (int workers : {1, 3, 64}) {
    const auto sites = heist::platform::detect_sites(workers);
    ASSERT_EQ(sites.workers.size(), static_cast<std::size_t>(workers));
    std::map<int, int> numa_of_cache, socket_of_numa;
    for (const WorkerSite& s : sites.workers) {
      EXPECT_EQ(numa_of_cache.emplace(s.cache, s.numa).first->second, s.numa);
      EXPECT_EQ(socket_of_numa.emplace(s.numa, s.socket).first->second, s.socket);
    }
    EXPECT_NO_THROW(heist::sched::build_topology({{sites.workers, 0}})) << sites.detail;
  }
}

TEST(Placement, RanksAndNodesBecomeLevels) {
  // 4 ranks x 2 workers sharing a cache, 2 ranks per node.
  const std::vector<WorkerSite> two{{0, 0, 0}, {0, 0, 0}};
  const Topology t = heist::sched::build_topology({{two, 0}, {two, 0}, {two, 1}, {two, 1}});
  ASSERT_EQ(t.places(), 8);
  EXPECT_EQ(t.rank_of(5), 2);
  EXPECT_EQ(t.common_level(4, 5), Level::cache);
  EXPECT_EQ(t.common_level(0, 2), Level::node);
  EXPECT_EQ(t.common_level(0, 7), Level::machine);
  EXPECT_TRUE(t.level_present(Level::cache));
  EXPECT_FALSE(t.level_present(Level::socket));
  EXPECT_FALSE(t.level_present(Level::process));  // a process is one cache group here
  EXPECT_TRUE(t.level_present(Level::node));
  EXPECT_TRUE(t.level_present(Level::machine));
  // Ranks of different sizes.
  const Topology u = heist::sched::build_topology({{{{0, 0, 0}, {1, 0, 0}, {2, 1, 1}}, 0}, {{{0, 0, 0}}, 1}});
  EXPECT_EQ(u.places(), 4);
  EXPECT_EQ(u.rank_of(3), 1);
  EXPECT_EQ(u.common_level(0, 1), Level::numa);
  EXPECT_EQ(u.common_level(0, 2), Level::process);
  EXPECT_EQ(u.common_level(2, 3), Level::machine);
}

}  // namespace
