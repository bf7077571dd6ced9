// The data SpawnMachine (spawn_machine.hpp) takes and answers: what an
// executor observed, and what it must do, in order. Plain values, so a
// DecisionLog can record them and a test compare two executors' records.
#pragma once

#include <cstdint>

#include "policy/spawn_policy.hpp"

namespace heist::policy {

// A spawn left the fast path.
struct SpawnEntry {
  bool paced = false;        // a distributed region is on: the slow path polls when due and paces its grants
  double now_ns = 0;         // paced only
  double last_poll_ns = 0;   // paced only
  bool seeding = false;      // Runtime::pool's seed body at its own level: its spawns are the pool's
                             // work, queued without asking the policy (after the poll that is due)
};
struct SpawnEntryStep {
  bool poll = false;        // poll the process balancer first, then observe the facts
  bool queue_seed = false;  // queue the child; nothing else
  friend bool operator==(const SpawnEntryStep&, const SpawnEntryStep&) = default;
};

// Which SpawnFacts the decision reads beyond the deque's and the frame's:
// the executor fills these, and leaves the others at their defaults.
struct FactsWanted {
  bool idle_workers = false;   // the process's searching workers
  bool inline_budget = false;  // the stack's room for inline levels
  bool expose = false;         // can_expose, many_workers
  bool inlined = false;        // the worker's count of inline spawns
};

// What the decision needs besides the facts.
struct SpawnAsk {
  bool paced = false;
  double now_ns = 0;    // paced only
  bool fenced = false;  // the spawning frame is fenced: no inline credits
};

enum class Publish : std::uint8_t { none, one, half };

// The answer, applied in field order.
struct SpawnPlan {
  bool release = false;  // publish half of the private tasks first (SpawnStep::release)
  bool reroot = false;   // the spawning frame's generations restart (SpawnStep::reroot)
  SpawnAction action = SpawnAction::queue;
  std::int64_t credits = 0;      // run_inline: the new grant of fast-path spawns (0: none)
  std::int64_t free_levels = 0;  // run_inline: levels a body's Context may inline uncounted (0: none)
  Publish publish = Publish::none;  // queued: after its push, publish it alone or with half of the private tasks
  friend bool operator==(const SpawnPlan&, const SpawnPlan&) = default;
};

// A task that came through a deque (queued, stolen, delivered) starts or ends.
enum class TaskEdge : std::uint8_t { start, end };

}  // namespace heist::policy
