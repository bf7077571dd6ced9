// The simulator's entry points: build a workload from an app's name and its
// parameters (the JSON `heist bench <app>` reports as "params"), and run it.
#pragma once

#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "policy/search_driver.hpp"
#include "sim/machine.hpp"
#include "sim/sim_config.hpp"
#include "sim/workloads.hpp"

namespace heist::sim {

using AnyWorkload = std::variant<FibWorkload, NqueensWorkload, UtsWorkload, BpcWorkload>;

// Apps the simulator can generate: fib, nqueens, uts, bpc.
bool simulates(const std::string& app) noexcept;

// Throws std::invalid_argument for an app it cannot simulate or parameters
// it cannot honour (say which).
AnyWorkload make_workload(const std::string& app, const nlohmann::json& params);

// Runs one simulation. Deterministic: the same workload and config (seed
// included) give the same result, bit for bit.
SimResult simulate(const AnyWorkload& workload, const SimConfig& config);

// Where simulated worker `worker` searches: its place in topology_of(machine)
// and its process's. The engine makes each worker's policy::SearchDriver
// from this (and its policy::SpawnMachine from the options alone), so a test
// can make the very drivers a simulated worker runs.
policy::SearchSetup search_setup(const Machine& machine, int worker) noexcept;
// The same under the run's options: with --balance push tasks move between
// processes by push only, and a worker searches its own process alone
// (sched::Scheduler::set_topology): its place in one process's topology.
policy::Topology search_topology(const Machine& machine, const Options& options);
policy::SearchSetup search_setup(const Machine& machine, int worker, const Options& options) noexcept;

// Totals of the task tree, walked sequentially (calibration).
struct TreeTotals {
  std::uint64_t tasks = 0;
  std::uint64_t sequential_nodes = 0;  // sequential kernel nodes run inside tasks (below a cutoff)
  double busy_ns = 0;                  // fixed busy time of all tasks (BPC)
};
TreeTotals tree_totals(const AnyWorkload& workload);

// Nodes of the app's sequential kernel in the whole computation (fib calls,
// nqueens placements; 0 when the app has no sequential kernel distinct from
// its tasks): the denominator of TaskCosts::sequential_ns in calibration.
std::uint64_t sequential_nodes_total(const AnyWorkload& workload);

}  // namespace heist::sim
