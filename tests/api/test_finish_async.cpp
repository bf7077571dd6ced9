// finish/async through the public API (heist.hpp), for 1..4 workers and every
// spawn policy: nested finish scopes with escaping asyncs, sequential calls of
// functions that spawn, async_any, closures too big for the slot (boxed),
// exceptions, a deep chain of escaping asyncs (stack safety under help-first)
// and a parallel DFS building a spanning tree. Every test counts executions
// per id and compares with the sequential answer; none measures time.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::SpawnPolicy;
using heist_test::scaled;

class FinishAsync : public ::testing::TestWithParam<heist_test::WorkersPolicy> {
 protected:
  int workers() const { return std::get<0>(GetParam()); }
  SpawnPolicy policy() const { return std::get<1>(GetParam()); }
  heist::Options opts() const { return heist_test::options(workers(), policy()); }
};

std::vector<std::atomic<int>> make_counters(std::size_t n) {
  std::vector<std::atomic<int>> v(n);
  for (auto& c : v) c.store(0, std::memory_order_relaxed);
  return v;
}

int count_not_one(const std::vector<std::atomic<int>>& v) {
  int bad = 0;
  for (const auto& c : v) bad += c.load() != 1;
  return bad;
}

// ---------------------------------------------------------------- nested finish

// A ternary tree in heap numbering (children of i: 3i+1..3i+3), depth kDepth.
// Each node counts itself, then spawns its children as escaping asyncs and
// returns — except nodes at depth 1 (mod 3), which wrap the spawn of their
// children in a nested finish and then check the whole subtree has run.
constexpr int kTreeDepth = 7;
constexpr std::size_t tree_size(int depth) {
  std::size_t n = 0, level = 1;
  for (int d = 0; d <= depth; ++d, level *= 3) n += level;
  return n;
}

struct TreeCtx {
  std::vector<std::atomic<int>> count = make_counters(tree_size(kTreeDepth));
  std::atomic<int> nested_errors{0};
  std::atomic<int> nested_checks{0};
};

bool subtree_complete(const TreeCtx& c, std::size_t root, int depth) {
  if (c.count[root].load() != 1) return false;
  if (depth == kTreeDepth) return true;
  for (std::size_t k = 1; k <= 3; ++k)
    if (!subtree_complete(c, 3 * root + k, depth + 1)) return false;
  return true;
}

void tree_node(TreeCtx& c, std::size_t id, int depth) {
  c.count[id].fetch_add(1, std::memory_order_relaxed);
  if (depth == kTreeDepth) return;
  auto spawn_children = [&c, id, depth] {
    for (std::size_t k = 1; k <= 3; ++k) {
      const std::size_t child = 3 * id + k;
      heist::async([&c, child, depth] { tree_node(c, child, depth + 1); });
    }
  };
  if (depth % 3 == 1) {
    heist::finish(spawn_children);
    c.nested_checks.fetch_add(1, std::memory_order_relaxed);
    for (std::size_t k = 1; k <= 3; ++k)
      if (!subtree_complete(c, 3 * id + k, depth + 1)) c.nested_errors.fetch_add(1, std::memory_order_relaxed);
  } else {
    spawn_children();  // escaping: this task returns before its children run
  }
}

TEST_P(FinishAsync, NestedFinishWithEscapingAsyncs) {
  heist::Runtime rt(opts());
  ASSERT_EQ(rt.workers(), workers());
  for (int rep = 0; rep < 3; ++rep) {
    TreeCtx c;
    heist::finish([&] { heist::async([&c] { tree_node(c, 0, 0); }); });
    // Everything, transitively, has run exactly once when finish returns.
    EXPECT_EQ(count_not_one(c.count), 0);
    EXPECT_EQ(c.nested_errors.load(), 0);
    // Nodes at depths 1 and 4 open a nested finish: 3 + 81.
    EXPECT_EQ(c.nested_checks.load(), 3 + 81);
  }
}

TEST_P(FinishAsync, EscapingAsyncsOutliveTheirSpawner) {
  // Each task spawns its two children and returns without waiting; finish
  // waits for all of them.
  heist::Runtime rt(opts());
  const std::size_t n = scaled(20000, 100);
  auto count = make_counters(n);
  struct Fan {
    static void run(std::vector<std::atomic<int>>& count, std::size_t lo, std::size_t hi) {
      if (hi - lo == 1) {
        count[lo].fetch_add(1, std::memory_order_relaxed);
        return;
      }
      const std::size_t mid = lo + (hi - lo) / 2;
      heist::async([&count, lo, mid] { run(count, lo, mid); });
      heist::async([&count, mid, hi] { run(count, mid, hi); });
    }
  };
  heist::finish([&] { Fan::run(count, 0, n); });
  EXPECT_EQ(count_not_one(count), 0);
}

TEST_P(FinishAsync, FinishInsideTasksAtManyLevels) {
  // finish nested in finish nested in tasks: each level's finish waits for
  // its own asyncs, and the counts below it are complete when it returns.
  heist::Runtime rt(opts());
  std::atomic<long> leaves{0};
  std::atomic<int> errors{0};
  struct Level {
    static void run(std::atomic<long>& leaves, std::atomic<int>& errors, int depth) {
      if (depth == 0) {
        leaves.fetch_add(1, std::memory_order_relaxed);
        return;
      }
      std::atomic<long> mine{0};
      heist::finish([&] {
        for (int i = 0; i < 4; ++i)
          heist::async([&mine, &errors, depth] {
            std::atomic<long> below{0};
            run(below, errors, depth - 1);  // a finish of its own inside
            mine.fetch_add(below.load(), std::memory_order_relaxed);
          });
      });
      long expected = 1;
      for (int d = 0; d < depth; ++d) expected *= 4;
      if (mine.load() != expected) errors.fetch_add(1, std::memory_order_relaxed);
      leaves.fetch_add(mine.load(), std::memory_order_relaxed);
    }
  };
  heist::finish([&] { Level::run(leaves, errors, 6); });
  EXPECT_EQ(leaves.load(), 4096);
  EXPECT_EQ(errors.load(), 0);
}

TEST_P(FinishAsync, WorkerIdentityInsideTasks) {
  heist::Runtime rt(opts());
  EXPECT_EQ(heist::worker_id(), 0);
  EXPECT_EQ(heist::num_workers(), workers());
  const int n = 2000;
  std::vector<std::atomic<int>> ids = make_counters(n);
  std::atomic<int> wrong_count{0};
  heist::finish([&] {
    for (int i = 0; i < n; ++i)
      heist::async([&, i] {
        ids[static_cast<std::size_t>(i)].store(heist::worker_id());
        if (heist::num_workers() != workers()) wrong_count.fetch_add(1);
      });
  });
  EXPECT_EQ(wrong_count.load(), 0);
  int out_of_range = 0;
  for (const auto& id : ids) out_of_range += id.load() < 0 || id.load() >= workers();
  EXPECT_EQ(out_of_range, 0);
}

// ---------------------------------------------------------------- sequential calls

std::int64_t parallel_sum(const std::vector<std::int64_t>& v) {
  std::atomic<std::int64_t> total{0};
  struct Sum {
    static void run(const std::vector<std::int64_t>& v, std::atomic<std::int64_t>& total, std::size_t lo,
                    std::size_t hi) {
      if (hi - lo <= 64) {
        total.fetch_add(std::accumulate(v.begin() + static_cast<std::ptrdiff_t>(lo),
                                        v.begin() + static_cast<std::ptrdiff_t>(hi), std::int64_t{0}),
                        std::memory_order_relaxed);
        return;
      }
      const std::size_t mid = lo + (hi - lo) / 2;
      heist::async([&v, &total, lo, mid] { run(v, total, lo, mid); });
      run(v, total, mid, hi);
    }
  };
  heist::finish([&] { Sum::run(v, total, 0, v.size()); });
  return total.load();
}

TEST_P(FinishAsync, SequentialCallsToFunctionsThatSpawn) {
  heist::Runtime rt(opts());
  std::vector<std::int64_t> v(scaled(100000, 1000));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::int64_t>((i * 7919) % 1000) - 400;
  const std::int64_t expected = std::accumulate(v.begin(), v.end(), std::int64_t{0});
  for (int call = 0; call < 20; ++call) ASSERT_EQ(parallel_sum(v), expected) << "call " << call;
  // The same from inside tasks: two sequential calls per task.
  std::atomic<int> wrong{0};
  heist::finish([&] {
    for (int t = 0; t < 8; ++t)
      heist::async([&] {
        for (int call = 0; call < 2; ++call)
          if (parallel_sum(v) != expected) wrong.fetch_add(1);
      });
  });
  EXPECT_EQ(wrong.load(), 0);
}

TEST_P(FinishAsync, RootScopeAsyncsRunBeforeRuntimeEnds) {
  // asyncs outside every finish belong to the root scope, which the Runtime
  // closes when it is destroyed: each must run exactly once by then.
  constexpr std::size_t half = 1000;
  auto count = make_counters(2 * half);
  {
    heist::Runtime rt(opts());
    for (std::size_t i = 0; i < half; ++i)
      heist::async([&count, i] {
        count[i].fetch_add(1);
        heist::async([&count, i] { count[i + half].fetch_add(1); });  // escaping, nested
      });
  }
  EXPECT_EQ(count_not_one(count), 0);
}

// ---------------------------------------------------------------- async_any

std::vector<std::atomic<int>>* g_any_counts = nullptr;

void any_node(std::uint32_t id, std::uint32_t n) {
  // Migratable: the lambda captures two integers only.
  heist::async_any([id, n] {
    (*g_any_counts)[id].fetch_add(1, std::memory_order_relaxed);
    if (2 * id + 1 < n) any_node(2 * id + 1, n);
    if (2 * id + 2 < n) any_node(2 * id + 2, n);
  });
}

TEST_P(FinishAsync, AsyncAnyRunsEachLambdaOnce) {
  heist::Runtime rt(opts());
  const auto n = static_cast<std::uint32_t>(scaled(30000, 100));
  auto counts = make_counters(n);
  g_any_counts = &counts;
  heist::finish([&] { any_node(0, n); });
  EXPECT_EQ(count_not_one(counts), 0);
  // Mixed with local closures in the same finish.
  auto counts2 = make_counters(n);
  g_any_counts = &counts2;
  std::atomic<int> local{0};
  heist::finish([&] {
    any_node(0, n);
    for (int i = 0; i < 100; ++i) heist::async([&local] { local.fetch_add(1); });
  });
  EXPECT_EQ(count_not_one(counts2), 0);
  EXPECT_EQ(local.load(), 100);
  g_any_counts = nullptr;
}

// ---------------------------------------------------------------- boxed closures

// Counts live copies, to check a boxed closure is destroyed exactly once.
struct Tracked {
  static inline std::atomic<long> live{0};
  Tracked() { live.fetch_add(1); }
  Tracked(const Tracked&) { live.fetch_add(1); }
  Tracked(Tracked&&) noexcept { live.fetch_add(1); }
  ~Tracked() { live.fetch_sub(1); }
};

TEST_P(FinishAsync, ClosuresTooBigForTheSlotAreBoxed) {
  heist::Runtime rt(opts());
  const int n = static_cast<int>(scaled(2000, 50));
  auto big_counts = make_counters(static_cast<std::size_t>(n));
  auto string_counts = make_counters(static_cast<std::size_t>(n));
  auto owned_counts = make_counters(static_cast<std::size_t>(n));
  std::atomic<int> corrupt{0};
  heist::finish([&] {
    for (int i = 0; i < n; ++i) {
      // 512 bytes, trivially copyable: larger than task_input_bytes.
      std::array<char, 512> payload;
      for (std::size_t b = 0; b < payload.size(); ++b) payload[b] = static_cast<char>((i + static_cast<int>(b)) & 0x7F);
      heist::async([payload, i, &big_counts, &corrupt] {
        for (std::size_t b = 0; b < payload.size(); ++b)
          if (payload[b] != static_cast<char>((i + static_cast<int>(b)) & 0x7F)) {
            corrupt.fetch_add(1);
            break;
          }
        big_counts[static_cast<std::size_t>(i)].fetch_add(1);
      });
      // Not trivially copyable: boxed whatever its size.
      std::string text = "task-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 50), '#');
      heist::async([text, i, &string_counts, &corrupt, tracked = Tracked()] {
        if (text != "task-" + std::to_string(i) + std::string(static_cast<std::size_t>(i % 50), '#'))
          corrupt.fetch_add(1);
        string_counts[static_cast<std::size_t>(i)].fetch_add(1);
      });
      // Move-only capture.
      heist::async([owned = std::make_unique<int>(i), i, &owned_counts, &corrupt] {
        if (*owned != i) corrupt.fetch_add(1);
        owned_counts[static_cast<std::size_t>(i)].fetch_add(1);
      });
    }
  });
  EXPECT_EQ(corrupt.load(), 0);
  EXPECT_EQ(count_not_one(big_counts), 0);
  EXPECT_EQ(count_not_one(string_counts), 0);
  EXPECT_EQ(count_not_one(owned_counts), 0);
  EXPECT_EQ(Tracked::live.load(), 0);  // every copy, boxed or not, destroyed once
}

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
                         [](const auto& info) {
                           return heist_test::param_name(std::get<0>(info.param), std::get<1>(info.param));
                         });
INSTANTIATE_TEST_SUITE_P(Continuations, FinishAsync, ::testing::ValuesIn(heist_test::kContinuationRuns),
                         [](const auto& info) {
                           return heist_test::param_name(std::get<0>(info.param), std::get<1>(info.param));
                         });

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
                         [](const auto& info) {
                           return heist_test::param_name(std::get<0>(info.param), std::get<1>(info.param));
                         });

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
                         [](const auto& info) {
                           return heist_test::param_name(std::get<0>(info.param), std::get<1>(info.param));
                         });

}  // namespace
