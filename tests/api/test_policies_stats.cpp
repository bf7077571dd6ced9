// RunStats counters against exact task counts for every spawn policy, the
// policies' observable contracts (inline inlines everything, help-first
// nothing, bounded keeps its queue at the bound), option parsing and
// validation (Options, from_env), and the API's misuse errors.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <utility>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::OptionError;
using heist::SpawnPolicy;

// ---------------------------------------------------------------- tasks

// A complete binary tree of spawns: depth d makes 2^(d+1) - 1 tasks in all
// (the root spawn included). Counts the nodes it visits.
std::atomic<std::uint64_t> g_tree_nodes{0};
void tree_body(const int& depth);
const auto tree_task = heist::register_task<tree_body>("test_policies_stats.tree");
void tree_body(const int& depth) {
  g_tree_nodes.fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) return;
  heist::spawn(tree_task, depth - 1);
  heist::spawn(tree_task, depth - 1);
  heist::wait();
}
std::uint64_t tree_tasks(int depth) { return (std::uint64_t{1} << (depth + 1)) - 1; }

// The same tree with escaping asyncs in a finish.
void async_tree(std::atomic<std::uint64_t>& nodes, int depth) {
  nodes.fetch_add(1, std::memory_order_relaxed);
  if (depth == 0) return;
  heist::async([&nodes, depth] { async_tree(nodes, depth - 1); });
  heist::async([&nodes, depth] { async_tree(nodes, depth - 1); });
}

// A task whose input is larger than the smallest slot (32 bytes) and fits
// the default one (80).
struct Wide {
  char bytes[64];
};
void wide_body(const Wide& w, int* out) { *out = w.bytes[0] + w.bytes[63]; }
const auto wide_task = heist::register_task<wide_body>("test_policies_stats.wide");

// ---------------------------------------------------------------- stats per policy

class PolicyStats : public ::testing::TestWithParam<heist_test::WorkersPolicy> {
 protected:
  int workers() const { return std::get<0>(GetParam()); }
  SpawnPolicy policy() const { return std::get<1>(GetParam()); }
};

void expect_total_is_sum(const heist::RunStats& s) {
  const heist::WorkerStats t = s.total();
  heist::WorkerStats sum;
  for (const auto& w : s.workers) {
    sum.tasks_created += w.tasks_created;
    sum.tasks_inlined += w.tasks_inlined;
    sum.tasks_executed += w.tasks_executed;
    sum.tasks_stolen += w.tasks_stolen;
    sum.steals += w.steals;
    sum.steal_attempts += w.steal_attempts;
    sum.failed_steals += w.failed_steals;
    sum.releases += w.releases;
    sum.acquires += w.acquires;
    sum.max_queue = std::max(sum.max_queue, w.max_queue);
    EXPECT_EQ(w.steals + w.failed_steals, w.steal_attempts);
    EXPECT_LE(w.tasks_inlined, w.tasks_created);
    EXPECT_GE(w.tasks_stolen, w.steals);  // each successful steal takes >= 1 task
  }
  EXPECT_EQ(t.tasks_created, sum.tasks_created);
  EXPECT_EQ(t.tasks_inlined, sum.tasks_inlined);
  EXPECT_EQ(t.tasks_executed, sum.tasks_executed);
  EXPECT_EQ(t.tasks_stolen, sum.tasks_stolen);
  EXPECT_EQ(t.steals, sum.steals);
  EXPECT_EQ(t.steal_attempts, sum.steal_attempts);
  EXPECT_EQ(t.failed_steals, sum.failed_steals);
  EXPECT_EQ(t.releases, sum.releases);
  EXPECT_EQ(t.acquires, sum.acquires);
  EXPECT_EQ(t.max_queue, sum.max_queue);
}

void expect_policy_contract(SpawnPolicy policy, const heist::WorkerStats& t) {
  switch (policy) {
    case SpawnPolicy::inline_child: EXPECT_EQ(t.tasks_inlined, t.tasks_created); break;
    case SpawnPolicy::help_first: EXPECT_EQ(t.tasks_inlined, 0u); break;  // the deque never reaches its maximum here
    case SpawnPolicy::bounded: EXPECT_LE(t.max_queue, 40u); break;
    case SpawnPolicy::slaw: break;
    case SpawnPolicy::work_first:
      // The root task comes from the runtime's thread, which never moves, so
      // it is queued; every other child ran first, inline or on a fresh
      // fiber with its parent's continuation exposed.
      EXPECT_EQ(t.tasks_inlined + t.continuations_exposed + 1, t.tasks_created);
      break;
    case SpawnPolicy::adaptive: EXPECT_LE(t.tasks_inlined + t.continuations_exposed, t.tasks_created); break;
  }
}

TEST_P(PolicyStats, SpawnTreeCountsAreExact) {
  heist::Runtime rt(heist_test::options(workers(), policy()));
  const int depth = 12;
  const std::uint64_t n = tree_tasks(depth);
  for (int rep = 0; rep < 2; ++rep) {
    rt.reset_stats();
    g_tree_nodes = 0;
    heist::spawn(tree_task, depth);
    heist::wait();
    ASSERT_EQ(g_tree_nodes.load(), n);
    const heist::RunStats s = rt.stats();
    ASSERT_EQ(s.workers.size(), static_cast<std::size_t>(workers()));
    const heist::WorkerStats t = s.total();
    EXPECT_EQ(t.tasks_created, n);
    EXPECT_EQ(t.tasks_executed, n);
    expect_total_is_sum(s);
    expect_policy_contract(policy(), t);
    if (workers() == 1) {
      EXPECT_EQ(t.steal_attempts, 0u);
      EXPECT_EQ(t.tasks_stolen, 0u);
    }
  }
}

TEST_P(PolicyStats, AsyncTreeCountsAreExact) {
  heist::Runtime rt(heist_test::options(workers(), policy()));
  const int depth = 12;
  std::atomic<std::uint64_t> nodes{0};
  heist::finish([&] { heist::async([&nodes] { async_tree(nodes, depth); }); });
  ASSERT_EQ(nodes.load(), tree_tasks(depth));
  const heist::RunStats s = rt.stats();
  const heist::WorkerStats t = s.total();
  EXPECT_EQ(t.tasks_created, tree_tasks(depth));
  EXPECT_EQ(t.tasks_executed, t.tasks_created);
  expect_total_is_sum(s);
  expect_policy_contract(policy(), t);
}

TEST_P(PolicyStats, ResetStatsZeroesCounters) {
  heist::Runtime rt(heist_test::options(workers(), policy()));
  heist::spawn(tree_task, 8);
  heist::wait();
  EXPECT_GT(rt.stats().total().tasks_created, 0u);
  rt.reset_stats();
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, 0u);
  EXPECT_EQ(t.tasks_executed, 0u);
  EXPECT_EQ(t.tasks_inlined, 0u);
  EXPECT_EQ(t.steal_attempts, 0u);
  EXPECT_EQ(t.releases, 0u);
  EXPECT_EQ(t.acquires, 0u);
}

TEST_P(PolicyStats, MixedTaskKindsCreatedEqualsExecuted) {
  heist::Runtime rt(heist_test::options(workers(), policy()));
  std::atomic<int> closures{0};
  int wide_out = 0;
  heist::finish([&] {
    for (int i = 0; i < 300; ++i) heist::async([&closures] { closures.fetch_add(1); });
    heist::spawn(tree_task, 6);
    Wide w{};
    w.bytes[0] = 1;
    w.bytes[63] = 2;
    heist::spawn(wide_task, w, &wide_out);
    heist::wait();
  });
  heist::TaskHandle h = heist::spawn_handle(tree_task, 3);
  heist::wait(h);
  heist::wait();
  EXPECT_EQ(closures.load(), 300);
  EXPECT_EQ(wide_out, 3);
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, 300 + tree_tasks(6) + 1 + tree_tasks(3));
  EXPECT_EQ(t.tasks_executed, t.tasks_created);
}

TEST_P(PolicyStats, StatsBetweenManyShortRegions) {
  // stats() between regions must see every worker's counters complete and
  // consistent, even when a region is so short that helpers are still
  // waking up for it when it ends.
  heist::Runtime rt(heist_test::options(workers(), policy()));
  const int regions = 1000;  // not scaled: the more regions, the likelier a late-waking worker
  for (int r = 0; r < regions; ++r) {
    heist::spawn(tree_task, r % 3);
    heist::wait();
    const heist::RunStats s = rt.stats();
    const heist::WorkerStats t = s.total();
    ASSERT_EQ(t.tasks_created, t.tasks_executed) << "region " << r;
    expect_total_is_sum(s);
    if (r % 2 == 0) rt.reset_stats();
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, PolicyStats,
                         ::testing::Combine(::testing::Values(1, 2, 4), ::testing::ValuesIn(heist_test::kStackPolicies)), heist_test::WorkersPolicyName());
INSTANTIATE_TEST_SUITE_P(Continuations, PolicyStats, ::testing::ValuesIn(heist_test::kContinuationRuns), heist_test::WorkersPolicyName());

// ---------------------------------------------------------------- bounded

class BoundedQueue : public ::testing::TestWithParam<int> {};

TEST_P(BoundedQueue, BoundLimitsQueueAndDecidesInlining) {
  const int workers = GetParam();
  const int depth = 12;
  {
    heist::Options o = heist_test::options(workers, SpawnPolicy::bounded);
    o.queue_demand = false;  // HotSLAW's bounded queues: queue while below the bound
    o.queue_bound = 1000;    // the spawn/wait tree never holds that many
    heist::Runtime rt(o);
    heist::spawn(tree_task, depth);
    heist::wait();
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_EQ(t.tasks_created, tree_tasks(depth));
    EXPECT_EQ(t.tasks_inlined, 0u);
    EXPECT_LE(t.max_queue, 1000u);
  }
  {
    heist::Options o = heist_test::options(workers, SpawnPolicy::bounded);
    o.queue_demand = false;
    o.queue_bound = 1;
    heist::Runtime rt(o);
    heist::spawn(tree_task, depth);
    heist::wait();
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_EQ(t.tasks_created, tree_tasks(depth));
    EXPECT_EQ(t.tasks_executed, tree_tasks(depth));
    EXPECT_GT(t.tasks_inlined, 0u);
    EXPECT_LE(t.max_queue, 1u);
    if (workers == 1) {
      EXPECT_GE(t.tasks_inlined, tree_tasks(depth) / 2);  // a queued task makes the next spawn inline
    }
  }
}

TEST(BoundedQueue, OnDemandQueuesOnlyWhenThePrivateQueueIsEmpty) {
  // queue_demand (the default) with one worker: no thief ever asks for
  // work, so a spawn is queued only when the private queue is empty.
  heist::Options o = heist_test::options(1, SpawnPolicy::bounded);
  o.queue_demand = true;
  heist::Runtime rt(o);
  heist::spawn(tree_task, 12);
  heist::wait();
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, tree_tasks(12));
  EXPECT_EQ(t.tasks_executed, tree_tasks(12));
  EXPECT_GT(t.tasks_inlined, 0u);
  EXPECT_LE(t.max_queue, 1u);
}

TEST(BoundedQueue, TheTopLevelsBelowTheRootAreQueuedPastTheBound) {
  // One worker, bound 1: every spawn would run inline, but the first
  // --queued-levels generations below the root are queued: the root's
  // child (generation 1), then its two children, which count as
  // generations 2 and 3 (a task's n-th queued child is 1 + floor(log2 n)
  // generations below it), and so on — counted through the task headers,
  // since each queued task runs from the deque. Below a task of generation
  // g < L the tree queues q(g) = 2 + q(g + 1) + q(g + 2) tasks (q(g) = 0
  // from L on), so 1 + q(1) in all: 1, 3, 5 and 9 for L = 1 to 4 (one
  // generation a child queued 2^L - 1).
  const std::pair<int, std::uint64_t> runs[] = {{1, 1}, {2, 3}, {3, 5}, {4, 9}};
  for (const auto& [levels, queued] : runs) {
    heist::Options o = heist_test::options(1, SpawnPolicy::bounded);
    o.queue_bound = 1;
    o.queued_levels = levels;
    heist::Runtime rt(o);
    heist::spawn(tree_task, 12);
    heist::wait();
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_EQ(t.tasks_executed, tree_tasks(12)) << levels;
    EXPECT_EQ(t.tasks_inlined, tree_tasks(12) - queued) << levels;
  }
}

INSTANTIATE_TEST_SUITE_P(Workers, BoundedQueue, ::testing::Values(1, 2, 4));

TEST(HelpFirst, QueuesEverySpawnWithOneWorker) {
  heist::Runtime rt(heist_test::options(1, SpawnPolicy::help_first));
  heist::spawn(tree_task, 10);
  heist::wait();
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_inlined, 0u);
  EXPECT_EQ(t.tasks_created, tree_tasks(10));
  EXPECT_GE(t.max_queue, 2u);
}

TEST(HelpFirst, InlinesOnlyWhenTheDequeIsAtItsMaximum) {
  heist::Options o = heist_test::options(1, SpawnPolicy::help_first);
  o.deque_initial_tasks = 4;
  o.deque_max_tasks = 8;
  heist::Runtime rt(o);
  std::atomic<int> ran{0};
  heist::finish([&] {
    for (int i = 0; i < 100; ++i) heist::async([&ran] { ran.fetch_add(1); });
  });
  EXPECT_EQ(ran.load(), 100);
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, 100u);
  EXPECT_EQ(t.tasks_inlined, 100u - 8u);
  EXPECT_EQ(t.max_queue, 8u);
}


// Runtime::pool: the seed body's own spawns are the pool, so every one is
// queued whatever the policy (PGAS-WS's setting: all tasks created on one
// rank must be there for others to take); what they spawn follows the policy.
TEST(Pool, SeedSpawnsAreQueuedUnderEveryPolicy) {
  for (SpawnPolicy policy : heist_test::kAllPolicies) {
    heist::Runtime rt(heist_test::options(1, policy));
    rt.reset_stats();
    g_tree_nodes = 0;
    rt.pool([] {
      for (int i = 0; i < 50; ++i) heist::spawn(tree_task, 0);
    });
    EXPECT_EQ(g_tree_nodes.load(), 50u) << heist::to_string(policy);
    const heist::WorkerStats t = rt.stats().total();
    EXPECT_EQ(t.tasks_created, 50u) << heist::to_string(policy);
    EXPECT_EQ(t.tasks_inlined, 0u) << heist::to_string(policy);
    EXPECT_EQ(t.max_queue, 50u) << heist::to_string(policy);
  }
}

TEST(Pool, TasksSpawnedByPoolTasksFollowThePolicy) {
  heist::Runtime rt(heist_test::options(1, SpawnPolicy::work_first));
  rt.reset_stats();
  g_tree_nodes = 0;
  rt.pool([] { heist::spawn(tree_task, 6); });
  EXPECT_EQ(g_tree_nodes.load(), tree_tasks(6));
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, tree_tasks(6));
  EXPECT_EQ(t.tasks_inlined, tree_tasks(6) - 1);  // all but the seed
}
// ---------------------------------------------------------------- waiter steals

// --waiter-steals deeper in one process (the default applies it between
// processes only): waiters leave chunks that are not deeper than their
// frame, and still every task runs exactly once, under every way of
// spawning; each refusal is a failed attempt. With `any` nobody refuses.
TEST(WaiterSteals, DeeperLosesNoTaskAndAnyNeverRefuses) {
  for (const SpawnPolicy policy : {SpawnPolicy::help_first, SpawnPolicy::bounded, SpawnPolicy::work_first}) {
    for (const heist::WaiterSteals mode : {heist::WaiterSteals::deeper, heist::WaiterSteals::any}) {
      heist::Options o = heist_test::options(4, policy);
      o.waiter_steals = mode;
      heist::Runtime rt(o);
      const int depth = 14;
      for (int rep = 0; rep < 3; ++rep) {
        rt.reset_stats();
        g_tree_nodes = 0;
        heist::spawn(tree_task, depth);
        heist::wait();
        ASSERT_EQ(g_tree_nodes.load(), tree_tasks(depth)) << to_string(policy) << ' ' << to_string(mode);
        const heist::WorkerStats t = rt.stats().total();
        EXPECT_EQ(t.tasks_executed, tree_tasks(depth));
        EXPECT_LE(t.help_floor_refusals, t.failed_steals);
        if (mode == heist::WaiterSteals::any) {
          EXPECT_EQ(t.help_floor_refusals, 0u);
        }
      }
    }
  }
}

// ---------------------------------------------------------------- options

TEST(Options, ValidateRejectsOutOfRangeValues) {
  EXPECT_NO_THROW(heist::Options{}.validate());
  auto invalid = [](auto change) {
    heist::Options o;
    change(o);
    EXPECT_THROW(o.validate(), OptionError);
  };
  invalid([](heist::Options& o) { o.workers = -1; });
  invalid([](heist::Options& o) { o.workers = 100000; });
  invalid([](heist::Options& o) { o.queue_bound = 0; });
  invalid([](heist::Options& o) { o.chunk = heist::ChunkSpec{heist::ChunkSpec::Kind::fixed, 0}; });
  invalid([](heist::Options& o) { o.task_input_bytes = 8; });
  invalid([](heist::Options& o) { o.deque_initial_tasks = 1; });
  invalid([](heist::Options& o) {
    o.deque_initial_tasks = 1024;
    o.deque_max_tasks = 512;
  });
  invalid([](heist::Options& o) { o.max_help_depth = 0; });
  invalid([](heist::Options& o) { o.slaw_interval = 0; });
  invalid([](heist::Options& o) { o.worker_stack_bytes = 1024; });
  invalid([](heist::Options& o) { o.fiber_stack_bytes = 1024; });
  invalid([](heist::Options& o) { o.max_fibers = 1; });
  invalid([](heist::Options& o) { o.expose_depth = -1; });
  invalid([](heist::Options& o) {  // work-first steals continuations: it needs fibers
    o.policy = SpawnPolicy::work_first;
    o.continuations = heist::ContinuationMode::off;
  });
  invalid([](heist::Options& o) {  // a suspending wait needs fibers
    o.suspend_waits = heist::SuspendWaits::on;
    o.continuations = heist::ContinuationMode::off;
  });
}

TEST(Options, ContinuationsFollowThePolicyUnlessSet) {
  heist::Options o;
  for (SpawnPolicy p : heist_test::kAllPolicies) {
    o.policy = p;
    o.continuations = heist::ContinuationMode::automatic;
    EXPECT_EQ(heist::uses_continuations(o), p == SpawnPolicy::work_first || p == SpawnPolicy::adaptive);
    o.continuations = heist::ContinuationMode::on;
    EXPECT_TRUE(heist::uses_continuations(o));
  }
  o.policy = SpawnPolicy::bounded;
  o.continuations = heist::ContinuationMode::off;
  EXPECT_FALSE(heist::uses_continuations(o));
  // Suspending waits run tasks on fibers under every policy.
  o.continuations = heist::ContinuationMode::automatic;
  o.suspend_waits = heist::SuspendWaits::on;
  EXPECT_TRUE(heist::uses_continuations(o));
  o.suspend_waits = heist::SuspendWaits::automatic;
  EXPECT_FALSE(heist::uses_continuations(o));
}

TEST(Options, ParseSpawnPolicyAndChunk) {
  EXPECT_EQ(heist::parse_spawn_policy("help-first"), SpawnPolicy::help_first);
  EXPECT_EQ(heist::parse_spawn_policy("work-first"), SpawnPolicy::work_first);
  EXPECT_EQ(heist::parse_spawn_policy("inline"), SpawnPolicy::inline_child);
  EXPECT_EQ(heist::parse_spawn_policy("adaptive"), SpawnPolicy::adaptive);
  EXPECT_EQ(heist::parse_spawn_policy("bounded"), SpawnPolicy::bounded);
  EXPECT_EQ(heist::parse_spawn_policy("slaw"), SpawnPolicy::slaw);
  for (SpawnPolicy p : heist_test::kAllPolicies) EXPECT_EQ(heist::parse_spawn_policy(heist::to_string(p)), p);
  EXPECT_THROW(heist::parse_spawn_policy("foo"), OptionError);
  EXPECT_THROW(heist::parse_spawn_policy(""), OptionError);
  EXPECT_THROW(heist::parse_spawn_policy("help_first"), OptionError);

  EXPECT_EQ(heist::parse_chunk("half").kind, heist::ChunkSpec::Kind::half);
  const heist::ChunkSpec five = heist::parse_chunk("5");
  EXPECT_EQ(five.kind, heist::ChunkSpec::Kind::fixed);
  EXPECT_EQ(five.k, 5u);
  EXPECT_EQ(heist::to_string(five), "5");
  EXPECT_EQ(heist::to_string(heist::parse_chunk("half")), "half");
  EXPECT_THROW(heist::parse_chunk("0"), OptionError);
  EXPECT_THROW(heist::parse_chunk("-2"), OptionError);
  EXPECT_THROW(heist::parse_chunk("abc"), OptionError);
  EXPECT_THROW(heist::parse_chunk(""), OptionError);
  EXPECT_THROW(heist::parse_chunk("3x"), OptionError);
  try {
    heist::parse_spawn_policy("foo");
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("foo"), std::string::npos) << e.what();
  }
}

// Sets an environment variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_, old_.c_str(), 1);
    else unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(Options, FromEnvReadsEveryVariable) {
  {
    ScopedEnv w("HEIST_WORKERS", "3");
    ScopedEnv p("HEIST_POLICY", "bounded");  // the policy that reads HEIST_QUEUE_BOUND and _DEMAND
    ScopedEnv q("HEIST_QUEUE_BOUND", "7");
    ScopedEnv c("HEIST_CHUNK", "half");
    ScopedEnv t("HEIST_TASK_INPUT_BYTES", "128");
    ScopedEnv d("HEIST_DEQUE_TASKS", "4K");
    ScopedEnv s("HEIST_SEED", "99");
    ScopedEnv qd("HEIST_QUEUE_DEMAND", "off");
    const heist::Options o = heist::Options::from_env();
    EXPECT_EQ(o.workers, 3);
    EXPECT_EQ(o.policy, SpawnPolicy::bounded);
    EXPECT_EQ(o.queue_bound, 7);
    EXPECT_EQ(o.chunk.kind, heist::ChunkSpec::Kind::half);
    EXPECT_EQ(o.task_input_bytes, 128u);
    EXPECT_EQ(o.deque_initial_tasks, 4096u);
    EXPECT_EQ(o.seed, 99u);
    EXPECT_FALSE(o.queue_demand);
    EXPECT_NO_THROW(o.validate());
  }
  // Unset variables leave the defaults.
  const heist::Options o = heist::Options::from_env();
  EXPECT_EQ(o.workers, heist::Options{}.workers);
  EXPECT_EQ(o.policy, heist::Options{}.policy);
}

// Every HEIST_* variable is noticed: an empty one, or one that names no
// option, is an error (with the nearest name), in from_env and so in the
// Runtime's default constructor; the tools' own variables are not options
// but are known.
TEST(Options, FromEnvRefusesEmptyAndUnknownVariables) {
  const auto message = [] {
    try {
      (void)heist::Options::from_env();
    } catch (const OptionError& e) {
      return std::string(e.what());
    }
    return std::string("(accepted)");
  };
  {
    ScopedEnv empty("HEIST_WORKERS", "");
    EXPECT_NE(message().find("HEIST_WORKERS is set but empty"), std::string::npos) << message();
  }
  {
    ScopedEnv typo("HEIST_WORKER", "4");
    EXPECT_NE(message().find("HEIST_WORKER: no such variable; did you mean HEIST_WORKERS?"), std::string::npos)
        << message();
    EXPECT_THROW(heist::Runtime runtime, OptionError);
  }
  {
    ScopedEnv typo("HEIST_POLCY", "inline");
    EXPECT_NE(message().find("did you mean HEIST_POLICY?"), std::string::npos) << message();
  }
  {
    ScopedEnv scale("HEIST_TEST_SCALE", "1");
    ScopedEnv quiet("HEIST_CLUSTER_QUIET", "");
    EXPECT_EQ(message(), "(accepted)");
  }
}

TEST(Options, FromEnvErrorNamesTheVariable) {
  struct Bad {
    const char* name;
    const char* value;
  };
  for (const Bad& bad : {Bad{"HEIST_WORKERS", "-1"}, Bad{"HEIST_WORKERS", "lots"}, Bad{"HEIST_QUEUE_BOUND", "0"},
                         Bad{"HEIST_CHUNK", "0"}, Bad{"HEIST_POLICY", "foo"}, Bad{"HEIST_TASK_INPUT_BYTES", "1"},
                         Bad{"HEIST_QUEUE_DEMAND", "maybe"}}) {
    ScopedEnv env(bad.name, bad.value);
    try {
      (void)heist::Options::from_env();
      ADD_FAILURE() << bad.name << "=" << bad.value << " accepted";
    } catch (const OptionError& e) {
      EXPECT_NE(std::string(e.what()).find(bad.name), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(bad.value), std::string::npos) << e.what();
    }
  }
}

TEST(Options, RuntimeRejectsInvalidOptionsAndStaysUsable) {
  heist::Options bad;
  bad.queue_bound = 0;
  EXPECT_THROW(heist::Runtime rt(bad), OptionError);
  heist::Options ok = heist_test::options(2, SpawnPolicy::help_first);
  heist::Runtime rt(ok);  // the failed one left nothing behind
  heist::spawn(tree_task, 5);
  heist::wait();
  EXPECT_EQ(rt.stats().total().tasks_created, tree_tasks(5));
}

// ---------------------------------------------------------------- --bind-workers

std::set<int> this_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(pthread_getaffinity_np(pthread_self(), sizeof set, &set), 0);
  std::set<int> cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
    if (CPU_ISSET(cpu, &set)) cpus.insert(cpu);
  return cpus;
}

TEST(BindWorkers, EachWorkerOnOnePuAndTheCallerGetsItsSetBack) {
  const std::set<int> before = this_thread_cpus();
  constexpr int kWorkers = 2;
  std::mutex mutex;
  std::map<int, std::set<int>> seen;  // worker id -> the CPUs its thread may run on
  {
    heist::Options o = heist_test::options(kWorkers, SpawnPolicy::help_first);
    o.bind_workers = heist::WorkerBinding::pus;
    heist::Runtime rt(o);
    EXPECT_EQ(this_thread_cpus().size(), 1u) << "worker 0 is the creating thread";
    // Help-first queues every task: worker 1 steals some within a few rounds.
    for (int round = 0; round < 1000; ++round) {
      heist::finish([&] {
        for (int i = 0; i < 64; ++i)
          heist::async([&] {
            const std::set<int> cpus = this_thread_cpus();
            const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(20);
            while (std::chrono::steady_clock::now() < until) {
            }
            const std::lock_guard lock(mutex);
            seen[heist::worker_id()] = cpus;
          });
      });
      const std::lock_guard lock(mutex);
      if (seen.size() == kWorkers) break;
    }
  }
  EXPECT_EQ(this_thread_cpus(), before) << "the creating thread's CPU set is restored";
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kWorkers));
  for (const auto& [worker, cpus] : seen) {
    ASSERT_EQ(cpus.size(), 1u) << "worker " << worker;
    EXPECT_TRUE(before.contains(*cpus.begin())) << "worker " << worker << " left the process's CPU set";
  }
  if (before.size() >= kWorkers) {
    EXPECT_NE(seen[0], seen[1]) << "two workers on one PU with PUs to spare";
  }
}

TEST(BindWorkers, OptionParses) {
  heist::Options o;
  EXPECT_EQ(o.bind_workers, heist::WorkerBinding::none);
  {
    ScopedEnv env("HEIST_BIND_WORKERS", "pus");
    EXPECT_EQ(heist::Options::from_env().bind_workers, heist::WorkerBinding::pus);
  }
  ScopedEnv bad("HEIST_BIND_WORKERS", "cores");
  EXPECT_THROW((void)heist::Options::from_env(), OptionError);
}

// ---------------------------------------------------------------- misuse

TEST(Misuse, SecondRuntimeThrows) {
  heist::Runtime rt(heist_test::options(2, SpawnPolicy::bounded));
  EXPECT_THROW(heist::Runtime second(heist_test::options(1, SpawnPolicy::bounded)), std::logic_error);
  bool threw = false;
  std::thread other([&] {
    try {
      heist::Runtime third(heist_test::options(1, SpawnPolicy::bounded));
    } catch (const std::logic_error&) {
      threw = true;
    }
  });
  other.join();
  EXPECT_TRUE(threw);
  // The first runtime still works.
  g_tree_nodes = 0;
  heist::spawn(tree_task, 6);
  heist::wait();
  EXPECT_EQ(g_tree_nodes.load(), tree_tasks(6));
}

TEST(Misuse, RuntimesOneAfterAnother) {
  for (int i = 1; i <= 4; ++i) {
    heist::Runtime rt(heist_test::options(i, SpawnPolicy::help_first));
    EXPECT_EQ(heist::num_workers(), i);
    EXPECT_EQ(heist::worker_id(), 0);
    g_tree_nodes = 0;
    heist::spawn(tree_task, 8);
    heist::wait();
    EXPECT_EQ(g_tree_nodes.load(), tree_tasks(8));
  }
  EXPECT_EQ(heist::num_workers(), 0);
  EXPECT_EQ(heist::worker_id(), -1);
}

// Every spawn that takes the slow path checks the task's registration
// (WorkerQueue::check_task): an unknown id or an input of the wrong size is
// refused before anything is queued, and the runtime stays usable.
TEST(Misuse, SpawnOfAnUnknownTaskOrAWrongInputSizeThrows) {
  heist::Runtime rt(heist_test::options(1, SpawnPolicy::help_first));  // help-first: every spawn is checked
  const int depth = 1;
  const auto message = [&](std::uint32_t fn, std::size_t size) {
    try {
      heist::detail::spawn_registered(fn, &depth, size, nullptr, heist::detail::Join::joined);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  EXPECT_NE(message(1u << 30, sizeof depth).find("unknown task function id 1073741824"), std::string::npos);
  EXPECT_NE(message(tree_task.id(), sizeof depth + 4).find("spawned with 8 input bytes, registered with 4"),
            std::string::npos);
  g_tree_nodes = 0;
  heist::spawn(tree_task, 3);
  heist::wait();
  EXPECT_EQ(g_tree_nodes.load(), tree_tasks(3));
}

TEST(Misuse, CallsOutsideTheRuntimeThrowLogicError) {
  EXPECT_THROW(heist::wait(), std::logic_error);
  EXPECT_THROW(heist::spawn(tree_task, 1), std::logic_error);
  int out = 0;
  EXPECT_THROW(heist::spawn(wide_task, Wide{}, &out), std::logic_error);
  EXPECT_THROW(heist::async([] {}), std::logic_error);
  EXPECT_THROW(heist::finish([] {}), std::logic_error);
  EXPECT_THROW(heist::fence(), std::logic_error);
  EXPECT_THROW((void)heist::spawn_handle(tree_task, 1), std::logic_error);
  EXPECT_EQ(heist::worker_id(), -1);
  // From a thread that is not the runtime's while a runtime exists.
  heist::Runtime rt(heist_test::options(2, SpawnPolicy::bounded));
  int errors = 0;
  std::thread other([&] {
    try {
      heist::wait();
    } catch (const std::logic_error&) {
      ++errors;
    }
    try {
      heist::async([] {});
    } catch (const std::logic_error&) {
      ++errors;
    }
    try {
      heist::spawn(tree_task, 1);
    } catch (const std::logic_error&) {
      ++errors;
    }
    if (heist::worker_id() == -1) ++errors;
  });
  other.join();
  EXPECT_EQ(errors, 4);
}

void huge_body(const std::array<char, 200>& in, int* out) { *out = in[0]; }

TEST(Misuse, TaskInputLargerThanTheSlotIsAClearError) {
  {
    heist::Options o;
    o.workers = 1;
    o.task_input_bytes = 32;  // "wide" takes 64 bytes
    try {
      heist::Runtime rt(o);
      ADD_FAILURE() << "a runtime whose slots cannot hold a registered task started";
    } catch (const OptionError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("test_policies_stats.wide"), std::string::npos) << msg;
      EXPECT_NE(msg.find("HEIST_TASK_INPUT_BYTES"), std::string::npos) << msg;
    }
  }
  heist::Runtime rt(heist_test::options(2, SpawnPolicy::bounded));
  // Registering a task the running runtime's slots cannot hold fails, and
  // leaves the registry as it was.
  try {
    (void)heist::register_task<huge_body>("test_policies_stats.huge");
    ADD_FAILURE() << "registered a 200-byte task with 80-byte slots";
  } catch (const OptionError& e) {
    EXPECT_NE(std::string(e.what()).find("test_policies_stats.huge"), std::string::npos) << e.what();
  }
  int out = 0;
  Wide w{};
  w.bytes[0] = 40;
  w.bytes[63] = 2;
  heist::spawn(wide_task, w, &out);
  heist::wait();
  EXPECT_EQ(out, 42);
}

void dup_body(const int&) {}

TEST(Misuse, DuplicateTaskNameThrows) {
  EXPECT_THROW((void)heist::register_task<dup_body>("test_policies_stats.tree"), std::invalid_argument);
}

}  // namespace
