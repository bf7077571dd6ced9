// Reactive push balancing after Chameleon (PGAS-WS §3.2): ranks exchange
// their load (queued tasks); an overloaded rank pushes tasks to an
// underloaded one. Victims are chosen by Chameleon's sort-based pairing —
// sort the ranks by load, pair the most loaded with the least loaded, the
// second most with the second least, and so on — which spreads the pushes
// over many receivers instead of all overloaded ranks picking the single
// least loaded one. Pure logic: the runtime gathers the loads and moves the
// tasks; the simulator can plan with the same function.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace heist::policy {

struct RankLoad {
  int rank;
  std::uint32_t tasks;
};

// When a pair is imbalanced enough to move tasks (Chameleon's knobs: an
// absolute and a relative imbalance threshold, a minimum local queue before
// migrating, a cap on tasks moved at once, and the share of the difference
// to move).
struct PushThresholds {
  std::uint32_t min_local_tasks = 2;  // the sender holds at least this many tasks
  std::uint32_t min_imbalance = 2;    // from - to, in tasks, at least this
  double min_imbalance_ratio = 0.1;   // (from - to) / from at least this
  double share = 0.5;                 // move this share of (from - to) (0.5 evens the pair out)
  std::uint32_t max_tasks = 64;       // at most this many tasks per transfer
};

struct PushTransfer {
  int from;
  int to;
  std::uint32_t tasks;  // >= 1
  bool operator==(const PushTransfer&) const = default;
};

// Sort-based pairing: loads sorted by tasks, descending (ties: lower rank
// first, so every rank that sees the same loads plans the same transfers);
// the i-th most loaded rank is paired with the i-th least loaded, and a pair
// gets a transfer of clamp(floor((from - to) * share), 1, max_tasks) tasks if
// it passes every threshold. At most one transfer per rank.
std::vector<PushTransfer> plan_push(std::span<const RankLoad> loads, const PushThresholds& thresholds);

}  // namespace heist::policy
