#include "sim/machine.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace heist::sim {

const char* to_string(Hop hop) noexcept {
  switch (hop) {
    case Hop::self: return "self";
    case Hop::socket: return "socket";
    case Hop::node: return "node";
    case Hop::network: return "network";
  }
  return "?";
}

void MachineSpec::validate() const {
  const auto positive = [](int v, const char* what) {
    if (v < 1) throw std::invalid_argument(std::string(what) + " must be at least 1");
  };
  positive(cores_per_socket, "--cores-per-socket");
  positive(sockets, "--sockets");
  positive(nodes, "--nodes");
  positive(ranks_per_node, "--ranks-per-node");
  if (static_cast<long long>(cores_per_socket) * sockets * nodes > 10'000'000)
    throw std::invalid_argument("the machine has more than 10^7 cores");
  if (cores_per_node() % ranks_per_node != 0)
    throw std::invalid_argument("--ranks-per-node " + std::to_string(ranks_per_node) + " does not divide the " +
                                std::to_string(cores_per_node()) + " cores of a node");
  for (int h = 0; h < kHops; ++h) {
    const char* name = to_string(static_cast<Hop>(h));
    if (!(latency_us[h] > 0.0) || !std::isfinite(latency_us[h]) || latency_us[h] > 1e6)
      throw std::invalid_argument(std::string("--latency-us: the ") + name + " latency must be in (0, 1e6] us");
    if (!(bandwidth_gbs[h] > 0.0) || !std::isfinite(bandwidth_gbs[h]))
      throw std::invalid_argument(std::string("--bandwidth-gbs: the ") + name + " bandwidth must be positive");
  }
  if (!(loaded_slowdown >= 1.0 && loaded_slowdown <= 100.0))
    throw std::invalid_argument("--loaded-slowdown must be in [1, 100] (a core's time with all cores busy over its time alone)");
}

std::string MachineSpec::describe() const {
  return std::to_string(nodes) + " node(s) x " + std::to_string(sockets) + " socket(s) x " +
         std::to_string(cores_per_socket) + " core(s), " + std::to_string(ranks_per_node) + " rank(s)/node of " +
         std::to_string(workers_per_rank()) + " worker(s)";
}

Machine::Machine(const MachineSpec& spec) : spec_(spec) {
  spec_.validate();
  workers_ = spec_.workers();
  ranks_ = spec_.ranks();
  per_rank_ = spec_.workers_per_rank();
  per_node_ = spec_.cores_per_node();
  for (int h = 0; h < kHops; ++h) {
    latency_ns_[static_cast<std::size_t>(h)] = spec_.latency_us[static_cast<std::size_t>(h)] * 1000.0;
    bytes_per_ns_[static_cast<std::size_t>(h)] = spec_.bandwidth_gbs[static_cast<std::size_t>(h)];
  }
  min_one_way_ns_ = std::numeric_limits<double>::infinity();
  const auto consider = [&](Hop h) { min_one_way_ns_ = std::min(min_one_way_ns_, latency_ns(h) / 2); };
  if (spec_.cores_per_socket > 1) consider(Hop::socket);
  if (spec_.sockets > 1) consider(Hop::node);
  if (spec_.nodes > 1) consider(Hop::network);
  compute_factor_.resize(static_cast<std::size_t>(per_node_) + 1, 1.0);
  for (int b = 2; b <= per_node_; ++b)
    compute_factor_[static_cast<std::size_t>(b)] = 1.0 + (spec_.loaded_slowdown - 1.0) * (b - 1) / (per_node_ - 1);
}

policy::Topology topology_of(const Machine& machine) {
  const MachineSpec& spec = machine.spec();
  const bool sockets_in_ranks = machine.workers_per_rank() % spec.cores_per_socket == 0;
  std::vector<std::array<int, policy::kLevels>> domains(static_cast<std::size_t>(machine.workers()));
  for (int p = 0; p < machine.workers(); ++p) {
    const int rank = machine.rank_of(p);
    domains[static_cast<std::size_t>(p)] = {p, p, p, sockets_in_ranks ? machine.socket_of(p) : rank, rank,
                                            machine.node_of(p), 0};
  }
  return policy::Topology::from_domains(std::move(domains));
}

}  // namespace heist::sim
