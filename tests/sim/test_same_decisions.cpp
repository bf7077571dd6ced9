// The runtime and the simulator make the same scheduling decisions (issue
// 14): both call the same drivers (policy::SpawnDriver, policy::SearchDriver),
// made from the same options and places. Here a seeded scenario (UTS, a
// T3-shaped binomial tree made small, 2 and 4 workers, random and hvs
// victims, steal-half) runs on each side with a DecisionLog attached to
// every worker's drivers; then each side's recorded inputs are replayed
// through the drivers the *other* side makes for that worker, and every
// answer — spawn queue/inline and credits, victim steps and their targets,
// chunk sizes, poll rounds — must be the one recorded.
//
// The runtime's interleaving varies from run to run, so its log does too;
// what must not vary is the answer each driver gives to the same inputs,
// on either side. A difference in how a side configures its drivers (seed,
// place, topology, policy, chunk, poll round) makes a replay disagree.
#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <variant>
#include <vector>

#include "heist/heist.hpp"
#include "policy/decision_log.hpp"
#include "policy/search_driver.hpp"
#include "policy/spawn_driver.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "sim/machine.hpp"
#include "sim/simulate.hpp"
#include "uts/uts_params.hpp"
#include "uts/uts_seq.hpp"
#include "uts/uts_tree.hpp"

namespace {

using heist::policy::BackoffRecord;
using heist::policy::ChunkRecord;
using heist::policy::DecisionLog;
using heist::policy::FailureRecord;
using heist::policy::ResultRecord;
using heist::policy::SearchDriver;
using heist::policy::SearchStep;
using heist::policy::SpawnDriver;
using heist::policy::SpawnRecord;
using heist::policy::StepRecord;

// T3's shape (binomial, q = 0.124875, m = 8), with 100 root children instead of 2000.
const char* const kTree = "-t 0 -b 100 -q 0.124875 -m 8 -r 3";

struct Scenario {
  int workers;
  heist::VictimSpec::Kind victim;
};

std::string name_of(const testing::TestParamInfo<Scenario>& info) {
  return std::to_string(info.param.workers) + "workers_" +
         (info.param.victim == heist::VictimSpec::Kind::hvs ? "hvs" : "random");
}

heist::Options options(const Scenario& s) {
  heist::Options o;
  o.victim.kind = s.victim;
  o.chunk = heist::ChunkSpec{heist::ChunkSpec::Kind::half};
  o.seed = 11;
  return o;
}

// The simulated machine: one process whose workers share one socket; the
// runtime is told the same hierarchy (--hierarchy socket=N).
heist::sim::SimConfig sim_config(const Scenario& s) {
  heist::sim::SimConfig c;
  c.machine.cores_per_socket = s.workers;
  c.machine.sockets = 1;
  c.machine.nodes = 1;
  c.machine.ranks_per_node = 1;
  c.options = options(s);
  c.costs = {60.0, 90.0, 2.0};
  return c;
}

heist::Options runtime_options(const Scenario& s) {
  heist::Options o = options(s);
  o.workers = s.workers;
  o.hierarchy.workers_per_socket = static_cast<std::uint32_t>(s.workers);
  return o;
}

struct Replayed {
  std::size_t spawns = 0, steals = 0, chunks = 0, results = 0, failures = 0, backoffs = 0;
};

// Feeds `log`'s inputs to the drivers and expects the recorded answers.
Replayed replay(const DecisionLog& log, SpawnDriver& spawn, SearchDriver& search, const std::string& who) {
  Replayed n;
  for (std::size_t i = 0; i < log.entries.size() && !testing::Test::HasFailure(); ++i) {
    const std::string at = who + ", decision " + std::to_string(i);
    const heist::policy::Decision& d = log.entries[i];
    if (const auto* r = std::get_if<SpawnRecord>(&d)) {
      const heist::policy::SpawnStep step = spawn.decide(r->kind, r->facts, r->paced, r->now);
      EXPECT_EQ(static_cast<int>(step.action), static_cast<int>(r->action)) << at;
      EXPECT_EQ(step.credits, r->credits) << at;
      EXPECT_EQ(step.release, r->release) << at;
      EXPECT_EQ(step.reroot, r->reroot) << at;
      EXPECT_EQ(step.publish_one, r->publish_one) << at;
      ++n.spawns;
    } else if (const auto* r = std::get_if<StepRecord>(&d)) {
      const SearchStep step = search.next(r->remote_ok);
      EXPECT_TRUE(step == r->step) << at << ": target " << step.target << " vs " << r->step.target;
      if (step.kind == SearchStep::Kind::steal_here) ++n.steals;
    } else if (const auto* r = std::get_if<ChunkRecord>(&d)) {
      EXPECT_EQ(search.take(r->available, r->level), r->taken) << at;
      ++n.chunks;
    } else if (const auto* r = std::get_if<ResultRecord>(&d)) {
      search.on_result(r->step, r->taken);
      ++n.results;
    } else if (const auto* r = std::get_if<FailureRecord>(&d)) {
      EXPECT_EQ(search.failed(r->remote_ok, r->answer_awaited), r->poll) << at;
      ++n.failures;
    } else if (const auto* r = std::get_if<BackoffRecord>(&d)) {
      EXPECT_EQ(search.backs_off(), r->backs_off) << at;
      ++n.backoffs;
    }
  }
  return n;
}

// ---- the runtime's UTS traversal (a task per node, escaping asyncs)

const heist::uts::UtsParams* g_params = nullptr;
std::atomic<std::uint64_t> g_nodes{0};

void visit(const heist::uts::UtsNode& node);
const auto visit_task = heist::register_task<visit>("test.same_decisions.uts");

void visit(const heist::uts::UtsNode& node) {
  g_nodes.fetch_add(1, std::memory_order_relaxed);
  const int children = heist::uts::num_children(*g_params, node);
  for (int i = 0; i < children; ++i) heist::async(visit_task, heist::uts::make_child(*g_params, node, i));
}

class SameDecisions : public testing::TestWithParam<Scenario> {};

TEST_P(SameDecisions, SimulatorDecisionsReplayOnTheRuntimesDrivers) {
  const Scenario s = GetParam();
  heist::sim::SimConfig config = sim_config(s);
  std::vector<DecisionLog> logs;
  config.decision_logs = &logs;
  const heist::sim::AnyWorkload workload = heist::sim::make_workload("uts", {{"tree", kTree}, {"uts", kTree}});
  const heist::sim::SimResult result = heist::sim::simulate(workload, config);
  ASSERT_EQ(logs.size(), static_cast<std::size_t>(s.workers));
  ASSERT_GT(result.tasks, 0u);

  heist::Runtime runtime(runtime_options(s));
  heist::sched::Scheduler& sched = heist::sched::Worker::current()->scheduler();
  ASSERT_EQ(sched.size(), s.workers);
  Replayed total;
  for (int i = 0; i < s.workers; ++i) {
    heist::sched::Worker& w = sched.worker(i);  // parked: no region runs
    const Replayed n = replay(logs[static_cast<std::size_t>(i)], w.spawn_machine().driver(), w.search_driver(),
                              "simulated worker " + std::to_string(i));
    total.spawns += n.spawns;
    total.steals += n.steals;
    total.chunks += n.chunks;
    total.backoffs += n.backoffs;
  }
  // The scenario exercises every kind of decision; with 2 workers every
  // simulated steal of this tree takes tasks (the root is public from its
  // spawn on), so the back-off is exercised by the 4-worker ones.
  EXPECT_GT(total.spawns, 0u);
  EXPECT_GT(total.steals, 0u);
  EXPECT_GT(total.chunks, 0u);
  if (s.workers > 2) {
    EXPECT_GT(total.backoffs, 0u);
  }
}

TEST_P(SameDecisions, RuntimeDecisionsReplayOnTheSimulatorsDrivers) {
  const Scenario s = GetParam();
  const heist::uts::UtsParams params = heist::uts::parse_uts_args(kTree);
  std::vector<DecisionLog> logs(static_cast<std::size_t>(s.workers));
  {
    heist::Runtime runtime(runtime_options(s));
    heist::sched::Scheduler& sched = heist::sched::Worker::current()->scheduler();
    for (int i = 0; i < s.workers; ++i) {
      sched.worker(i).spawn_machine().driver().record_to(&logs[static_cast<std::size_t>(i)]);
      sched.worker(i).search_driver().record_to(&logs[static_cast<std::size_t>(i)]);
    }
    g_params = &params;
    g_nodes.store(0);
    heist::finish([&] { heist::async(visit_task, heist::uts::make_root(params)); });
    EXPECT_EQ(g_nodes.load(), heist::uts::uts_count_sequential(params).nodes);
  }  // the workers have stopped: their logs are complete and ours to read

  const heist::sim::SimConfig config = sim_config(s);
  const heist::sim::Machine machine(config.machine);
  const heist::policy::Topology topology = heist::sim::topology_of(machine);
  Replayed total;
  for (int i = 0; i < s.workers; ++i) {
    SpawnDriver spawn(config.options, machine.workers());
    SearchDriver search(config.options, topology, heist::sim::search_setup(machine, i));
    const Replayed n = replay(logs[static_cast<std::size_t>(i)], spawn, search, "runtime worker " + std::to_string(i));
    total.spawns += n.spawns;
    total.steals += n.steals;
  }
  EXPECT_GT(total.spawns, 0u);
}

INSTANTIATE_TEST_SUITE_P(Uts, SameDecisions,
                         testing::Values(Scenario{2, heist::VictimSpec::Kind::random},
                                         Scenario{2, heist::VictimSpec::Kind::hvs},
                                         Scenario{4, heist::VictimSpec::Kind::random},
                                         Scenario{4, heist::VictimSpec::Kind::hvs}),
                         name_of);

}  // namespace
