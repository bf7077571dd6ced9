// The simulated machine (the sim layer of docs/architecture.md): cores grouped into sockets, sockets
// into nodes, and the heist processes (ranks) laid over them — each rank a
// contiguous block of cores of one node. Workers are numbered like the
// runtime's places: rank * workers_per_rank + local worker id, which here is
// also node * cores_per_node + socket * cores_per_socket + core.
//
// Costs: one blocking remote operation (a round trip) between two cores
// costs latency(hop), a transfer of B bytes B / bandwidth(hop) on top; hop is
// the physical distance of the two cores (same socket, other socket of the
// node, other node). Operations of a process on its own window cost
// latency(self). Defaults (HotSLAW §5, Figures 4 and 5, IBM iDataPlex, UPC):
// an empty steal costs about 2 us inside a socket, 3.8 us across sockets and
// 36 us across nodes; that steal is Scioto's lock-based one, i.e. our SDC
// with 5 blocking round trips (SWS §3), so one round trip costs 1/5 of
// those: 0.4, 0.76 and 7.2 us. Bandwidths: Figure 5's large-transfer
// plateau, inter-node (QDR InfiniBand) about 3 GB/s and intra-node 1.5x
// that. latency(self), 0.1 us, is an MPI atomic on a process's own window
// over shared memory (the stealbench measurement in docs/results/stealbench.md
// puts one blocking operation between two ranks of this machine at
// 0.15-0.2 us).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "policy/topology.hpp"

namespace heist::sim {

// Physical distance between two cores (what a communication costs; the
// policies see the machine as a policy::Topology, topology_of() below).
enum class Hop : unsigned char { self = 0, socket = 1, node = 2, network = 3 };
inline constexpr int kHops = 4;
const char* to_string(Hop hop) noexcept;

struct MachineSpec {
  int cores_per_socket = 8;
  int sockets = 2;         // per node
  int nodes = 1;
  int ranks_per_node = 1;  // heist processes per node; each gets cores_per_node / ranks_per_node cores
  // Per hop (self, socket, node, network): one blocking round trip, in microseconds.
  std::array<double, kHops> latency_us{0.1, 0.4, 0.76, 7.2};
  // Per hop: bytes per nanosecond (= GB/s) of a transfer.
  std::array<double, kHops> bandwidth_gbs{10.0, 4.5, 4.5, 3.0};
  // A core's compute time when every core of its node computes, over its
  // time alone (1: cores do not slow each other). Measured, not guessed:
  // `heist sim --calibrate` runs one one-worker copy of the app per usable
  // CPU at once (a --costs file carries the factor), tools/core_throughput.sh
  // N pinned copies (docs/results/many-cores.md). With b of the node's C
  // cores running tasks a task costs 1 + (loaded_slowdown - 1)(b - 1)/(C - 1)
  // times its calibrated cost.
  double loaded_slowdown = 1.0;

  int cores_per_node() const noexcept { return cores_per_socket * sockets; }
  int workers() const noexcept { return cores_per_node() * nodes; }
  int ranks() const noexcept { return ranks_per_node * nodes; }
  int workers_per_rank() const noexcept { return cores_per_node() / ranks_per_node; }
  // Throws std::invalid_argument naming the offending field.
  void validate() const;
  std::string describe() const;  // e.g. "4 nodes x 2 sockets x 8 cores, 1 rank/node (16 workers each)"
};

class Machine {
 public:
  explicit Machine(const MachineSpec& spec);  // validates

  const MachineSpec& spec() const noexcept { return spec_; }
  int workers() const noexcept { return workers_; }
  int ranks() const noexcept { return ranks_; }
  int workers_per_rank() const noexcept { return per_rank_; }

  int rank_of(int worker) const noexcept { return worker / per_rank_; }
  int node_of(int worker) const noexcept { return worker / per_node_; }
  int socket_of(int worker) const noexcept { return worker / spec_.cores_per_socket; }  // machine-wide socket id
  int first_worker(int rank) const noexcept { return rank * per_rank_; }

  Hop hop(int a, int b) const noexcept {
    if (a == b) return Hop::self;
    if (socket_of(a) == socket_of(b)) return Hop::socket;
    return node_of(a) == node_of(b) ? Hop::node : Hop::network;
  }
  // A thief's distance to a rank's window: to the rank's first core (where
  // its memory is); a rank's own window is Hop::self.
  Hop hop_to_rank(int thief, int rank) const noexcept {
    return rank_of(thief) == rank ? Hop::self : hop(thief, first_worker(rank));
  }

  double latency_ns(Hop h) const noexcept { return latency_ns_[static_cast<int>(h)]; }
  double transfer_ns(Hop h, std::size_t bytes) const noexcept {
    return static_cast<double>(bytes) / bytes_per_ns_[static_cast<int>(h)];
  }
  // Half the smallest round trip between two different cores of this
  // machine: no interaction reaches another worker sooner (the engine's
  // lookahead). Infinite on a one-worker machine.
  double min_one_way_ns() const noexcept { return min_one_way_ns_; }
  // What a task's calibrated cost is multiplied by while `busy` cores of its
  // node run tasks (MachineSpec::loaded_slowdown; exactly 1 without one).
  double compute_factor(int busy) const noexcept {
    return compute_factor_[static_cast<std::size_t>(std::clamp(busy, 1, per_node_))];
  }

 private:
  MachineSpec spec_;
  int workers_, ranks_, per_rank_, per_node_;
  std::array<double, kHops> latency_ns_{};
  std::array<double, kHops> bytes_per_ns_{};
  double min_one_way_ns_;
  std::vector<double> compute_factor_;  // by busy cores of a node, 0..cores_per_node
};

// The machine as the victim and chunk policies see it: places are the
// workers; socket, process (rank) and node domains as laid out above. A rank
// smaller than a socket makes the socket level trivial (the Topology's levels
// nest in a fixed order: policy/topology.hpp), so its ranks meet at the node
// level there, while the latency model still knows the physical sockets.
policy::Topology topology_of(const Machine& machine);

}  // namespace heist::sim
