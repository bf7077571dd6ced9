#include "policy/push_balance.hpp"

#include <algorithm>
#include <cmath>

namespace heist::policy {

std::vector<PushTransfer> plan_push(std::span<const RankLoad> loads, const PushThresholds& t) {
  std::vector<RankLoad> sorted(loads.begin(), loads.end());
  std::sort(sorted.begin(), sorted.end(), [](const RankLoad& a, const RankLoad& b) {
    return a.tasks != b.tasks ? a.tasks > b.tasks : a.rank < b.rank;
  });
  std::vector<PushTransfer> plan;
  const std::size_t n = sorted.size();
  for (std::size_t i = 0; i < n / 2; ++i) {
    const RankLoad& from = sorted[i];
    const RankLoad& to = sorted[n - 1 - i];
    if (from.tasks < t.min_local_tasks || from.tasks <= to.tasks) continue;
    const std::uint32_t diff = from.tasks - to.tasks;
    if (diff < t.min_imbalance) continue;
    if (static_cast<double>(diff) < t.min_imbalance_ratio * static_cast<double>(from.tasks)) continue;
    const auto moved = static_cast<std::uint32_t>(std::floor(static_cast<double>(diff) * t.share));
    plan.push_back({from.rank, to.rank, std::clamp<std::uint32_t>(moved, 1, std::max<std::uint32_t>(1, t.max_tasks))});
  }
  return plan;
}

}  // namespace heist::policy
