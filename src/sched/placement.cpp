#include "sched/placement.hpp"

#include <array>

namespace heist::sched {

policy::Topology build_topology(const std::vector<RankSites>& ranks) {
  std::vector<std::array<int, policy::kLevels>> domains;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const int base = static_cast<int>(domains.size());
    for (const platform::WorkerSite& s : ranks[r].workers) {
      const int place = static_cast<int>(domains.size());
      domains.push_back({place, base + s.cache, base + s.numa, base + s.socket, static_cast<int>(r), ranks[r].node, 0});
    }
  }
  return policy::Topology::from_domains(std::move(domains));
}

}  // namespace heist::sched
