#include "sim/simulate.hpp"

#include <cmath>
#include <stdexcept>

#include "sim/engine.hpp"

namespace heist::sim {

// ---------------------------------------------------------------- small pieces

const char* to_string(BackoffModel b) noexcept { return b == BackoffModel::heist ? "heist" : "none"; }

void TaskCosts::validate() const {
  const auto check = [](double v, const char* what) {
    if (!std::isfinite(v) || v < 0 || v > 1e12)
      throw std::invalid_argument(std::string("task cost ") + what + " must be in [0, 1e12] ns");
  };
  check(inline_ns, "inline_ns");
  check(queued_ns, "queued_ns");
  check(sequential_ns, "sequential_ns");
  if (inline_ns == 0 && queued_ns == 0)
    throw std::invalid_argument("task costs are zero: give --task-ns, --costs FILE, or calibrate (--calibrate)");
}

policy::SearchSetup search_setup(const Machine& machine, int worker) noexcept {
  return {worker, machine.first_worker(machine.rank_of(worker)), machine.workers_per_rank()};
}

policy::Topology search_topology(const Machine& machine, const Options& options) {
  if (options.balance != BalanceMode::push) return topology_of(machine);
  // Rank 0's workers stand for every process's: the places of one process.
  policy::Topology whole = topology_of(machine);
  std::vector<std::array<int, policy::kLevels>> domains;
  for (int p = 0; p < machine.workers_per_rank(); ++p) {
    std::array<int, policy::kLevels> d{};
    for (int l = 0; l < policy::kLevels; ++l) d[static_cast<std::size_t>(l)] = whole.domain(p, static_cast<policy::Level>(l));
    domains.push_back(d);
  }
  return policy::Topology::from_domains(std::move(domains));
}

policy::SearchSetup search_setup(const Machine& machine, int worker, const Options& options) noexcept {
  if (options.balance != BalanceMode::push) return search_setup(machine, worker);
  const int local = worker - machine.first_worker(machine.rank_of(worker));
  return {local, 0, machine.workers_per_rank()};
}

double heist_backoff_ns(unsigned round, const platform::BackoffLimits& limits) noexcept {
  constexpr double kPauseNs = 20, kYieldNs = 1000, kTimerSlackNs = 50'000;
  const platform::BackoffStep step = platform::backoff_step(round, limits);
  if (step.spins > 0) return kPauseNs * static_cast<double>(step.spins);
  if (step.yield) return kYieldNs;
  return static_cast<double>(step.sleep_us) * 1000.0 + kTimerSlackNs;
}

std::uint64_t NqueensWorkload::subtree_nodes(const Task& b) noexcept {
  if (b.row == b.n) return 1;
  std::uint64_t nodes = 1;
  std::uint32_t free = ~(b.cols | b.diag_left | b.diag_right) & apps::nqueens::full_mask(b.n);
  while (free != 0) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    nodes += subtree_nodes(apps::nqueens::place(b, bit));
  }
  return nodes;
}

// ---------------------------------------------------------------- workloads

namespace {

int int_param(const nlohmann::json& params, const char* key, int min, int max) {
  if (!params.contains(key) || !params[key].is_number_integer())
    throw std::invalid_argument(std::string("missing integer parameter ") + key);
  const long long v = params[key].get<long long>();
  if (v < min || v > max)
    throw std::invalid_argument(std::string("--") + key + " must be in [" + std::to_string(min) + ", " +
                                std::to_string(max) + "] for the simulator");
  return static_cast<int>(v);
}

double number_param(const nlohmann::json& params, const char* key) {
  if (!params.contains(key) || !params[key].is_number())
    throw std::invalid_argument(std::string("missing numeric parameter ") + key);
  return params[key].get<double>();
}

}  // namespace

bool simulates(const std::string& app) noexcept {
  return app == "fib" || app == "nqueens" || app == "uts" || app == "bpc";
}

AnyWorkload make_workload(const std::string& app, const nlohmann::json& params) {
  if (app == "fib") {
    if (params.contains("style") && params["style"] != "spawn")
      throw std::invalid_argument("fib: the simulator models --style spawn (registered tasks) only");
    return FibWorkload(int_param(params, "n", 0, 92), int_param(params, "cutoff", 0, 92));
  }
  if (app == "nqueens") return NqueensWorkload(int_param(params, "n", 1, 20), int_param(params, "cutoff", 0, 20));
  if (app == "uts") {
    if (!params.contains("uts") || !params["uts"].is_string()) throw std::invalid_argument("uts: missing tree parameters");
    const std::string tree = params.contains("tree") ? params["tree"].get<std::string>() : std::string();
    return UtsWorkload(tree, uts::parse_uts_args(params["uts"].get<std::string>()));
  }
  if (app == "bpc") {
    const int depth = int_param(params, "depth", 1, 100'000'000);
    const int consumers = int_param(params, "consumers", 0, 1'000'000);
    const double consumer_us = number_param(params, "consumer_us");
    const double producer_us = number_param(params, "producer_us");
    if (consumer_us < 0 || producer_us < 0 || consumer_us > 1e6 || producer_us > 1e6)
      throw std::invalid_argument("bpc: task durations must be in [0, 1e6] us");
    return BpcWorkload(apps::bpc::BpcParams{static_cast<std::uint32_t>(depth), static_cast<std::uint32_t>(consumers),
                                            static_cast<std::uint32_t>(consumer_us * 1000.0 + 0.5),
                                            static_cast<std::uint32_t>(producer_us * 1000.0 + 0.5)});
  }
  throw std::invalid_argument("the simulator has no workload for app '" + app + "' (it simulates fib, nqueens, uts, bpc)");
}

SimResult simulate(const AnyWorkload& workload, const SimConfig& config) {
  return std::visit(
      [&](const auto& w) {
        using W = std::decay_t<decltype(w)>;
        return Engine<W>(w, config).run();
      },
      workload);
}

TreeTotals tree_totals(const AnyWorkload& workload) {
  return std::visit(
      [](const auto& w) {
        using W = std::decay_t<decltype(w)>;
        TreeTotals totals;
        std::vector<typename W::Cursor> stack;
        const auto visit = [&](const typename W::Task& t) {
          Work work;
          typename W::Cursor c = w.open(t, work);
          ++totals.tasks;
          totals.sequential_nodes += work.sequential_nodes;
          totals.busy_ns += work.busy_ns;
          if (!W::empty(c)) stack.push_back(c);
        };
        visit(w.root());
        typename W::Task child;
        while (!stack.empty()) {
          if (w.next(stack.back(), child)) visit(child);
          else stack.pop_back();
        }
        return totals;
      },
      workload);
}

std::uint64_t sequential_nodes_total(const AnyWorkload& workload) {
  return std::visit([](const auto& w) { return w.sequential_nodes_total(); }, workload);
}

}  // namespace heist::sim
