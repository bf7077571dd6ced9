#include "policy/topology.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace heist::policy {

namespace {
const std::vector<int> kNoPlaces;

std::string where(int place, Level level) {
  return "place " + std::to_string(place) + ", level " + to_string(level);
}
}  // namespace

const char* to_string(Level level) noexcept {
  switch (level) {
    case Level::worker: return "worker";
    case Level::cache: return "cache";
    case Level::numa: return "numa";
    case Level::socket: return "socket";
    case Level::process: return "process";
    case Level::node: return "node";
    case Level::machine: return "machine";
  }
  return "?";
}

Topology Topology::uniform(const Fanout& f) {
  const int counts[kLevels - 1] = {f.workers_per_cache,   f.caches_per_numa,    f.numas_per_socket,
                                   f.sockets_per_process, f.processes_per_node, f.nodes};
  long long places = 1;
  for (int c : counts) {
    if (c < 1) throw std::invalid_argument("Topology::uniform: every fanout count must be at least 1");
    places *= c;
    if (places > (1 << 24)) throw std::invalid_argument("Topology::uniform: more than 2^24 places");
  }
  // span[L]: places per domain at level L.
  std::array<int, kLevels> span{};
  span[0] = 1;
  for (int l = 1; l < kLevels; ++l) span[static_cast<std::size_t>(l)] = span[static_cast<std::size_t>(l - 1)] * counts[l - 1];
  std::vector<std::array<int, kLevels>> domains(static_cast<std::size_t>(places));
  for (int p = 0; p < static_cast<int>(places); ++p)
    for (int l = 0; l < kLevels; ++l)
      domains[static_cast<std::size_t>(p)][static_cast<std::size_t>(l)] = p / span[static_cast<std::size_t>(l)];
  return Topology(std::move(domains));
}

Topology Topology::from_domains(std::vector<std::array<int, kLevels>> domains) {
  if (domains.empty()) throw std::invalid_argument("Topology: no places");
  std::map<int, int> worker_ids;
  for (int p = 0; p < static_cast<int>(domains.size()); ++p) {
    const auto& d = domains[static_cast<std::size_t>(p)];
    if (d[kLevels - 1] != 0) throw std::invalid_argument("Topology: " + where(p, Level::machine) + " is not domain 0");
    if (!worker_ids.emplace(d[0], p).second)
      throw std::invalid_argument("Topology: places " + std::to_string(worker_ids[d[0]]) + " and " +
                                  std::to_string(p) + " share a worker-level domain");
  }
  // Nesting: a domain at level L lies inside one domain at level L + 1.
  for (int l = 0; l + 1 < kLevels; ++l) {
    std::map<int, std::pair<int, int>> parent;  // domain at l -> (domain at l + 1, first place seen)
    for (int p = 0; p < static_cast<int>(domains.size()); ++p) {
      const auto& d = domains[static_cast<std::size_t>(p)];
      const int here = d[static_cast<std::size_t>(l)];
      const int up = d[static_cast<std::size_t>(l + 1)];
      const auto [it, fresh] = parent.emplace(here, std::pair{up, p});
      if (!fresh && it->second.first != up)
        throw std::invalid_argument("Topology: domains do not nest: places " + std::to_string(it->second.second) +
                                    " and " + std::to_string(p) + " share their " + to_string(level_at(l)) +
                                    " domain but not their " + to_string(level_at(l + 1)) + " domain");
    }
  }
  return Topology(std::move(domains));
}

Topology::Topology(std::vector<std::array<int, kLevels>> domains) : domains_(std::move(domains)) {
  for (int p = 0; p < places(); ++p)
    for (int l = 0; l < kLevels; ++l)
      members_[static_cast<std::size_t>(l)][domains_[static_cast<std::size_t>(p)][static_cast<std::size_t>(l)]]
          .push_back(p);  // places visited in ascending order: member lists are sorted
}

const std::vector<int>& Topology::members(Level level, int domain) const {
  const auto& at = members_[static_cast<std::size_t>(index(level))];
  const auto it = at.find(domain);
  return it == at.end() ? kNoPlaces : it->second;
}

Level Topology::common_level(int a, int b) const noexcept {
  const auto& da = domains_[static_cast<std::size_t>(a)];
  const auto& db = domains_[static_cast<std::size_t>(b)];
  for (int l = 0; l < kLevels - 1; ++l)
    if (da[static_cast<std::size_t>(l)] == db[static_cast<std::size_t>(l)]) return level_at(l);
  return Level::machine;
}

bool Topology::level_present(Level level) const noexcept {
  // Nested partitions: the level differs from the one below iff it has fewer
  // domains, and then some domain holds more than one place.
  if (level == Level::worker) return false;
  return domain_count(level) < domain_count(level_at(index(level) - 1));
}

std::string Topology::describe() const {
  std::ostringstream out;
  out << places() << (places() == 1 ? " place" : " places") << " (workers), " << domain_count(Level::process)
      << (domain_count(Level::process) == 1 ? " process" : " processes") << ", " << domain_count(Level::node)
      << (domain_count(Level::node) == 1 ? " node" : " nodes") << "\n";
  for (int l = kLevels - 1; l >= 1; --l) {
    const Level level = level_at(l);
    const auto& domains = members_[static_cast<std::size_t>(l)];
    std::size_t smallest = places(), largest = 0;
    for (const auto& [id, places_of] : domains) {
      smallest = std::min(smallest, places_of.size());
      largest = std::max(largest, places_of.size());
    }
    out << "  " << to_string(level) << ": " << domains.size() << (domains.size() == 1 ? " domain" : " domains")
        << " of " << smallest;
    if (largest != smallest) out << ".." << largest;
    out << (largest == 1 ? " place" : " places");
    if (!level_present(level)) out << " (no grouping: same as " << to_string(level_at(l - 1)) << ")";
    out << "\n";
  }
  if (domain_count(Level::node) > 1 && domain_count(Level::node) <= 64) {
    for (const auto& [node, places_of] : members_[static_cast<std::size_t>(index(Level::node))]) {
      out << "  node " << node << ": ranks";
      int last = -1;
      for (int p : places_of)
        if (rank_of(p) != last) out << " " << (last = rank_of(p));
      out << "\n";
    }
  }
  return out.str();
}

}  // namespace heist::policy
