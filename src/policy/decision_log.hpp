// DecisionLog: what a worker's scheduling drivers (SpawnDriver, SearchDriver)
// decided, each entry with the inputs it was decided from. Off unless a
// caller attaches one (record_to); the runtime and the simulator attach them
// in tests only (tests/sim/test_same_decisions.cpp replays one side's inputs
// through the other side's drivers and compares the answers).
#pragma once

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "heist/options.hpp"
#include "policy/spawn_policy.hpp"
#include "policy/topology.hpp"
#include "policy/victim_policy.hpp"

namespace heist::policy {

// One step of a thief's search, resolved to where it goes.
struct SearchStep {
  enum class Kind : std::uint8_t {
    steal_here,  // claim from worker `target` of this process
    steal_rank,  // a one-sided steal from rank `target`
    request,     // success-only: a request to a rank of another node (next_rank picks it)
    none,        // nothing to try this time
  };
  Kind kind = Kind::none;
  VictimChoice choice{0, Level::worker};  // steal_*: the place drawn and its level
  int target = -1;
  friend bool operator==(const SearchStep& a, const SearchStep& b) noexcept {
    return a.kind == b.kind && a.target == b.target &&
           (a.kind == Kind::request || a.kind == Kind::none ||
            (a.choice.place == b.choice.place && a.choice.level == b.choice.level));
  }
};

// SpawnDriver::decide
struct SpawnRecord {
  SpawnPolicy kind;
  SpawnFacts facts;
  bool paced;
  double now;
  SpawnAction action;
  std::int64_t credits;
  bool release;
  bool reroot;
  bool publish_one;
};
// SearchDriver::next
struct StepRecord {
  bool remote_ok;
  SearchStep step;
};
// SearchDriver::take
struct ChunkRecord {
  std::uint32_t available;
  Level level;
  std::uint32_t taken;
};
// SearchDriver::on_result
struct ResultRecord {
  SearchStep step;
  std::uint32_t taken;
};
// SearchDriver::failed
struct FailureRecord {
  bool remote_ok;
  bool answer_awaited;
  bool poll;
};

// SearchDriver::backs_off
struct BackoffRecord {
  bool backs_off;
};

using Decision = std::variant<SpawnRecord, StepRecord, ChunkRecord, ResultRecord, FailureRecord, BackoffRecord>;

struct DecisionLog {
  std::vector<Decision> entries;
};

}  // namespace heist::policy
