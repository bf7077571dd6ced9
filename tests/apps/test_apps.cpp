// The benchmark apps spantree (HelpFirst Fig. 3), sor (HelpFirst Fig. 6),
// bpc (SWS §5.2.1), matmul (PGAS-WS §5) and sparselu (BOTS, HotSLAW
// Table 1; its kernels are tested in apps/sparselu/sparselu_test.cpp)
// through the App interface,
// as `heist bench` runs them: options parsed by CLI11, run_parallel inside a
// heist::Runtime for 1-4 workers and every spawn policy, every result verified and every task executed exactly once
// (counted by the runtime). Then the failure modes: verify() rejects a
// corrupted result, the spanning-tree checker rejects broken trees, and
// check() rejects bad options.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include <heist/heist.hpp>

#include "common/app.hpp"
#include "heist_test.hpp"
#include "matmul/matmul.hpp"
#include "sor/sor.hpp"
#include "spantree/spantree.hpp"

namespace {

using heist::SpawnPolicy;
using heist::apps::App;
using heist::apps::RunOutput;

struct AppCase {
  const char* app;
  std::vector<std::string> args;  // small sizes: each run well under a second, sanitizers included
  std::uint64_t tasks;            // tasks one run executes (for chunks 7: sor = iterations x 2 x 7); 0: the result
};

// Nodes of the N-Queens search tree without a cutoff (one task each).
std::uint64_t queens_nodes(std::uint32_t n, std::uint32_t row = 0, std::uint32_t cols = 0, std::uint32_t left = 0,
                           std::uint32_t right = 0) {
  std::uint64_t nodes = 1;
  if (row == n) return nodes;
  for (std::uint32_t free = ~(cols | left | right) & ((1u << n) - 1); free != 0; free &= free - 1) {
    const std::uint32_t bit = free & (0u - free);
    nodes += queens_nodes(n, row + 1, cols | bit, (left | bit) << 1, (right | bit) >> 1);
  }
  return nodes;
}

// Sanitizer builds run the two largest cases smaller (heist_test.hpp).
const std::size_t kSpantreeVertices = heist_test::scaled(20000, 2000);
const std::size_t kMatmulTasks = heist_test::scaled(200, 50);

const AppCase kCases[] = {
    {"spantree", {"--vertices", std::to_string(kSpantreeVertices), "--degree", "3", "--graph-seed", "7"},
     kSpantreeVertices},
    {"sor", {"--n", "101", "--iterations", "4", "--chunks", "7"}, 4 * 2 * 7},
    {"bpc", {"--depth", "30", "--consumers", "12", "--consumer-us", "2", "--producer-us", "1"}, 30 * 13},
    {"matmul", {"--size", "32", "--tasks", std::to_string(kMatmulTasks)}, kMatmulTasks},
    // 36 fwd + 36 bdiv + 146 bmod tasks (36 of them fill in a null block)
    {"sparselu", {"--blocks", "12", "--block-size", "16"}, 36 + 36 + 146},
    {"fib", {"--n", "16", "--cutoff", "0"}, 2 * 1597 - 1},  // 2 fib(n+1) - 1 spawns
    {"nqueens", {"--n", "7", "--cutoff", "0"}, queens_nodes(7)},
    {"uts", {"--tree", "-t 1 -a 3 -d 5 -b 4 -r 19"}, 0},  // a task per node: the result
};

// Builds the app and parses its options the way `heist bench <app>` does.
std::unique_ptr<App> make_app(const std::string& name, const std::vector<std::string>& args) {
  for (const heist::apps::AppEntry& entry : heist::apps::app_table()) {
    if (name != entry.name) continue;
    std::unique_ptr<App> app = entry.make();
    heist::apps::AppOptions app_options;
    app->add_options(app_options);
    heist::apps::parse_arguments(app_options, args);
    app->check();
    return app;
  }
  throw std::invalid_argument("no app named " + name);
}

heist::Options options(int workers, SpawnPolicy policy) {
  heist::Options o;
  o.workers = workers;
  o.policy = policy;
  return o;
}

// ---------------------------------------------------------------- every app, workers x policy

using Param = std::tuple<std::size_t, SpawnPolicy>;

class AppRuns : public ::testing::TestWithParam<Param> {};

// 1 to 4 workers in one test (CTest starts a process per test).
TEST_P(AppRuns, ParallelRunsVerifyAndRunEveryTaskOnce) {
  const auto& [index, policy] = GetParam();
  const AppCase& c = kCases[index];
  std::unique_ptr<App> app = make_app(c.app, c.args);
  for (int workers = 1; workers <= 4; ++workers) {
    SCOPED_TRACE(std::to_string(workers) + " workers");
    heist::Runtime runtime(options(workers, policy));
    // A second run in the same runtime starts afresh; it goes through
    // Runtime::root, as `heist bench` does (its body is a task then, which
    // continuations may leave from).
    for (int repeat = 0; repeat < 2; ++repeat) {
      runtime.reset_stats();
      const RunOutput out = repeat == 0 ? app->run_parallel() : app->run_root(runtime);
      EXPECT_TRUE(app->verify(out)) << c.app << " result " << out.result.dump();
      const heist::WorkerStats total = runtime.stats().total();
      const std::uint64_t tasks = c.tasks != 0 ? c.tasks : out.result.get<std::uint64_t>();
      EXPECT_EQ(total.tasks_executed, tasks);
      EXPECT_EQ(total.tasks_created, tasks);
    }
  }
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  std::string name = std::string(kCases[std::get<0>(info.param)].app) + "_" + heist::to_string(std::get<1>(info.param));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(Apps, AppRuns,
                         ::testing::Combine(::testing::Values(0u, 1u, 2u, 3u, 4u, 5u, 6u, 7u),
                                            ::testing::ValuesIn(heist_test::kAllPolicies)),
                         param_name);

// ---------------------------------------------------------------- sequential versions, results

TEST(Apps, SequentialRunsVerifyAndAgreeWithParallel) {
  for (const AppCase& c : kCases) {
    std::unique_ptr<App> app = make_app(c.app, c.args);
    const RunOutput seq = app->run_sequential();
    EXPECT_TRUE(app->verify(seq)) << c.app;
    heist::Runtime runtime(options(2, SpawnPolicy::help_first));
    const RunOutput par = app->run_parallel();
    EXPECT_EQ(seq.result, par.result) << c.app;  // bit-exact doubles for sor and matmul
  }
}

TEST(Apps, ResultsAreTheExpectedCounts) {
  heist::Runtime runtime(options(2, SpawnPolicy::bounded));
  EXPECT_EQ(make_app("spantree", kCases[0].args)->run_parallel().result.get<std::uint64_t>(), kSpantreeVertices);
  const RunOutput bpc = make_app("bpc", kCases[2].args)->run_parallel();
  EXPECT_EQ(bpc.result.get<std::uint64_t>(), 30u * 12u);
  EXPECT_EQ(bpc.extra["producers"].get<std::uint64_t>(), 30u);
  const RunOutput lu = make_app("sparselu", kCases[4].args)->run_parallel();
  EXPECT_EQ(lu.result.get<std::uint64_t>(), 84u);  // 48 blocks of BOTS's pattern + 36 fill-ins
  EXPECT_EQ(lu.extra["max_relative_error"].get<double>(), 0.0);
}

// ---------------------------------------------------------------- failure modes

TEST(Apps, VerifyRejectsACorruptedResult) {
  heist::Runtime runtime(options(2, SpawnPolicy::help_first));
  for (const AppCase& c : kCases) {
    std::unique_ptr<App> app = make_app(c.app, c.args);
    RunOutput out = app->run_parallel();
    ASSERT_TRUE(app->verify(out)) << c.app;
    RunOutput bad = out;
    if (bad.result.is_number_float()) {
      const double r = bad.result.get<double>();
      bad.result = std::nextafter(r, r + 1.0);  // one ulp off
    } else {
      bad.result = bad.result.get<std::uint64_t>() + 1;
    }
    EXPECT_FALSE(app->verify(bad)) << c.app;
  }
  // bpc also checks the producer count.
  std::unique_ptr<App> bpc = make_app("bpc", kCases[2].args);
  RunOutput out = bpc->run_parallel();
  out.extra["producers"] = 29;
  EXPECT_FALSE(bpc->verify(out));
}

TEST(Apps, CheckRejectsBadOptions) {
  EXPECT_THROW(make_app("spantree", {"--vertices", "0"}), std::invalid_argument);
  EXPECT_THROW(make_app("spantree", {"--degree", "-1"}), std::invalid_argument);
  EXPECT_THROW(make_app("sor", {"--n", "2"}), std::invalid_argument);
  EXPECT_THROW(make_app("sor", {"--omega", "2.5"}), std::invalid_argument);
  EXPECT_THROW(make_app("bpc", {"--depth", "-1"}), std::invalid_argument);
  EXPECT_THROW(make_app("matmul", {"--size", "0"}), std::invalid_argument);
  EXPECT_THROW(make_app("sparselu", {"--blocks", "0"}), std::invalid_argument);
  EXPECT_THROW(make_app("sparselu", {"--block-size", "0"}), std::invalid_argument);
}

// ---------------------------------------------------------------- kernels

namespace st = heist::apps::spantree;

TEST(SpanTree, GraphIsDeterministicUndirectedAndSized) {
  const st::Graph g = st::make_graph(1000, 4, 11);
  EXPECT_EQ(g.undirected_edges(), 1000u * 4u + 999u);
  EXPECT_EQ(g.targets, st::make_graph(1000, 4, 11).targets);
  EXPECT_NE(g.targets, st::make_graph(1000, 4, 12).targets);
  for (std::uint32_t v = 0; v < g.vertices; ++v)
    for (std::uint32_t u : g.neighbours(v)) {
      ASSERT_NE(u, v);
      const auto back = g.neighbours(u);
      ASSERT_NE(std::find(back.begin(), back.end(), v), back.end());
    }
}

TEST(SpanTree, CheckerRejectsBrokenTrees) {
  const st::Graph g = st::make_graph(2000, 2, 5);
  std::vector<std::uint32_t> parent;
  ASSERT_EQ(st::spanning_tree_sequential(g, 0, parent), 2000u);
  const st::TreeCheck good = st::check_spanning_tree(g, 0, parent);
  ASSERT_TRUE(good.ok) << good.error;
  EXPECT_EQ(good.labelled, 2000u);

  // A vertex whose neighbours are all non-root: corrupt around it.
  auto adjacent = [&](std::uint32_t a, std::uint32_t b) {
    const auto nb = g.neighbours(a);
    return std::find(nb.begin(), nb.end(), b) != nb.end();
  };
  std::uint32_t v = 1;
  while (adjacent(v, 0)) ++v;
  const std::uint32_t u = g.neighbours(v)[0];

  auto broken = parent;
  broken[0] = 1;  // the root has no self parent
  EXPECT_FALSE(st::check_spanning_tree(g, 0, broken).ok);

  broken = parent;  // a parent that is not a neighbour
  std::uint32_t stranger = 1;
  while (stranger == v || adjacent(v, stranger)) ++stranger;
  broken[v] = stranger;
  EXPECT_NE(st::check_spanning_tree(g, 0, broken).error.find("not in the graph"), std::string::npos);

  broken = parent;  // a two-cycle along a real edge
  broken[v] = u;
  broken[u] = v;
  EXPECT_NE(st::check_spanning_tree(g, 0, broken).error.find("cycle"), std::string::npos);

  broken = parent;  // a reachable vertex left unlabelled
  broken[v] = st::kNoParent;
  for (std::uint32_t w = 0; w < g.vertices; ++w)
    if (broken[w] == v) broken[w] = st::kNoParent;  // its children too
  EXPECT_NE(st::check_spanning_tree(g, 0, broken).error.find("reachable"), std::string::npos);

  broken = parent;
  broken.pop_back();
  EXPECT_FALSE(st::check_spanning_tree(g, 0, broken).ok);
}

TEST(Sor, HeistGridIsBitIdenticalForAnyChunkCount) {
  const heist::apps::sor::Grid initial = heist::apps::sor::make_grid(64, 3);
  heist::apps::sor::Grid expected = initial;
  heist::apps::sor::sor_sequential(expected, 1.25, 3);
  EXPECT_NE(expected.cells, initial.cells);
  heist::Runtime runtime(options(3, SpawnPolicy::help_first));
  for (int chunks : {1, 2, 5, 62, 100}) {
    heist::apps::sor::Grid grid = initial;
    heist::apps::sor::sor_heist(grid, 1.25, 3, chunks);
    EXPECT_EQ(grid.cells, expected.cells) << chunks << " chunks";
  }
}

TEST(Matmul, MultiplyAndChecksum) {
  const double a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  double c[4];
  heist::apps::matmul::multiply(2, a, b, c);
  EXPECT_EQ(std::vector<double>(c, c + 4), (std::vector<double>{19, 22, 43, 50}));
  EXPECT_EQ(heist::apps::matmul::task_checksum(5, 16), heist::apps::matmul::task_checksum(5, 16));
  EXPECT_NE(heist::apps::matmul::task_checksum(5, 16), heist::apps::matmul::task_checksum(6, 16));
}

}  // namespace
