// Topology (the policy layer of docs/architecture.md): the machine as the victim and chunk policies see
// it — places (workers) grouped into nested domains, one partition per level:
//
//   worker ⊂ cache ⊂ numa ⊂ socket ⊂ process ⊂ node ⊂ machine
//
// Pure data: no hwloc, no MPI. Discovery (platform/, rma/) and the simulator
// only *produce* a Topology; the runtime and the simulator then ask it the
// same questions. A level that partitions the places exactly like the level
// below it (e.g. no cache groups were found, or one process per node) is
// "absent": it adds nothing to the hierarchy (level_present()).
//
// Departure from a real machine: the order of levels is fixed, so a process
// smaller than a socket (one rank per core) has trivial cache/NUMA/socket
// levels and its ranks meet at the node level.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace heist::policy {

enum class Level : std::uint8_t { worker = 0, cache, numa, socket, process, node, machine };
inline constexpr int kLevels = 7;

const char* to_string(Level level) noexcept;
constexpr int index(Level level) noexcept { return static_cast<int>(level); }
constexpr Level level_at(int index) noexcept { return static_cast<Level>(index); }

// A machine's places (workers) numbered 0..places()-1. In the runtime a place
// is rank * workers_per_rank + local worker id; in the simulator, every
// simulated worker. Each place has a domain id at every level; domains nest
// (same domain at level L implies same domain at every level above L); the
// machine level has one domain (id 0).
class Topology {
 public:
  struct Fanout {  // a uniform machine, counts bottom-up
    int workers_per_cache = 1, caches_per_numa = 1, numas_per_socket = 1, sockets_per_process = 1,
        processes_per_node = 1, nodes = 1;
  };
  // Place p's domain at level L is p / (places per domain at L): ranks,
  // nodes and every inner domain are numbered 0, 1, ... in place order.
  // Throws std::invalid_argument if a count is < 1.
  static Topology uniform(const Fanout& fanout);
  // Explicit: domains[place][level]. Throws std::invalid_argument if they do
  // not nest, if two places share a worker-level id, or if a machine-level id
  // is not 0.
  static Topology from_domains(std::vector<std::array<int, kLevels>> domains);

  int places() const noexcept { return static_cast<int>(domains_.size()); }
  int domain(int place, Level level) const noexcept {
    return domains_[static_cast<std::size_t>(place)][static_cast<std::size_t>(index(level))];
  }
  // Places of that domain, ascending; empty for an id no place has.
  const std::vector<int>& members(Level level, int domain) const;
  // Number of domains at that level.
  int domain_count(Level level) const noexcept {
    return static_cast<int>(members_[static_cast<std::size_t>(index(level))].size());
  }
  // Lowest level where a and b share a domain (worker iff a == b).
  Level common_level(int a, int b) const noexcept;
  // Its domain at Level::process (the MPI rank in the runtime).
  int rank_of(int place) const noexcept { return domain(place, Level::process); }
  // Some domain at this level has more than one place and the level
  // partitions the places differently from the level below.
  bool level_present(Level level) const noexcept;
  // Multi-line summary for `heist info`: each present level, its domain
  // count and sizes, and which ranks share a node.
  std::string describe() const;

 private:
  explicit Topology(std::vector<std::array<int, kLevels>> domains);

  std::vector<std::array<int, kLevels>> domains_;                 // [place][level]
  std::array<std::map<int, std::vector<int>>, kLevels> members_;  // [level][domain id] -> places
};

}  // namespace heist::policy
