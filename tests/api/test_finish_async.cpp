// finish/async through the public API (heist.hpp), for 1..4 workers and every
// spawn policy: nested finish scopes with escaping asyncs, finish at many
// levels, worker identity, sequential calls of functions that spawn, asyncs of
// the root scope, async_any and closures too big for the slot (boxed). Every
// test counts executions per id and compares with the sequential answer; none
// measures time. Exceptions and the deep cases: test_finish_async_deep.cpp.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "finish_async.hpp"
#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using namespace finish_async_test;
using heist_test::scaled;

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

TEST_P(FinishAsync, AsyncsSpawnedAfterAWaitStillHoldTheFinish) {
  // An async run by a worker that does not own its finish runs under that
  // worker's proxy of the finish (sched/proxy_scope.hpp). A wait inside it
  // (here a nested finish) lets the worker run out of tasks and seal the
  // proxy; asyncs the task spawns after the wait register with the sealed
  // proxy and must still keep the outer finish open until they have run.
  heist::Runtime rt(opts());
  const std::size_t n = scaled(200, 20);
  auto before = make_counters(n);
  auto inner = make_counters(n);
  auto after = make_counters(n);
  const auto spin = [] {
    volatile unsigned sink = 0;
    for (unsigned k = 0; k < 20000; ++k) sink = sink + k;
  };
  for (int rep = 0; rep < 3; ++rep) {
    heist::finish([&] {
      for (std::size_t i = 0; i < n; ++i)
        heist::async([&, i] {
          heist::async([&before, i] { before[i].fetch_add(1, std::memory_order_relaxed); });
          heist::finish([&, i] {  // thieves take some of these while this task waits
            for (int k = 0; k < 8; ++k)
              heist::async([&, i] {
                spin();
                inner[i].fetch_add(1, std::memory_order_relaxed);
              });
          });
          heist::async([&, i] {
            spin();
            after[i].fetch_add(1, std::memory_order_relaxed);
          });
        });
    });
    // Every async, the ones spawned after the nested finish included, ran
    // exactly once before the outer finish returned.
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_EQ(before[i].exchange(0), 1) << "before " << i << ", round " << rep;
      ASSERT_EQ(inner[i].exchange(0), 8) << "inner " << i << ", round " << rep;
      ASSERT_EQ(after[i].exchange(0), 1) << "after " << i << ", round " << rep;
    }
  }
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

INSTANTIATE_TEST_SUITE_P(Policies, FinishAsync,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::ValuesIn(heist_test::kStackPolicies)),
                         instance_name);
INSTANTIATE_TEST_SUITE_P(Continuations, FinishAsync, ::testing::ValuesIn(heist_test::kContinuationRuns), instance_name);

}  // namespace
