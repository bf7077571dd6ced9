// sim.same_actions across ranks (run under mpirun, 2 ranks x 1 worker):
// each rank runs fib with its worker's spawn machine and search loops
// recorded — paced runs, whose slow path reads the clock and polls — under
// the default policy and help-first, with one-sided stealing, success-only
// requests and push balancing; then replays its record through a
// SpawnMachine and SearchLoops over a SearchDriver made as the simulator
// makes them for worker `rank` of 2 ranks x 1 worker, which must give every
// recorded answer (tests/sim/same_actions_replay.hpp). Exit 0 when every
// configuration replays on every rank.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "heist/heist.hpp"
#include "policy/decision_log.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "sim/machine.hpp"
#include "sim/simulate.hpp"
#include "same_actions_fib.hpp"
#include "same_actions_replay.hpp"

namespace {

using same_actions::fib_task;

struct Config {
  const char* name;
  heist::SpawnPolicy policy;
  heist::VictimSpec::Kind victim;
  heist::BalanceMode balance;
};

}  // namespace

int main() {
  const Config configs[] = {
      {"bounded/steal", heist::SpawnPolicy::bounded, heist::VictimSpec::Kind::hvs, heist::BalanceMode::steal},
      {"help-first/steal", heist::SpawnPolicy::help_first, heist::VictimSpec::Kind::hvs, heist::BalanceMode::steal},
      {"bounded/success-only", heist::SpawnPolicy::bounded, heist::VictimSpec::Kind::success_only,
       heist::BalanceMode::steal},
      {"help-first/push", heist::SpawnPolicy::help_first, heist::VictimSpec::Kind::hvs, heist::BalanceMode::push},
  };
  int passed = 0, failed = 0;
  for (const Config& c : configs) {
    heist::Options o;
    o.workers = 1;
    o.policy = c.policy;
    o.victim.kind = c.victim;
    o.balance = c.balance;
    o.seed = 5;
    o.hierarchy.workers_per_socket = 1;  // as the simulated machine below: a socket per process
    heist::policy::DecisionLog log;
    int rank = 0, ranks = 1;
    std::uint64_t result = 0;
    {
      heist::Runtime rt(o);
      rank = rt.rank();
      ranks = rt.ranks();
      heist::sched::Worker& w = heist::sched::Worker::current()->scheduler().worker(0);
      w.spawn_machine().record_to(&log);
      w.search_driver().record_to(&log);
      rt.root([&] {
        heist::spawn(fib_task, 22, &result);
        heist::wait();
      });
    }  // the Runtime's end stops the workers; the log outlives it
    if (ranks != 2) {
      std::fprintf(stderr, "same_actions_ranks: run it on 2 ranks (mpirun -n 2)\n");
      return 2;
    }
    // The simulator's 2 ranks x 1 worker on one node, as mpirun placed them.
    heist::sim::MachineSpec spec;
    spec.cores_per_socket = 2;
    spec.sockets = 1;
    spec.nodes = 1;
    spec.ranks_per_node = 2;
    const heist::sim::Machine machine(spec);
    heist::Options sim_options = o;
    const heist::policy::Topology topology = heist::sim::search_topology(machine, sim_options);
    heist::policy::SpawnMachine spawn(sim_options, machine.workers_per_rank(), machine.ranks());
    heist::policy::SearchDriver search(sim_options, topology, heist::sim::search_setup(machine, rank, sim_options));
    const std::string who = std::string(c.name) + ", rank " + std::to_string(rank);
    const same_actions::Replayed r = same_actions::replay(log, spawn, search);
    // Rank 0 runs the root, so it always plans; rank 1 plans only what it
    // steals, and fib can end before its first steal lands — then its record
    // is search loops alone, which must still replay.
    const bool ok = r.mismatch.empty() && !log.entries.empty() && (rank != 0 || (result == 17711 && r.plans > 0));
    if (ok) {
      ++passed;
      std::printf("%s: %zu plans, %zu searches, %zu records replay\n", who.c_str(), r.plans, r.searches,
                  log.entries.size());
    } else {
      ++failed;
      std::printf("%s: FAILED: %s (fib %llu, %zu plans)\n", who.c_str(),
                  r.mismatch.empty() ? "wrong result" : r.mismatch.c_str(), static_cast<unsigned long long>(result),
                  r.plans);
    }
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
