// Locality set-up between processes (the policy layer of docs/architecture.md): which balancing runs,
// who may steal one-sidedly from a process's public queue, how large an SWS
// offer may be, and the push thresholds. Pure: computed once from the
// options and the shape of the machine, by the runtime (rma::Distributor)
// and by the simulator (sim/) alike.
//
//   success-only  (HabaneroUPC++) across nodes a thief never steals
//                 one-sidedly: it asks a rank that advertises work;
//   push          (Chameleon, PGAS-WS §3.2) no one-sided steals between
//                 processes at all: overloaded ranks push;
//   SWS offer cap a thief's block is block i of the steal-half sequence of
//                 the offer (at most half of it), so offering at most 2k
//                 tasks keeps every block within k when each remote level
//                 asks for at most k (none when some level steals half).
#pragma once

#include <cstdint>

#include "heist/options.hpp"
#include "policy/chunk_policy.hpp"
#include "policy/push_balance.hpp"

namespace heist::policy {

struct LocalityPlan {
  bool success_only = false;        // success-only victims with steal balancing
  bool push = false;                // --balance push
  bool node_thieves = false;        // a rank of this node may steal one-sidedly from this process
  bool machine_thieves = false;     // a rank of another node may
  bool one_sided_thieves = false;   // either: the process watches its public queue
  std::uint32_t sws_offer_cap = 0;  // SWS: tasks per offer, at most (0: no cap)
  PushThresholds push_thresholds;
};

// same_node_peers: another rank shares this process's node; other_nodes:
// some rank is on another node.
LocalityPlan plan_locality(const Options& options, const ChunkPolicy& chunk, bool same_node_peers,
                           bool other_nodes);

// How far another rank is: on this node, or across the machine.
constexpr Level rank_level(bool same_node) noexcept { return same_node ? Level::node : Level::machine; }

}  // namespace heist::policy
