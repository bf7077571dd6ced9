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

#include <algorithm>
#include <cstddef>
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

// Success-only answers land in a slot area that each process keeps for
// each other rank in its window (rma/answer_slots.hpp): the tasks an area
// can hold, from the ranks and the bytes a task takes there
// (`entry_bytes`), so that the areas of all ranks together take at most
// kAnswerAreaBytes and a window stays small at thousands of ranks (1,000
// ranks of 128-byte slots: 16 tasks an area); at least one.
inline constexpr std::size_t kAnswerAreaBytes = std::size_t{2} << 20;
constexpr std::uint32_t answer_capacity(std::size_t ranks, std::size_t entry_bytes) noexcept {
  const std::size_t others = ranks > 1 ? ranks - 1 : 1;
  const std::size_t fits = kAnswerAreaBytes / (others * (entry_bytes > 0 ? entry_bytes : 1));
  return static_cast<std::uint32_t>(std::clamp<std::size_t>(fits, 1, 0xFFFFFFFFu));
}

// A poll reads the answer words of the ranks its process has requests
// open at: the words from the lowest to the highest such rank in one read
// when that span is at most this many words, else one read each.
inline constexpr std::size_t kAnswerWordsAtOnce = 512;
constexpr bool answer_words_at_once(int lowest, int highest) noexcept {
  return static_cast<std::size_t>(highest - lowest) < kAnswerWordsAtOnce;
}

// --answer-max-tasks auto. A thief process can have a request open at
// every other rank at once, so the answers to all of them together stay
// near kAnswerBudgetTasks: 128 / (ranks - 1) tasks each, at least
// kAnswerMinTasks. Large answers pay a round trip for many tasks where
// few ranks ask; where many ask, they oversupply the thief process, which
// passes the surplus on (docs/design/work-between-processes.md).
inline constexpr std::uint32_t kAnswerBudgetTasks = 128;
inline constexpr std::uint32_t kAnswerMinTasks = 8;
constexpr std::uint32_t answer_max_auto(std::size_t ranks) noexcept {
  const std::size_t others = ranks > 1 ? ranks - 1 : 1;
  return std::max<std::uint32_t>(kAnswerMinTasks, static_cast<std::uint32_t>(kAnswerBudgetTasks / others));
}

// Tasks per answer area, and per answer, for a run with these options:
// answer_capacity within --answer-max-tasks (or answer_max_auto), or 0 if
// it sends no success-only answers (then its window has no answer areas).
std::uint32_t answer_slots_for(const Options& options, std::size_t ranks, std::size_t stride) noexcept;

// How far another rank is: on this node, or across the machine.
constexpr Level rank_level(bool same_node) noexcept { return same_node ? Level::node : Level::machine; }

}  // namespace heist::policy
