// Task bodies that take a heist::Context: their calls compute each child's
// nesting level from it instead of loading the worker's, and under inline
// and bounded with demand (one process, no continuations) their spawns of
// such bodies write nothing at all (the store-free path). Checked for 1..4
// workers and every spawn policy, with the store-free path and with
// --count-context-spawns on: results against the sequential code,
// exactly-once execution by task id, the level each body was given against
// the level the runtime holds for it (inline, queued, stolen, and after
// waits whose continuation moved; on the store-free path, which holds none,
// that it is not below the innermost frame), Context bodies and plain
// bodies spawning each other, closures, finish, handles, exceptions and
// fences through the Context, the statistics of each path, and a thief's
// request reaching a worker on the store-free path.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <limits>
#include <stdexcept>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::Context;
using heist::SpawnPolicy;

long fib_seq(int n) { return heist_test::fib_iterative(n); }

// Bodies count the times their Context disagreed with the runtime's level
// for the task running on this worker's stack now: where the runtime holds
// it (g_exact), equal; on the store-free path, which holds the level of a
// task below, at least the innermost frame's (levels grow along a stack:
// the close test after an inline child depends on it).
std::atomic<long> g_level_mismatches{0};
bool g_exact = true;
void check_level(Context c) {
  const heist::detail::WorkerCore* w = heist::detail::tls_worker;
  const bool wrong = g_exact ? c.level() != w->frame_level + w->above_frame : c.level() < w->frame_level;
  if (wrong) g_level_mismatches.fetch_add(1, std::memory_order_relaxed);
}

// ---------------------------------------------------------------- the body forms

long fib_body(Context c, int n);
const auto fib_task = heist::register_task<fib_body>("test_context.fib");
long fib_body(Context c, int n) {
  check_level(c);
  if (n < 2) return n;
  long a = -1, b = -1;
  heist::spawn(c, fib_task, n - 1, &a);
  heist::spawn(c, fib_task, n - 2, &b);
  heist::wait(c);
  check_level(c);  // after the wait: under work-first the rest of the body may run on another worker
  return a + b;
}

// Lace's shape: spawn one child, call the other (the same task, the same
// Context), wait.
long lace_body(Context c, const int& n);
const auto lace_task = heist::register_task<lace_body>("test_context.lace");
long lace_body(Context c, const int& n) {
  check_level(c);
  if (n < 2) return n;
  long a = -1;
  heist::spawn(c, lace_task, n - 1, &a);
  const long b = lace_body(c, n - 2);
  heist::wait(c);
  check_level(c);
  return a + b;
}

// The output-pointer form.
void out_body(Context c, const int& n, long* out);
const auto out_task = heist::register_task<out_body>("test_context.out");
void out_body(Context c, const int& n, long* out) {
  check_level(c);
  if (n < 2) {
    *out = n;
    return;
  }
  long a = -1, b = -1;
  heist::spawn(c, out_task, n - 1, &a);
  heist::spawn(c, out_task, n - 2, &b);
  heist::wait(c);
  *out = a + b;
}

// The form without a result, spawned joined and as escaping asyncs: a
// binary tree of ids, each run counted.
std::vector<std::atomic<int>>* g_runs = nullptr;
struct TreeIn {
  std::uint32_t id;
  std::uint32_t depth;
};
void tree_body(Context c, const TreeIn& in);
const auto tree_task = heist::register_task<tree_body>("test_context.tree");
void escaping_body(Context c, const TreeIn& in);
const auto escaping_task = heist::register_task<escaping_body>("test_context.escaping");
void tree_body(Context c, const TreeIn& in) {
  check_level(c);
  (*g_runs)[in.id].fetch_add(1, std::memory_order_relaxed);
  if (in.depth == 0) return;
  heist::spawn(c, tree_task, TreeIn{2 * in.id + 1, in.depth - 1});
  heist::spawn(c, tree_task, TreeIn{2 * in.id + 2, in.depth - 1});
  // no wait(): the implicit one at the end of the task
}
void escaping_body(Context c, const TreeIn& in) {
  check_level(c);
  (*g_runs)[in.id].fetch_add(1, std::memory_order_relaxed);
  if (in.depth == 0) return;
  heist::async(c, escaping_task, TreeIn{2 * in.id + 1, in.depth - 1});
  heist::async(c, escaping_task, TreeIn{2 * in.id + 2, in.depth - 1});
}

// A plain body (no Context) and a Context body that spawn each other, and
// a Context body's closures, finish scopes and handles: each through the
// Context. A plain body checks the level the runtime holds for it, which
// must be exact wherever it runs.
long plain_fib_body(int n);
const auto plain_fib_task = heist::register_task<plain_fib_body>("test_context.plain_fib");
long mixed_body(Context c, int n);
const auto mixed_task = heist::register_task<mixed_body>("test_context.mixed");
long plain_fib_body(int n) {
  check_level(heist::detail::context_here());
  if (n < 2) return n;
  long a = -1, b = -1;
  heist::spawn(mixed_task, n - 1, &a);  // a Context body spawned by the plain call
  heist::spawn(plain_fib_task, n - 2, &b);
  heist::wait();
  return a + b;
}
long mixed_body(Context c, int n) {
  check_level(c);
  if (n < 2) return n;
  long a = -1, b = -1, d = -1, e = -1, f = -1, g = -1;
  heist::spawn(c, plain_fib_task, n - 1, &a);  // a plain body spawned with the Context
  heist::spawn(c, mixed_task, n - 2, &b);
  heist::wait(c);
  check_level(c);
  if (n % 4 == 0) {
    // A closure (a task without a Context, its calls plain) and a finish
    // whose body spawns through the Context.
    heist::finish(c, [&] {
      heist::async(c, [&] {
        check_level(heist::detail::context_here());
        heist::spawn(plain_fib_task, n - 2, &d);
        heist::wait();
      });
      heist::spawn(c, mixed_task, n - 2, &e);
    });
    check_level(c);
    // A handle, spawned and waited for through the Context.
    const heist::TaskHandle h = heist::spawn_handle(c, mixed_task, n - 2, &f);
    heist::TaskHandle after = heist::spawn_after(c, {h}, plain_fib_task, n - 2, &g);
    heist::wait(c, after);
    if (d != b || e != b || f != b || g != b) return -1000000;  // the caller's check fails
  }
  check_level(c);
  return a + b;
}

long failing_value_body(Context c, int n);
const auto failing_task = heist::register_task<failing_value_body>("test_context.failing");
long failing_value_body(Context c, int n) {
  check_level(c);
  if (n == 0) throw std::runtime_error("failing Context task");
  long a = -1, b = -1;
  heist::spawn(c, fib_task, 10, &a);
  heist::spawn(c, failing_task, n - 1, &b);  // fails at the bottom of the chain
  heist::wait(c);
  return a + b;
}

// Workers, policy, and --count-context-spawns.
using ContextRun = std::tuple<int, SpawnPolicy, bool>;

// The store-free path may be taken: inline, or bounded with demand (the
// default), in one process without continuations, uncounted.
bool store_free(const heist::Options& o) {
  return !o.count_context_spawns && !heist::uses_continuations(o) &&
         (o.policy == SpawnPolicy::inline_child || (o.policy == SpawnPolicy::bounded && o.queue_demand));
}

// A Context body spawned by a plain call (and so run inline by the plain
// path, whose close test reads the stored level) that makes a frame and
// then a store-free child that makes and closes one of its own: the plain
// path must still see and close the first. Outputs go nowhere: neither body
// waits, so their children complete after the bodies' locals are gone.
void handle_leaf_body(Context c, const int& n);
const auto handle_leaf_task = heist::register_task<handle_leaf_body>("test_context.handle_leaf");
void handle_leaf_body(Context c, const int& n) {
  check_level(c);
  (void)heist::spawn_handle(c, fib_task, n);  // a frame at this level; the implicit wait at the end
}
void handle_parent_body(Context c, const int& n) {
  check_level(c);
  (void)heist::spawn_handle(c, fib_task, n);
  heist::spawn(c, handle_leaf_task, n);  // no wait(c) after it: nothing stores this body's level again
}
const auto handle_parent_task = heist::register_task<handle_parent_body>("test_context.handle_parent");

// A child run inline that throws unwinds its spawner: the spawner's queued
// children, whose outputs may point into its locals, must be done before
// those locals go. The guard, a local of the spawner, checks at its
// destruction during the unwinding that the queued child has run.
std::atomic<int> g_queued_done{0};
std::atomic<int> g_unwound_early{0};
struct ChildDoneWhenUnwound {
  ~ChildDoneWhenUnwound() {
    if (std::uncaught_exceptions() > 0 && g_queued_done.load() == 0) g_unwound_early.fetch_add(1);
  }
};
void marking_body(const int&) { g_queued_done.store(1); }
const auto marking_task = heist::register_task<marking_body>("test_context.marking");
void thrower_body(Context c, const int&) {
  check_level(c);
  throw std::runtime_error("a child run inline threw");
}
const auto thrower_task = heist::register_task<thrower_body>("test_context.thrower");
void plain_thrower_body(const int&) { throw std::runtime_error("a plain child run inline threw"); }
const auto plain_thrower_task = heist::register_task<plain_thrower_body>("test_context.plain_thrower");
void unwinding_spawner_body(Context c, const int&) {
  ChildDoneWhenUnwound guard;
  (void)heist::spawn_handle(c, marking_task, 0);  // always queued, joined to this body
  heist::spawn(c, thrower_task, 0);
  heist::wait(c);
}
const auto unwinding_spawner_task = heist::register_task<unwinding_spawner_body>("test_context.unwinding_spawner");
void plain_unwinding_spawner_body(const int&) {
  ChildDoneWhenUnwound guard;
  (void)heist::spawn_handle(marking_task, 0);
  heist::spawn(plain_thrower_task, 0);
  heist::wait();
}
const auto plain_unwinding_spawner_task =
    heist::register_task<plain_unwinding_spawner_body>("test_context.plain_unwinding_spawner");

class ContextTasks : public ::testing::TestWithParam<ContextRun> {
 protected:
  void SetUp() override {
    g_level_mismatches.store(0);
    g_exact = !store_free(opts());
  }
  void TearDown() override { EXPECT_EQ(g_level_mismatches.load(), 0) << "a body's Context disagreed with its level"; }
  int workers() const { return std::get<0>(GetParam()); }
  SpawnPolicy policy() const { return std::get<1>(GetParam()); }
  heist::Options opts() const {
    heist::Options o = heist_test::options(workers(), policy());
    o.count_context_spawns = std::get<2>(GetParam());
    return o;
  }
  int fib_n() const { return heist_test::scale_divisor() > 1 ? 18 : 23; }
};

struct ContextRunName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return heist_test::param_name(std::get<0>(info.param), std::get<1>(info.param)) +
           (std::get<2>(info.param) ? "_counted" : "");
  }
};

TEST_P(ContextTasks, ValueBodiesReturnTheirResults) {
  heist::Runtime rt(opts());
  const int n = fib_n();
  for (int rep = 0; rep < 2; ++rep) {
    long two = -1, lace = -1, out = -1;
    heist::spawn(fib_task, n, &two);  // Context bodies spawned by the plain call
    heist::spawn(lace_task, n, &lace);
    heist::spawn(out_task, n, &out);
    heist::wait();
    EXPECT_EQ(two, fib_seq(n));
    EXPECT_EQ(lace, fib_seq(n));
    EXPECT_EQ(out, fib_seq(n));
  }
  // Many roots at once, from inside a task that took a Context.
  long r[12];
  heist::finish([&] {
    heist::async([&] {
      for (int i = 0; i < 12; ++i) heist::spawn(lace_task, i + 5, &r[i]);
      heist::wait();
    });
  });
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r[i], fib_seq(i + 5)) << i;
}

TEST_P(ContextTasks, EveryTaskRunsExactlyOnce) {
  heist::Runtime rt(opts());
  const std::uint32_t depth = heist_test::scale_divisor() > 1 ? 10 : 14;
  std::vector<std::atomic<int>> runs((std::size_t{2} << depth) - 1);
  g_runs = &runs;
  for (const bool joined : {true, false}) {
    for (auto& r : runs) r.store(0);
    heist::finish([&] {
      if (joined) {
        heist::spawn(tree_task, TreeIn{0, depth});
      } else {
        heist::async(escaping_task, TreeIn{0, depth});
      }
    });
    std::size_t wrong = 0;
    for (auto& r : runs) wrong += r.load() != 1;
    EXPECT_EQ(wrong, 0u) << (joined ? "joined" : "escaping") << " tree: tasks not run exactly once";
  }
  g_runs = nullptr;
}

TEST_P(ContextTasks, ContextAndPlainBodiesMix) {
  heist::Runtime rt(opts());
  const int n = heist_test::scale_divisor() > 1 ? 14 : 18;
  long a = -1, b = -1;
  heist::spawn(mixed_task, n, &a);
  heist::spawn(plain_fib_task, n, &b);
  heist::wait();
  EXPECT_EQ(a, fib_seq(n));
  EXPECT_EQ(b, fib_seq(n));
}

TEST_P(ContextTasks, ExceptionReachesTheWaitAndLevelsRecover) {
  heist::Runtime rt(opts());
  long out = -1;
  EXPECT_THROW(
      {
        heist::spawn(failing_task, 12, &out);
        heist::wait();
      },
      std::runtime_error);
  heist::wait();
  // The levels the inline paths stored on the way out of the throw are the
  // ones the next tasks are checked against.
  long r = -1;
  heist::spawn(lace_task, fib_n(), &r);
  EXPECT_NO_THROW(heist::wait());
  EXPECT_EQ(r, fib_seq(fib_n()));
}

TEST_P(ContextTasks, AThrowingChildLeavesItsSpawnerOnlyOnceItsQueuedChildrenRan) {
  heist::Runtime rt(opts());
  g_unwound_early.store(0);
  for (const bool with_context : {true, false}) {
    for (int rep = 0; rep < 3; ++rep) {
      g_queued_done.store(0);
      EXPECT_THROW(
          {
            if (with_context) {
              heist::spawn(unwinding_spawner_task, 0);
            } else {
              heist::spawn(plain_unwinding_spawner_task, 0);
            }
            heist::wait();
          },
          std::runtime_error);
      heist::wait();
      EXPECT_EQ(g_queued_done.load(), 1);
    }
  }
  EXPECT_EQ(g_unwound_early.load(), 0) << "a spawner's locals went while its queued child had still to run";
}

TEST_P(ContextTasks, PlainSpawnClosesTheFrameOfAContextBody) {
  heist::Runtime rt(opts());
  for (int rep = 0; rep < 3; ++rep) {
    heist::spawn(handle_parent_task, 8);
    heist::wait();
    // Back at the root: no frame of the bodies left open, the level the root's.
    const heist::detail::WorkerCore* w = heist::detail::tls_worker;
    EXPECT_EQ(w->frame_level, 0) << rep;
    EXPECT_EQ(w->above_frame, 0) << rep;
  }
}

// fence() inside a Context body orders its spawns like the plain calls'.// fence() inside a Context body orders its spawns like the plain calls'.
std::atomic<std::int64_t> g_seq{0};
struct Stamp {
  std::atomic<std::int64_t> start{-1}, end{-1};
};
Stamp g_stamps[64];
void stamped_body(Context c, const int& i) {
  check_level(c);
  g_stamps[i].start.store(g_seq.fetch_add(1));
  if (i % 8 == 0) {  // some of them with children of their own
    long x = -1;
    heist::spawn(c, fib_task, 8, &x);
    heist::wait(c);
  }
  g_stamps[i].end.store(g_seq.fetch_add(1));
}
const auto stamped_task = heist::register_task<stamped_body>("test_context.stamped");
void fenced_body(Context c, const int& per) {
  for (int i = 0; i < per; ++i) heist::spawn(c, stamped_task, i);
  heist::fence(c);
  for (int i = per; i < 2 * per; ++i) heist::spawn(c, stamped_task, i);
  heist::wait(c);
}
const auto fenced_task = heist::register_task<fenced_body>("test_context.fenced");

TEST_P(ContextTasks, FenceOrdersContextSpawns) {
  heist::Runtime rt(opts());
  constexpr int per = 32;
  for (auto& s : g_stamps) s.start.store(-1), s.end.store(-1);
  heist::spawn(fenced_task, per);
  heist::wait();
  std::int64_t last_end = -1, first_start = std::numeric_limits<std::int64_t>::max();
  for (int i = 0; i < per; ++i) last_end = std::max(last_end, g_stamps[i].end.load());
  for (int i = per; i < 2 * per; ++i) first_start = std::min(first_start, g_stamps[i].start.load());
  for (int i = 0; i < 2 * per; ++i) EXPECT_GE(g_stamps[i].end.load(), 0) << i;
  EXPECT_LT(last_end, first_start) << "a task spawned after fence() started before one spawned before it ended";
}

// A thief's request reaches a worker whose Context bodies spawn on the
// store-free path, which tests only the limit: the request stores 0 there
// (WorkerCore::context_limit), the next spawn takes the slow path and
// queues, and the thief gets work. The slow path grants the limit only
// while no worker looks for work, so the first child stolen keeps its
// thief busy until the spawning loop sees a limit standing; from then on
// children spawned are counted where they run on the thief. Without the
// request's 0 the loop (whose body makes no frame unless a child is
// queued) would never reach the slow path again, the count would stop and
// the loop would run to its deadline. (A batch that ends before any limit
// stood releases the thief too: its wait would wait for the spinning child.)
std::atomic<int> g_home{-1};
std::atomic<int> g_stood_at{-1};  // the number of the first spawn made under a standing limit
std::atomic<bool> g_batch_over{false};
std::atomic<long> g_ran_elsewhere{0};
constexpr long kWantedElsewhere = 64;
std::chrono::steady_clock::time_point g_deadline;
void elsewhere_body(Context, const int& number) {
  if (heist::worker_id() == g_home.load(std::memory_order_relaxed)) return;
  while (g_stood_at.load(std::memory_order_relaxed) < 0 && !g_batch_over.load(std::memory_order_relaxed) &&
         std::chrono::steady_clock::now() < g_deadline) {
  }
  const int stood_at = g_stood_at.load(std::memory_order_relaxed);
  if (stood_at >= 0 && number >= stood_at) g_ran_elsewhere.fetch_add(1, std::memory_order_relaxed);
}
const auto elsewhere_task = heist::register_task<elsewhere_body>("test_context.elsewhere");
void asking_loop_body(Context c, const int&) {
  g_home.store(heist::worker_id(), std::memory_order_relaxed);
  for (int number = 0; g_ran_elsewhere.load(std::memory_order_relaxed) < kWantedElsewhere &&
                       std::chrono::steady_clock::now() < g_deadline;) {
    g_batch_over.store(false, std::memory_order_relaxed);
    for (int i = 0; i < 1024; ++i, ++number) {
      if (g_stood_at.load(std::memory_order_relaxed) < 0 &&
          heist::detail::tls_worker->context_limit.load(std::memory_order_relaxed) > c.level())
        g_stood_at.store(number, std::memory_order_relaxed);
      heist::spawn(c, elsewhere_task, number);
    }
    g_batch_over.store(true, std::memory_order_relaxed);
    heist::wait(c);
  }
}
const auto asking_loop_task = heist::register_task<asking_loop_body>("test_context.asking_loop");

// Two workers, bounded with demand (which queues for a thief that asks;
// inline never does).
TEST(ContextRequests, AThiefsRequestReachesTheStoreFreePath) {
  heist::Options o = heist_test::options(2, SpawnPolicy::bounded);
  o.count_context_spawns = false;
  ASSERT_TRUE(store_free(o));
  heist::Runtime rt(o);
  g_ran_elsewhere.store(0);
  g_stood_at.store(-1);
  g_deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  heist::spawn(asking_loop_task, 0);
  heist::wait();
  EXPECT_GE(g_stood_at.load(), 0) << "no limit of the store-free path stood";
  EXPECT_GE(g_ran_elsewhere.load(), kWantedElsewhere) << "thieves' requests did not reach the store-free path";
}

// Lace's shape counted: every call of fib is a task (a spawn or the call
// of the same body), so with --count-context-spawns on the statistics
// count each spawn, and on the store-free path they miss most of them,
// and say so.
TEST_P(ContextTasks, StatisticsSayWhatTheyCount) {
  heist::Runtime rt(opts());
  const int n = fib_n();
  rt.reset_stats();
  long r = -1;
  heist::finish([&] { heist::spawn(lace_task, n, &r); });
  ASSERT_EQ(r, fib_seq(n));
  const heist::WorkerStats total = rt.stats().total();
  // Spawns of a run of lace(n), its own included: lace(n) spawns lace(n-1)
  // and calls lace(n-2), so spawns(n) = spawns(n-1) + spawns(n-2) from n = 2 on.
  std::uint64_t spawns[64] = {1, 1};
  for (int i = 2; i <= n; ++i) spawns[i] = spawns[i - 1] + spawns[i - 2];
  const std::uint64_t all = spawns[n];
  if (store_free(opts()) && workers() == 1) {
    // One worker: nothing is queued after the first grant, every spawn
    // below it takes the store-free path.
    EXPECT_GT(total.uncounted_grants, 0u);
    EXPECT_LT(total.tasks_created, all / 100);
  } else if (!store_free(opts())) {
    EXPECT_EQ(total.uncounted_grants, 0u);
    EXPECT_EQ(total.tasks_created, all);
  }
  if (total.uncounted_grants == 0) {
    EXPECT_EQ(total.tasks_created, all);
  }
}

std::vector<ContextRun> context_runs() {
  std::vector<ContextRun> runs;
  for (const int w : {1, 2, 3, 4}) {
    for (const SpawnPolicy p : heist_test::kStackPolicies) runs.emplace_back(w, p, false);
    // The store-free path's policies again, counted (the level held exact).
    runs.emplace_back(w, SpawnPolicy::inline_child, true);
    runs.emplace_back(w, SpawnPolicy::bounded, true);
  }
  for (const auto& [w, p] : heist_test::kContinuationRuns) runs.emplace_back(w, p, false);
  return runs;
}
INSTANTIATE_TEST_SUITE_P(Policies, ContextTasks, ::testing::ValuesIn(context_runs()), ContextRunName());

}  // namespace
