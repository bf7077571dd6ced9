#include "policy/locality_plan.hpp"

#include <algorithm>
#include <utility>

namespace heist::policy {

LocalityPlan plan_locality(const Options& o, const ChunkPolicy& chunk, bool same_node_peers, bool other_nodes) {
  LocalityPlan plan;
  plan.success_only = o.victim.kind == VictimSpec::Kind::success_only && o.balance == BalanceMode::steal;
  plan.push = o.balance == BalanceMode::push;
  plan.node_thieves = !plan.push && same_node_peers;
  plan.machine_thieves = !plan.push && !plan.success_only && other_nodes;
  plan.one_sided_thieves = plan.node_thieves || plan.machine_thieves;
  if (o.protocol == StealProtocolKind::sws) {
    for (const auto& [present, level] : {std::pair{plan.node_thieves, Level::node},
                                         std::pair{plan.machine_thieves, Level::machine}}) {
      if (!present) continue;
      const std::uint32_t k = chunk.at(level);
      if (k == ChunkSpec::kHalf) {
        plan.sws_offer_cap = 0;
        break;
      }
      plan.sws_offer_cap = std::max(plan.sws_offer_cap, 2 * k);
    }
  }
  plan.push_thresholds = {o.push.min_tasks, o.push.min_imbalance, o.push.min_ratio, o.push.share, o.push.max_tasks};
  return plan;
}

std::uint32_t answer_slots_for(const Options& o, std::size_t ranks, std::size_t stride) noexcept {
  const bool answers = o.victim.kind == VictimSpec::Kind::success_only && o.balance == BalanceMode::steal && ranks > 1;
  const std::uint32_t most = o.answer_max_tasks > 0 ? o.answer_max_tasks : answer_max_auto(ranks);
  return answers ? std::min(answer_capacity(ranks, stride), most) : 0;
}

}  // namespace heist::policy
