// The runtime and the simulator execute one scheduler: the same pure
// machines (policy::SpawnMachine for the spawn slow path), called in the
// same order with the same observations, their answers applied alike.
//
// 1. Same program, same actions. A run whose order is fixed — one worker,
//    one process, no clock read (unpaced) — is run for real and simulated;
//    every call of the worker's spawn machine is recorded on each side (the
//    entry, the facts and the decision, the plan, the polls after a queued
//    child, the task edges that drop credits) and the two records must be
//    the same sequence. The facts are what each executor observed of its
//    own state (deque sizes, nesting, generations), so a difference in what
//    an executor observes, in when it calls the machine (the fast path
//    spending credits, a task edge skipped), or in how it applies an answer
//    (a grant, a reroot, a publish) shows as the first differing record.
// 2. Real runs of several workers replay on the simulator's machines:
//    each runtime worker's recorded observations fed to a SpawnMachine and
//    to SearchLoops over a SearchDriver made as the simulator makes its
//    workers' give the recorded answers, call by call.
// 3. Self-check: with a planted drift in the credit reset (the simulator
//    keeps the credits of the last grant when a queued task starts) the
//    comparison of (1) fails.
#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "heist/heist.hpp"
#include "policy/decision_log.hpp"
#include "policy/search_driver.hpp"
#include "policy/search_loop.hpp"
#include "policy/spawn_machine.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "sim/machine.hpp"
#include "sim/simulate.hpp"
#include "uts/uts_params.hpp"
#include "uts/uts_seq.hpp"
#include "uts/uts_tree.hpp"

#include "same_actions_fib.hpp"
#include "same_actions_replay.hpp"

namespace {

using heist::SpawnPolicy;
using heist::policy::AfterQueueRecord;
using heist::policy::Decision;
using heist::policy::DecisionLog;
using heist::policy::EdgeRecord;
using heist::policy::EntryRecord;
using heist::policy::PlanRecord;
using heist::policy::SpawnRecord;

// ---- the programs, for real

using same_actions::fib_task;

const heist::uts::UtsParams* g_params = nullptr;
std::atomic<std::uint64_t> g_nodes{0};
void visit(const heist::uts::UtsNode& node);
const auto visit_task = heist::register_task<visit>("test.same_actions.uts");
void visit(const heist::uts::UtsNode& node) {
  g_nodes.fetch_add(1, std::memory_order_relaxed);
  const int children = heist::uts::num_children(*g_params, node);
  for (int i = 0; i < children; ++i) heist::async(visit_task, heist::uts::make_child(*g_params, node, i));
}

// A small T3-shaped binomial tree.
const char* const kTree = "-t 0 -b 40 -q 0.124875 -m 8 -r 5";
constexpr int kFibN = 16;
// Several workers: large enough that the others search while recorded
// (help-first records every spawn: a smaller fib).
const char* const kManyTree = "-t 0 -b 400 -q 0.124875 -m 8 -r 5";

struct Scenario {
  const char* app;  // "fib" (spawn/wait) or "uts" (escaping asyncs)
  SpawnPolicy policy;
};

std::string name_of(const testing::TestParamInfo<Scenario>& info) {
  std::string p = heist::to_string(info.param.policy);
  for (char& c : p)
    if (c == '-') c = '_';
  return std::string(info.param.app) + "_" + p;
}

heist::Options options(SpawnPolicy policy, int workers) {
  heist::Options o;
  o.policy = policy;
  o.seed = 7;
  o.workers = workers;
  o.hierarchy.workers_per_socket = static_cast<std::uint32_t>(workers);  // the simulated machine: one socket
  return o;
}

std::uint64_t fib_value(int n) { return n < 2 ? static_cast<std::uint64_t>(n) : fib_value(n - 1) + fib_value(n - 2); }

// Runs f on a thread with a 64 MiB stack: room for more inline levels than
// a grant gives, so the runtime's stack (SpawnFacts::inline_budget, which
// the simulator does not model) never bounds a grant.
template <class F>
void on_large_stack(F f) {
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setstacksize(&attr, std::size_t{64} << 20);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, [](void* p) -> void* { (*static_cast<F*>(p))(); return nullptr; }, &f), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attr);
}

// One real run with every worker's spawn machine and search recorded:
// fib(fib_n) or UTS `tree`.
std::vector<DecisionLog> run_for_real(const Scenario& s, int workers, int fib_n = kFibN, const char* tree = kTree) {
  std::vector<DecisionLog> logs(static_cast<std::size_t>(workers));
  on_large_stack([&] {
    heist::Runtime runtime(options(s.policy, workers));
    heist::sched::Scheduler& sched = heist::sched::Worker::current()->scheduler();
    for (int i = 0; i < workers; ++i) {
      sched.worker(i).spawn_machine().record_to(&logs[static_cast<std::size_t>(i)]);
      sched.worker(i).search_driver().record_to(&logs[static_cast<std::size_t>(i)]);
    }
    if (std::string(s.app) == "fib") {
      std::uint64_t result = 0;
      heist::finish([&] { heist::spawn(fib_task, fib_n, &result); });
      EXPECT_EQ(result, fib_value(fib_n));
    } else {
      const heist::uts::UtsParams params = heist::uts::parse_uts_args(tree);
      g_params = &params;
      g_nodes.store(0);
      heist::finish([&] { heist::async(visit_task, heist::uts::make_root(params)); });
      EXPECT_EQ(g_nodes.load(), heist::uts::uts_count_sequential(params).nodes);
    }
    // The logs stay attached: the workers may still be in their loops;
    // the Runtime's end stops them, and the logs outlive it.
  });
  return logs;
}

// The same program simulated on one worker.
DecisionLog simulate(const Scenario& s, heist::sim::PlantedDrift drift = heist::sim::PlantedDrift::none) {
  heist::sim::SimConfig c;
  c.machine.cores_per_socket = 1;
  c.machine.sockets = 1;
  c.machine.nodes = 1;
  c.machine.ranks_per_node = 1;
  c.options = options(s.policy, 1);
  c.costs = {60.0, 90.0, 2.0};
  c.planted_drift = drift;
  std::vector<DecisionLog> logs;
  c.decision_logs = &logs;
  const heist::sim::AnyWorkload workload =
      std::string(s.app) == "fib" ? heist::sim::make_workload("fib", {{"n", kFibN}, {"cutoff", 0}})
                                  : heist::sim::make_workload("uts", {{"tree", kTree}, {"uts", kTree}});
  const heist::sim::SimResult result = heist::sim::simulate(workload, c);
  EXPECT_GT(result.tasks, 0u);
  return logs.at(0);
}

// ---- records as text, the spawn machine's only

bool spawn_machine_record(const Decision& d) {
  return std::holds_alternative<EntryRecord>(d) || std::holds_alternative<SpawnRecord>(d) ||
         std::holds_alternative<PlanRecord>(d) || std::holds_alternative<AfterQueueRecord>(d) ||
         std::holds_alternative<EdgeRecord>(d);
}

// What both executors must agree on. Left out: the stack's room
// (inline_budget: the simulator models no stack) and the clock (unpaced).
std::string describe(const Decision& d) {
  std::ostringstream o;
  if (const auto* r = std::get_if<EntryRecord>(&d)) {
    o << "enter paced=" << r->entry.paced << " seeding=" << r->entry.seeding << " -> poll=" << r->step.poll
      << " seed=" << r->step.queue_seed;
  } else if (const auto* r = std::get_if<SpawnRecord>(&d)) {
    const heist::policy::SpawnFacts& f = r->facts;
    o << "decide " << heist::to_string(r->kind) << " held=" << f.held << " queued=" << f.queued
      << " public=" << f.public_tasks << " frames=" << f.inline_frames << " levels=" << f.levels
      << " asked=" << f.thief_asked << " idle=" << f.idle_workers << " inlined=" << f.inlined
      << " -> action=" << static_cast<int>(r->action) << " credits=" << r->credits;
  } else if (const auto* r = std::get_if<PlanRecord>(&d)) {
    const heist::policy::SpawnPlan& p = r->plan;
    o << "plan fenced=" << r->fenced << " release=" << p.release << " reroot=" << p.reroot
      << " action=" << static_cast<int>(p.action) << " credits=" << p.credits
      << " publish=" << static_cast<int>(p.publish);
  } else if (const auto* r = std::get_if<AfterQueueRecord>(&d)) {
    o << "after-queue poll=" << r->poll;
  } else if (const auto* r = std::get_if<EdgeRecord>(&d)) {
    o << (r->edge == heist::policy::TaskEdge::start ? "task-start" : "task-end") << " drop=" << r->drop;
  }
  return o.str();
}

std::vector<std::string> spawn_actions(const DecisionLog& log) {
  std::vector<std::string> out;
  for (const Decision& d : log.entries)
    if (spawn_machine_record(d)) out.push_back(describe(d));
  return out;
}

// The runtime's record, the simulator's length of it: after the program,
// only the edges of the runtime's own region body may follow.
std::vector<std::string> program_part(const std::vector<std::string>& runtime, std::size_t length) {
  std::vector<std::string> part;
  for (const std::string& r : runtime) {
    if (part.size() < length) part.push_back(r);
    else EXPECT_EQ(r.rfind("task-", 0), 0u) << "after the program, the runtime's record holds " << r;
  }
  return part;
}

// The index of the first difference, or -1 when equal.
long first_difference(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return static_cast<long>(i);
  return a.size() == b.size() ? -1 : static_cast<long>(n);
}

std::string around(const std::vector<std::string>& v, long at) {
  std::string s;
  for (long i = std::max(0L, at - 3); i < std::min(static_cast<long>(v.size()), at + 3); ++i)
    s += (i == at ? "  > " : "    ") + v[static_cast<std::size_t>(i)] + "\n";
  return s;
}

// The simulator models no stack: the comparison holds where the runtime's
// stack never bounds a grant (SpawnFacts::inline_budget). Sanitizer builds'
// frames are large enough that it does.
bool stack_bounds_grants(const DecisionLog& real) {
  for (const Decision& d : real.entries)
    if (const auto* r = std::get_if<SpawnRecord>(&d))
      if (r->facts.inline_budget < 4096) return true;
  return false;
}

// ---- 1. same program, same actions

class SameActions : public testing::TestWithParam<Scenario> {};

TEST_P(SameActions, OneWorkerRunsTheSimulatorsSequence) {
  const Scenario s = GetParam();
  const DecisionLog real_log = run_for_real(s, 1).at(0);
  if (stack_bounds_grants(real_log)) GTEST_SKIP() << "the runtime's stack bounds its inline grants in this build";
  const std::vector<std::string> simulated = spawn_actions(simulate(s));
  const std::vector<std::string> real = program_part(spawn_actions(real_log), simulated.size());
  ASSERT_GT(simulated.size(), 10u);
  const long at = first_difference(real, simulated);
  EXPECT_EQ(at, -1) << "first difference at record " << at << " of " << simulated.size() << "\nruntime:\n"
                    << around(real, at) << "simulator:\n"
                    << around(simulated, at);
}

INSTANTIATE_TEST_SUITE_P(Programs, SameActions,
                         testing::Values(Scenario{"fib", SpawnPolicy::bounded}, Scenario{"fib", SpawnPolicy::help_first},
                                         Scenario{"fib", SpawnPolicy::slaw}, Scenario{"uts", SpawnPolicy::bounded},
                                         Scenario{"uts", SpawnPolicy::help_first}, Scenario{"uts", SpawnPolicy::slaw}),
                         name_of);

// ---- 2. several workers: the runtime's answers are the simulator's machines'

class ManyWorkers : public testing::TestWithParam<std::tuple<Scenario, int>> {};

TEST_P(ManyWorkers, RuntimeAnswersAreTheSimulatorsMachines) {
  const auto [s, workers] = GetParam();
  const std::vector<DecisionLog> logs =
      run_for_real(s, workers, s.policy == SpawnPolicy::help_first ? 20 : 27, kManyTree);
  heist::sim::SimConfig c;
  c.machine.cores_per_socket = workers;
  c.machine.sockets = 1;
  c.machine.nodes = 1;
  c.machine.ranks_per_node = 1;
  c.options = options(s.policy, workers);
  const heist::sim::Machine machine(c.machine);
  const heist::policy::Topology topology = heist::sim::search_topology(machine, c.options);
  same_actions::Replayed total;
  for (int i = 0; i < workers; ++i) {
    // As sim::Engine makes its workers' machines and drivers.
    heist::policy::SpawnMachine m(c.options, c.machine.workers_per_rank(), c.machine.ranks());
    heist::policy::SearchDriver search(c.options, topology, heist::sim::search_setup(machine, i, c.options));
    const same_actions::Replayed n = same_actions::replay(logs[static_cast<std::size_t>(i)], m, search);
    EXPECT_EQ(n.mismatch, "") << "runtime worker " << i;
    total.plans += n.plans;
    total.edges += n.edges;
    total.searches += n.searches;
  }
  EXPECT_GT(total.plans, 0u);
  EXPECT_GT(total.edges, 0u);
  // Searches happen when the other workers wake in time, which a loaded
  // machine does not promise for a run of milliseconds: counted, not required.
  RecordProperty("searches", static_cast<int>(total.searches));
}

INSTANTIATE_TEST_SUITE_P(
    Threads, ManyWorkers,
    testing::Combine(testing::Values(Scenario{"fib", SpawnPolicy::bounded}, Scenario{"fib", SpawnPolicy::help_first},
                                     Scenario{"uts", SpawnPolicy::bounded}, Scenario{"uts", SpawnPolicy::slaw},
                                     Scenario{"fib", SpawnPolicy::work_first}),
                     testing::Values(2, 4)),
    [](const testing::TestParamInfo<std::tuple<Scenario, int>>& info) {
      return name_of({std::get<0>(info.param), info.index}) + "_" + std::to_string(std::get<1>(info.param)) +
             "workers";
    });

// ---- 3. self-check: a drift planted on one side is found

TEST(SameActionsSelfCheck, PlantedCreditResetDriftIsFound) {
  // Under bounded, fib's grants outlast the inline subtree they were
  // granted in; the queued task that starts next must ask again.
  for (const char* app : {"fib"}) {
    const Scenario s{app, SpawnPolicy::bounded};
    const DecisionLog real_log = run_for_real(s, 1).at(0);
    if (stack_bounds_grants(real_log)) GTEST_SKIP() << "the runtime's stack bounds its inline grants in this build";
    const std::vector<std::string> real = spawn_actions(real_log);
    const std::vector<std::string> simulated = spawn_actions(simulate(s));
    const std::vector<std::string> drifted =
        spawn_actions(simulate(s, heist::sim::PlantedDrift::credits_kept_at_task_start));
    EXPECT_EQ(first_difference(program_part(real, simulated.size()), simulated), -1) << app;
    const long at = first_difference(program_part(real, drifted.size()), drifted);
    EXPECT_NE(at, -1) << app << ": the comparison cannot see a drift in the credit reset";
  }
}

}  // namespace
