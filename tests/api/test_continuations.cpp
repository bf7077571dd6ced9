// Continuation stealing (work-first, adaptive; docs/design/continuations.md)
// through the public API:
//  * a continuation is stolen while the child still runs: the child waits
//    for a flag only the parent's continuation sets, so the test can only
//    finish if another worker ran the continuation meanwhile — and the
//    continuation then runs on that worker's thread, which heist::worker_id()
//    and the thread itself agree on;
//  * every finish's continuation runs exactly once, with nested finishes,
//    escaping asyncs and spawn/wait mixed, for exposure at every spawn
//    (Cilk-style), at shallow ones (the default) or only on request, and
//    with so few fibers that most exposures and suspensions fall back;
//  * deep recursion: a chain of children tens of thousands deep, and one
//    deeper than the fiber stack, which fails with an error (work-first) or
//    falls back to help-first (adaptive);
//  * per-finish policies, and the error when a run has no continuations;
//  * a handle wait behind a context parked pinned on the same worker.
#include <gtest/gtest.h>

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::SpawnPolicy;
using heist_test::scaled;

heist::Options wf_options(int workers, SpawnPolicy policy = SpawnPolicy::work_first) {
  heist::Options o = heist_test::options(workers, policy);
  return o;
}

// ---------------------------------------------------------------- stolen while the child runs

struct Rendezvous {
  std::atomic<bool> continuation_ran{false};
  std::atomic<bool> child_gave_up{false};
  int child_worker = -1;
  int parent_before = -1, parent_after = -1;
  pthread_t child_thread{}, parent_thread_after{};
};

Rendezvous* g_rv = nullptr;

void waiting_child(const int&) {
  g_rv->child_worker = heist::worker_id();
  g_rv->child_thread = pthread_self();
  // Only the parent's continuation sets the flag: it must run elsewhere
  // while this child runs. (The deadline only turns a hang into a failure.)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!g_rv->continuation_ran.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() > deadline) {
      g_rv->child_gave_up.store(true);
      return;
    }
    std::this_thread::yield();
  }
}
const auto waiting_child_task = heist::register_task<waiting_child>("test_continuations.waiting_child");

void parent(const int&) {
  g_rv->parent_before = heist::worker_id();
  heist::spawn(waiting_child_task, 0);  // work-first: the child runs first; this continuation is exposed
  g_rv->parent_after = heist::worker_id();
  g_rv->parent_thread_after = pthread_self();
  g_rv->continuation_ran.store(true, std::memory_order_release);
  heist::wait();
}
const auto parent_task = heist::register_task<parent>("test_continuations.parent");

TEST(Continuations, StolenWhileTheChildStillRuns) {
  for (int workers : {2, 4}) {
    Rendezvous rv;
    g_rv = &rv;
    heist::Runtime rt(wf_options(workers));
    heist::finish([] { heist::async(parent_task, 0); });
    ASSERT_FALSE(rv.child_gave_up.load()) << "the continuation never ran while the child waited";
    EXPECT_NE(rv.parent_after, rv.child_worker);  // another worker resumed the parent ...
    EXPECT_FALSE(pthread_equal(rv.parent_thread_after, rv.child_thread));  // ... on its own thread
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_GE(t.continuations_exposed, 1u);
    EXPECT_GE(t.continuations_stolen, 1u);
    EXPECT_EQ(t.tasks_executed, 2u);
  }
}

// ---------------------------------------------------------------- a waiter above a pinned one

// A handle wait helps in place (it does not suspend); when a help loop
// meets a continuation it resumes it and waits pinned to the worker. Here
// the resumed parent then waits, in place, for a task on the pinned stack:
// the worker must hand itself back to the pinned context once what that
// waits for is done. The order is forced (the other worker is kept busy by
// the outer task's stolen continuation; help loops pop the newest slot):
//   parent: queue Q; spawn A (work-first: A runs, the parent's continuation
//           K is exposed above Q)
//   A:      queue S; wait(S) -> runs S in place
//   S:      wait(Q) -> pops K, resumes the parent; A's stack waits pinned
//   parent: wait(S) -> runs Q; S can finish only on the pinned stack.
// (Found by the MPI soak, which hung here.)
struct PinnedWaiter {
  heist::TaskHandle q, s;
  std::atomic<bool> other_busy{false};
  std::atomic<int> q_runs{0}, s_runs{0}, a_runs{0}, parent_runs{0};
  std::atomic<bool> outer_gave_up{false};
};
PinnedWaiter* g_pw = nullptr;

void pinned_q(const int&) { g_pw->q_runs.fetch_add(1); }
const auto pinned_q_task = heist::register_task<pinned_q>("test_continuations.pinned_q");

void pinned_s(const int&) {
  heist::wait(g_pw->q);  // help loop: pops the parent's continuation first and resumes it
  g_pw->s_runs.fetch_add(1);
}
const auto pinned_s_task = heist::register_task<pinned_s>("test_continuations.pinned_s");

void pinned_a(const int&) {
  g_pw->s = heist::spawn_handle(pinned_s_task, 0);
  heist::wait(g_pw->s);  // runs S in place
  g_pw->a_runs.fetch_add(1);
}
const auto pinned_a_task = heist::register_task<pinned_a>("test_continuations.pinned_a");

void pinned_parent(const int&) {
  while (!g_pw->other_busy.load(std::memory_order_acquire)) std::this_thread::yield();
  g_pw->q = heist::spawn_handle(pinned_q_task, 0);  // a handle's task is always queued
  heist::spawn(pinned_a_task, 0);                    // work-first: A runs first, this continuation is exposed
  heist::wait(g_pw->s);                              // S is on A's stack, pinned below us
  g_pw->parent_runs.fetch_add(1);
}
const auto pinned_parent_task = heist::register_task<pinned_parent>("test_continuations.pinned_parent");

void outer(const int&) {
  heist::spawn(pinned_parent_task, 0);  // runs here first; this continuation goes to the other worker
  g_pw->other_busy.store(true, std::memory_order_release);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (g_pw->parent_runs.load() == 0) {  // keep this worker out of the way meanwhile
    if (std::chrono::steady_clock::now() > deadline) {
      g_pw->outer_gave_up.store(true);
      break;
    }
    std::this_thread::yield();
  }
  heist::wait();
}
const auto outer_task = heist::register_task<outer>("test_continuations.outer");

TEST(Continuations, WaiterAbovePinnedStackLetsItFinish) {
  heist::Options o = wf_options(2);
  o.expose_depth = 1 << 20;
  heist::Runtime rt(o);
  constexpr int kRounds = 20;
  for (int round = 0; round < kRounds; ++round) {
    PinnedWaiter pw;
    g_pw = &pw;
    heist::finish([] { heist::async(outer_task, 0); });  // before the fix: a hang here
    EXPECT_FALSE(pw.outer_gave_up.load());
    EXPECT_EQ(pw.q_runs.load(), 1);
    EXPECT_EQ(pw.s_runs.load(), 1);
    EXPECT_EQ(pw.a_runs.load(), 1);
    EXPECT_EQ(pw.parent_runs.load(), 1);
    g_pw = nullptr;
  }
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_executed, 5u * kRounds);
  EXPECT_GE(t.continuations_exposed, 2u * kRounds);  // the outer task's and the parent's, each round
  EXPECT_GE(t.continuations_stolen, 1u * kRounds);   // the outer one, by the other worker
}

// ---------------------------------------------------------------- exactly once

// A tree of nested finishes: every node opens a finish with `fanout`
// escaping asyncs (one of which spawns/waits a joined pair), and counts
// how often the code after its finish runs. Ids are preorder positions.
struct FinishTree {
  int depth;
  int fanout;
  std::vector<std::atomic<int>> after_finish;
  std::vector<std::atomic<int>> bodies;
  std::atomic<std::uint64_t> joined{0};
  explicit FinishTree(int d, int f) : depth(d), fanout(f), after_finish(size(d, f)), bodies(size(d, f)) {}

  static std::size_t size(int d, int f) {
    std::size_t n = 1, level = 1;
    for (int i = 0; i < d; ++i) n += (level *= static_cast<std::size_t>(f));
    return n;
  }
  std::size_t subtree(int d) const { return size(d, fanout); }

  void node(std::size_t id, int d) {
    bodies[id].fetch_add(1, std::memory_order_relaxed);
    if (d == 0) return;
    heist::finish([&] {
      std::size_t child = id + 1;
      for (int k = 0; k < fanout; ++k, child += subtree(d - 1))
        heist::async([this, child, d] { node(child, d - 1); });
    });
    // Every child's subtree is complete here, exactly once.
    for (std::size_t c = id + 1; c < id + subtree(d); ++c)
      if (bodies[c].load(std::memory_order_relaxed) != 1) after_finish[id].fetch_add(1000);
    after_finish[id].fetch_add(1, std::memory_order_relaxed);
  }
};

void expect_exactly_once(int workers, SpawnPolicy policy, int expose_depth, int max_fibers,
                         heist::SuspendWaits suspend = heist::SuspendWaits::automatic) {
  heist::Options o = wf_options(workers, policy);
  o.expose_depth = expose_depth;
  o.max_fibers = max_fibers;
  o.suspend_waits = suspend;
  FinishTree tree(heist_test::scale_divisor() > 1 ? 4 : 5, 5);
  heist::Runtime rt(o);
  for (int rep = 0; rep < 2; ++rep) {
    for (auto& c : tree.after_finish) c.store(0);
    for (auto& c : tree.bodies) c.store(0);
    heist::finish([&] { heist::async([&] { tree.node(0, tree.depth); }); });
    std::size_t leaves = 0;
    for (std::size_t i = 0; i < tree.bodies.size(); ++i) {
      ASSERT_EQ(tree.bodies[i].load(), 1) << "task " << i;
      const bool leaf = tree.after_finish[i].load() == 0;
      if (leaf) {
        ++leaves;
      } else {
        ASSERT_EQ(tree.after_finish[i].load(), 1) << "finish continuation of node " << i;
      }
    }
    EXPECT_EQ(leaves, tree.depth == 5 ? 3125u : 625u);  // 5^depth: only they open no finish
  }
}

// One test per policy and exposure regime, 1 to 4 workers inside it.
class ExactlyOnce : public ::testing::TestWithParam<SpawnPolicy> {
 protected:
  void run(int expose_depth, int max_fibers) {
    for (int workers = 1; workers <= 4; ++workers) {
      SCOPED_TRACE(std::to_string(workers) + " workers");
      expect_exactly_once(workers, GetParam(), expose_depth, max_fibers);
    }
  }
};

TEST_P(ExactlyOnce, ExposureEverywhere) { run(1 << 20, 1024); }  // Cilk-style: every spawn's continuation is stealable
TEST_P(ExactlyOnce, ExposureAtShallowSpawns) { run(heist::Options{}.expose_depth, 1024); }
TEST_P(ExactlyOnce, ExposureOnlyOnRequest) { run(0, 1024); }
TEST_P(ExactlyOnce, FewFibersMostExposuresAndSuspensionsFallBack) { run(1 << 20, 3); }

INSTANTIATE_TEST_SUITE_P(Continuations, ExactlyOnce,
                         ::testing::Values(SpawnPolicy::work_first, SpawnPolicy::adaptive),
                         [](const auto& info) {
                           std::string name = heist::to_string(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// spawn/wait under eager exposure: every wait may suspend, every
// continuation may move; the sums must still be exact.
void sum_body(const int& n, std::uint64_t* out);
const auto sum_task = heist::register_task<sum_body>("test_continuations.sum");
void sum_body(const int& n, std::uint64_t* out) {
  if (n < 2) {
    *out = static_cast<std::uint64_t>(n);
    return;
  }
  std::uint64_t a = 0, b = 0;
  heist::spawn(sum_task, n - 1, &a);
  heist::spawn(sum_task, n - 2, &b);
  heist::wait();
  *out = a + b;
}

TEST(Continuations, SpawnWaitWithEveryContinuationExposed) {
  for (int workers : {1, 2, 4}) {
    heist::Options o = wf_options(workers);
    o.expose_depth = 1 << 20;
    heist::Runtime rt(o);
    std::uint64_t r = 0;
    const bool sanitized = heist_test::scale_divisor() > 1;  // fiber switches are slow under TSan
    const int n = sanitized ? 15 : 20;
    heist::spawn(sum_task, n, &r);
    heist::wait();
    EXPECT_EQ(r, sanitized ? 610u : 6765u);
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_EQ(t.tasks_executed, sanitized ? 2u * 987u - 1u : 2u * 10946u - 1u);
    if (workers > 1) {
      EXPECT_GT(t.continuations_exposed, 100u);
    }
  }
}

// ---------------------------------------------------------------- --suspend-waits on

// Under every policy a wait whose tasks run elsewhere suspends its fiber
// (Worker::await_by_suspending: its own deque's tasks first) and resumes
// once they completed, maybe on another worker: finish trees run every
// task and every continuation once, spawn/wait sums are exact — with
// fibers to spare and with so few that most suspensions fall back to
// helping.
class SuspendingWaits : public ::testing::TestWithParam<SpawnPolicy> {};

TEST_P(SuspendingWaits, EveryTaskAndContinuationOnce) {
  for (int max_fibers : {1024, 3})
    for (int workers = 1; workers <= 4; ++workers) {
      SCOPED_TRACE(std::to_string(workers) + " workers, " + std::to_string(max_fibers) + " fibers");
      expect_exactly_once(workers, GetParam(), heist::Options{}.expose_depth, max_fibers, heist::SuspendWaits::on);
    }
}

TEST_P(SuspendingWaits, SpawnWaitSumsAreExact) {
  const bool sanitized = heist_test::scale_divisor() > 1;
  const int n = sanitized ? 15 : 20;
  for (int workers : {1, 2, 4}) {
    heist::Options o = heist_test::options(workers, GetParam());
    o.suspend_waits = heist::SuspendWaits::on;
    heist::Runtime rt(o);
    for (int rep = 0; rep < 3; ++rep) {
      std::uint64_t r = 0;
      heist::spawn(sum_task, n, &r);
      heist::wait();
      EXPECT_EQ(r, sanitized ? 610u : 6765u) << workers << " workers";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Continuations, SuspendingWaits,
                         ::testing::Values(SpawnPolicy::help_first, SpawnPolicy::bounded, SpawnPolicy::slaw),
                         [](const auto& info) {
                           std::string name = heist::to_string(info.param);
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// A help-first task queues children that take a while; idle workers steal
// some, so once its wait has run the rest of its own deque, children still
// run elsewhere: with --suspend-waits on the wait suspends (and resumes),
// with auto (help-first helps) it never does.
void slow_child(const int& ms, std::uint64_t* out) {
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  *out = 1;
}
const auto slow_child_task = heist::register_task<slow_child>("test_continuations.slow_child");
void slow_parent(const int& children, std::uint64_t* out) {
  std::uint64_t done[16] = {};
  for (int i = 0; i < children; ++i) heist::spawn(slow_child_task, 3, &done[i]);
  heist::wait();
  std::uint64_t sum = 0;
  for (int i = 0; i < children; ++i) sum += done[i];
  *out = sum;
}
const auto slow_parent_task = heist::register_task<slow_parent>("test_continuations.slow_parent");

std::uint64_t suspensions_of(heist::SuspendWaits mode, int reps) {
  heist::Options o = heist_test::options(4, SpawnPolicy::help_first);
  o.suspend_waits = mode;
  heist::Runtime rt(o);
  std::uint64_t suspensions = 0;
  // Each repetition suspends unless no thief got a child in time (on a
  // loaded machine, possibly a few times in a row): stop at the first.
  for (int rep = 0; rep < reps && suspensions == 0; ++rep) {
    std::uint64_t sum = 0;
    heist::spawn(slow_parent_task, 16, &sum);
    heist::wait();
    EXPECT_EQ(sum, 16u);
    suspensions = rt.stats().total().suspensions;
  }
  return suspensions;
}

TEST(Continuations, WaitsSuspendWhileTheirChildrenRunElsewhere) {
  EXPECT_GT(suspensions_of(heist::SuspendWaits::on, 20), 0u);
  EXPECT_EQ(suspensions_of(heist::SuspendWaits::automatic, 3), 0u);
}

// ---------------------------------------------------------------- deep recursion

// A chain: each link's only child is the next link (a recursion as deep as
// the chain under work-first, which runs the child first).
struct DeepChain {
  std::uint64_t n;
  std::atomic<std::uint64_t> links{0};
  void link(std::uint64_t i) {
    links.fetch_add(1, std::memory_order_relaxed);
    volatile char frame[64];  // a little stack per level, as real code has
    frame[0] = static_cast<char>(i);
    if (i + 1 < n) heist::async([this, i] { link(i + 1); });
    frame[1] = frame[0];
  }
};

TEST(Continuations, DeepRecursionOnFiberStacks) {
  for (int workers : {1, 2, 4}) {
    heist::Options o = wf_options(workers);
    o.fiber_stack_bytes = std::size_t{64} << 20;
    heist::Runtime rt(o);
    DeepChain chain{scaled(50000, 5000)};
    heist::finish([&] { heist::async([&chain] { chain.link(0); }); });
    EXPECT_EQ(chain.links.load(), chain.n);
  }
}

TEST(Continuations, RecursionDeeperThanTheFiberStackFailsWithAnError) {
  heist::Options o = wf_options(1);  // one worker: no thief moves the chain onto fresh fibers, so it must overflow
  o.fiber_stack_bytes = std::size_t{1} << 20;
  heist::Runtime rt(o);
  DeepChain chain{1000000};
  try {
    heist::finish([&] { heist::async([&chain] { chain.link(0); }); });
    FAIL() << "a million nested children fit a 1 MiB stack?";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("ran out of stack"), std::string::npos) << e.what();
  }
  EXPECT_LT(chain.links.load(), chain.n);
  // The runtime is still usable.
  DeepChain small{100};
  heist::finish([&] { heist::async([&small] { small.link(0); }); });
  EXPECT_EQ(small.links.load(), 100u);
}

TEST(Continuations, AdaptiveFallsBackToHelpFirstOnDeepRecursion) {
  heist::Options o = wf_options(2, SpawnPolicy::adaptive);
  o.fiber_stack_bytes = std::size_t{1} << 20;
  heist::Runtime rt(o);
  DeepChain chain{scaled(200000, 20000)};
  heist::finish([&] { heist::async([&chain] { chain.link(0); }); });
  EXPECT_EQ(chain.links.load(), chain.n);
}

// ---------------------------------------------------------------- per-finish policies

std::atomic<std::uint64_t> g_leaves{0};
void tree(int depth) {
  if (depth == 0) {
    g_leaves.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  heist::async([depth] { tree(depth - 1); });
  heist::async([depth] { tree(depth - 1); });
}

TEST(Continuations, FinishScopesChooseTheirPolicy) {
  heist::Options o = heist_test::options(2, SpawnPolicy::help_first);
  o.continuations = heist::ContinuationMode::on;
  o.expose_depth = 1 << 20;
  heist::Runtime rt(o);
  // Help-first run: no continuation is exposed.
  g_leaves = 0;
  heist::finish([] { heist::async([] { tree(10); }); });
  EXPECT_EQ(g_leaves.load(), 1024u);
  heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.continuations_exposed, 0u);
  EXPECT_EQ(t.tasks_inlined, 0u);
  // A work-first scope inside a task: its spawns run first.
  rt.reset_stats();
  g_leaves = 0;
  heist::finish([] {
    heist::async([] { heist::finish(SpawnPolicy::work_first, [] { tree(10); }); });
  });
  EXPECT_EQ(g_leaves.load(), 1024u);
  t = rt.stats().total();
  EXPECT_EQ(t.tasks_inlined + t.continuations_exposed, t.tasks_created - 1);  // all but the outer async
  // And a help-first scope inside a work-first one queues again.
  rt.reset_stats();
  g_leaves = 0;
  heist::finish([] {
    heist::async([] {
      heist::finish(SpawnPolicy::work_first, [] { heist::finish(SpawnPolicy::help_first, [] { tree(10); }); });
    });
  });
  EXPECT_EQ(g_leaves.load(), 1024u);
  t = rt.stats().total();
  EXPECT_EQ(t.tasks_inlined, 0u);
  EXPECT_EQ(t.continuations_exposed, 0u);
}

TEST(Continuations, WorkFirstScopeNeedsContinuations) {
  heist::Runtime rt(heist_test::options(2, SpawnPolicy::bounded));
  EXPECT_THROW(heist::finish(SpawnPolicy::work_first, [] {}), std::logic_error);
  EXPECT_THROW(heist::finish(SpawnPolicy::adaptive, [] {}), std::logic_error);
  g_leaves = 0;
  heist::finish(SpawnPolicy::help_first, [] { tree(4); });  // other policies are fine
  EXPECT_EQ(g_leaves.load(), 16u);
}

}  // namespace
