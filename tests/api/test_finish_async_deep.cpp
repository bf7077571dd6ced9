// finish/async through the public API (heist.hpp), the failing and the deep
// cases: exceptions through nested finish scopes, a parallel DFS building a
// spanning tree with escaping asyncs, the stack nesting help-first and SLAW
// bound, and a million-link chain of escaping asyncs on a constant stack.
// Every test counts executions and compares with the sequential answer; none
// measures time. The basics: test_finish_async.cpp.
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "finish_async.hpp"
#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using namespace finish_async_test;
using heist::SpawnPolicy;
using heist_test::scaled;

// ---------------------------------------------------------------- exceptions

// Under policies that run asyncs first (inline, work-first, and bounded/SLAW
// with a full queue) a task's exception unwinds through its spawner, which then
// spawns no more; so the tests count the tasks spawned and check that each
// of them ran exactly once, and that under help-first all of them were.
TEST_P(FinishAsync, ExceptionInTaskPropagatesOutOfOutermostFinish) {
  heist::Runtime rt(opts());
  const std::size_t n = 1000;
  auto count = make_counters(n);
  std::size_t spawned = 0;
  try {
    heist::finish([&] {
      for (std::size_t i = 0; i < n; ++i) {
        ++spawned;
        heist::async([&count, i] {
          count[i].fetch_add(1);
          if (i == 517) throw std::runtime_error("task 517 failed");
        });
      }
    });
    ADD_FAILURE() << "finish did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "task 517 failed");
  }
  // finish waited for every task spawned, the failing one included.
  ASSERT_GE(spawned, 518u);
  for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(count[i].load(), i < spawned ? 1 : 0) << "task " << i;
  if (policy() == SpawnPolicy::help_first) {
    EXPECT_EQ(spawned, n);
  }
  // The runtime is usable afterwards, and the error is not reported twice.
  std::atomic<int> after{0};
  EXPECT_NO_THROW(heist::finish([&] {
    for (int i = 0; i < 100; ++i) heist::async([&after] { after.fetch_add(1); });
  }));
  EXPECT_EQ(after.load(), 100);
}

TEST_P(FinishAsync, ExceptionDeepInNestedFinishReachesTheOutermost) {
  heist::Runtime rt(opts());
  std::atomic<int> spawned{0}, ran{0};
  auto body = [&] {
    spawned.fetch_add(1);
    heist::async([&] {
      ran.fetch_add(1);
      heist::finish([&] {
        spawned.fetch_add(1);
        heist::async([&] {
          ran.fetch_add(1);
          heist::finish([&] {
            for (int i = 0; i < 10; ++i) {
              spawned.fetch_add(1);
              heist::async([&, i] {
                ran.fetch_add(1);
                if (i == 3) throw std::logic_error("deep");
              });
            }
          });
        });
      });
    });
  };
  for (int rep = 0; rep < 3; ++rep) {
    spawned = 0;
    ran = 0;
    EXPECT_THROW(heist::finish(body), std::logic_error);
    EXPECT_EQ(ran.load(), spawned.load());
    EXPECT_GE(ran.load(), 6);
    if (policy() == SpawnPolicy::help_first) {
      EXPECT_EQ(ran.load(), 12);
    }
  }
}

TEST_P(FinishAsync, ExceptionFromFinishBodyWaitsForItsAsyncs) {
  heist::Runtime rt(opts());
  const std::size_t n = 500;
  auto count = make_counters(n);
  EXPECT_THROW(heist::finish([&] {
                 for (std::size_t i = 0; i < n; ++i) heist::async([&count, i] { count[i].fetch_add(1); });
                 throw std::out_of_range("body");
               }),
               std::out_of_range);
  EXPECT_EQ(count_not_one(count), 0);
}

// ---------------------------------------------------------------- DFS spanning tree

struct Graph {
  std::vector<std::uint32_t> offsets;  // CSR
  std::vector<std::uint32_t> targets;
  std::uint32_t size() const { return static_cast<std::uint32_t>(offsets.size() - 1); }
  bool has_edge(std::uint32_t u, std::uint32_t v) const {
    for (std::uint32_t e = offsets[u]; e < offsets[u + 1]; ++e)
      if (targets[e] == v) return true;
    return false;
  }
};

// Connected: vertex v > 0 has an edge to a random earlier vertex, plus
// `extra` random edges; undirected, stored both ways.
Graph random_graph(std::uint32_t n, std::uint32_t extra, std::uint64_t seed) {
  std::uint64_t s = seed;
  auto rnd = [&s](std::uint32_t bound) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((s >> 33) % bound);
  };
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  for (std::uint32_t v = 1; v < n; ++v) edges.emplace_back(v, rnd(v));
  for (std::uint32_t i = 0; i < extra; ++i) {
    const std::uint32_t a = rnd(n), b = rnd(n);
    if (a != b) edges.emplace_back(a, b);
  }
  Graph g;
  g.offsets.assign(n + 1, 0);
  for (auto [a, b] : edges) ++g.offsets[a + 1], ++g.offsets[b + 1];
  for (std::uint32_t v = 0; v < n; ++v) g.offsets[v + 1] += g.offsets[v];
  g.targets.resize(g.offsets[n]);
  std::vector<std::uint32_t> fill(g.offsets.begin(), g.offsets.end() - 1);
  for (auto [a, b] : edges) g.targets[fill[a]++] = b, g.targets[fill[b]++] = a;
  return g;
}

constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;

struct Dfs {
  const Graph& g;
  std::vector<std::atomic<std::uint32_t>> parent;
  std::vector<std::atomic<int>> visits;
  explicit Dfs(const Graph& graph) : g(graph), parent(graph.size()), visits(graph.size()) {
    for (auto& p : parent) p.store(kNoParent, std::memory_order_relaxed);
    for (auto& v : visits) v.store(0, std::memory_order_relaxed);
  }
  void visit(std::uint32_t v) {
    visits[v].fetch_add(1, std::memory_order_relaxed);
    for (std::uint32_t e = g.offsets[v]; e < g.offsets[v + 1]; ++e) {
      const std::uint32_t u = g.targets[e];
      std::uint32_t expected = kNoParent;
      if (parent[u].load(std::memory_order_relaxed) == kNoParent &&
          parent[u].compare_exchange_strong(expected, v, std::memory_order_acq_rel))
        heist::async([this, u] { visit(u); });  // escapes: this task does not wait
    }
  }
};

void check_spanning_tree(const Graph& g, const Dfs& dfs, std::uint32_t root) {
  const std::uint32_t n = g.size();
  ASSERT_EQ(dfs.parent[root].load(), root);
  int unvisited = 0, multi = 0, non_edge = 0;
  for (std::uint32_t v = 0; v < n; ++v) {
    const int k = dfs.visits[v].load();
    unvisited += k == 0;
    multi += k > 1;
    const std::uint32_t p = dfs.parent[v].load();
    if (v != root && (p == kNoParent || !g.has_edge(p, v))) ++non_edge;
  }
  EXPECT_EQ(unvisited, 0);
  EXPECT_EQ(multi, 0);
  EXPECT_EQ(non_edge, 0);
  // Acyclic: every vertex reaches the root; depths memoised.
  std::vector<std::int64_t> depth(n, -1);
  depth[root] = 0;
  std::vector<std::uint32_t> path;
  int cycles = 0;
  for (std::uint32_t v = 0; v < n && cycles == 0; ++v) {
    path.clear();
    std::uint32_t x = v;
    while (depth[x] < 0 && path.size() <= n) {
      path.push_back(x);
      x = dfs.parent[x].load();
      if (x == kNoParent) break;
    }
    if (x == kNoParent || path.size() > n) {
      ++cycles;
      break;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) depth[*it] = depth[x] + (path.rend() - it);
  }
  EXPECT_EQ(cycles, 0);
}

TEST_P(FinishAsync, DfsSpanningTreeWithEscapingAsyncs) {
  // Inline, work-first and bounded run asyncs first (a DFS recursion as deep
  // as the tree), so they get a smaller graph and a large stack; help-first,
  // SLAW and adaptive (whose S knob bounds stack frames) get the full 200k
  // vertices.
  const bool deep_inline = policy() == SpawnPolicy::inline_child || policy() == SpawnPolicy::work_first ||
                           policy() == SpawnPolicy::bounded;
  const auto n = static_cast<std::uint32_t>(scaled(deep_inline ? 20000 : 200000, 1000));
  const Graph g = random_graph(n, n, 7 + n);
  heist::Options o = opts();
  o.worker_stack_bytes = std::size_t{512} << 20;
  o.fiber_stack_bytes = std::size_t{512} << 20;  // work-first recurses on fibers (reserved, committed as used)
  heist_test::run_on_big_stack(std::size_t{512} << 20, [&] {
    heist::Runtime rt(o);
    for (std::uint32_t root : {0u, n / 2}) {
      Dfs dfs(g);
      dfs.parent[root].store(root);
      heist::finish([&] { heist::async([&dfs, root] { dfs.visit(root); }); });
      check_spanning_tree(g, dfs, root);
    }
  });
}

INSTANTIATE_TEST_SUITE_P(Policies, FinishAsync,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::ValuesIn(heist_test::kStackPolicies)),
                         instance_name);
INSTANTIATE_TEST_SUITE_P(Continuations, FinishAsync, ::testing::ValuesIn(heist_test::kContinuationRuns), instance_name);

// ---------------------------------------------------------------- nesting bound

// Nesting of task bodies on each worker's stack, for a search whose queue
// stays long: every task spawns three escaping children until `limit`
// tasks have started, so depth-first inline execution would nest ~limit deep.
thread_local int t_nesting = 0;
struct NestingTree {
  long limit;
  std::atomic<long> started{0};
  std::atomic<int> deepest{0};
  void node() {
    const int depth = ++t_nesting;
    int seen = deepest.load(std::memory_order_relaxed);
    while (depth > seen && !deepest.compare_exchange_weak(seen, depth, std::memory_order_relaxed)) {
    }
    if (started.fetch_add(1, std::memory_order_relaxed) < limit)
      for (int k = 0; k < 3; ++k) heist::async([this] { node(); });
    --t_nesting;
  }
};

class NestingBound : public ::testing::TestWithParam<heist_test::WorkersPolicy> {};

TEST_P(NestingBound, HelpFirstAndSlawBoundTheStack) {
  const auto [workers, policy] = GetParam();
  heist::Options o = heist_test::options(workers, policy);
  o.slaw_stack_frames = 64;
  o.slaw_interval = 16;
  o.worker_stack_bytes = std::size_t{512} << 20;  // so an unbounded nesting fails the check, not the process
  NestingTree tree{static_cast<long>(scaled(100000, 20000))};
  heist_test::run_on_big_stack(std::size_t{512} << 20, [&] {
    heist::Runtime rt(o);
    heist::finish([&] { heist::async([&tree] { tree.node(); }); });
  });
  EXPECT_EQ(tree.started.load(), 3 * tree.limit + 1);
  if (policy == SpawnPolicy::help_first) {
    EXPECT_EQ(tree.deepest.load(), 1);  // escaping asyncs never nest
  } else {
    EXPECT_LE(tree.deepest.load(), 2 * (o.slaw_stack_frames + o.slaw_interval));  // SLAW's S (+ INT) bounds it
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, NestingBound,
                         ::testing::Combine(::testing::Values(1, 2, 4),
                                            ::testing::Values(SpawnPolicy::help_first, SpawnPolicy::slaw)),
                         instance_name);

// ---------------------------------------------------------------- deep chain

// A chain of asyncs, each spawning the next and returning. Under help-first
// (and the policies that stay help-first on a short queue) no task runs on
// top of another, so a million links need a constant stack.
class DeepChain : public ::testing::TestWithParam<heist_test::WorkersPolicy> {};

struct Chain {
  std::uint64_t n;
  std::atomic<std::uint64_t> links{0};
  std::atomic<std::uint64_t> out_of_order{0};
  std::atomic<std::uint64_t> next_expected{0};
  void link(std::uint64_t i) {
    if (next_expected.exchange(i + 1, std::memory_order_relaxed) != i) out_of_order.fetch_add(1);
    links.fetch_add(1, std::memory_order_relaxed);
    if (i + 1 < n) heist::async([this, i] { link(i + 1); });
  }
};

TEST_P(DeepChain, MillionEscapingAsyncsUseConstantStack) {
  const auto [workers, policy] = GetParam();
  heist::Options o = heist_test::options(workers, policy);
  // The default worker stack; 8 MiB would hold at most tens of thousands of
  // nested task frames, far fewer than the chain's length.
  heist::Runtime rt(o);
  Chain chain{scaled(1000000, 20000)};
  heist::finish([&] { heist::async([&chain] { chain.link(0); }); });
  EXPECT_EQ(chain.links.load(), chain.n);
  EXPECT_EQ(chain.out_of_order.load(), 0u);  // a chain: each link after the previous
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, chain.n);  // one async per link
  EXPECT_EQ(t.tasks_executed, chain.n);
}

INSTANTIATE_TEST_SUITE_P(HelpFirst, DeepChain,
                         ::testing::Combine(::testing::Values(1, 2),
                                            ::testing::Values(SpawnPolicy::help_first, SpawnPolicy::bounded,
                                                              SpawnPolicy::slaw)),
                         instance_name);

}  // namespace
