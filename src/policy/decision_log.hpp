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
#include "policy/spawn_plan.hpp"
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

// What a searching worker's executor observed at the start of an iteration
// (SearchLoop::search; search_loop.hpp).
struct SearchView {
  bool within_depth = true;  // its help loops nest no deeper than --max-help-depth
  bool remote = false;       // a process balancer exists (the run spans processes)
  bool region = false;       // a distributed region is on
  bool remote_ok = false;    // a step may leave the process: a region is on and the help floor allows it
};

// What a searching worker does next (SearchLoop).
enum class SearchAction : std::uint8_t {
  steal,       // carry out SearchLoop::step() (steal_here, steal_rank), then stolen()
  request,     // success-only: queue a request at a rank (the answer comes through a poll), then failed()
  fail,        // nothing taken: failed()
  found,       // tasks arrived: run them
  poll_round,  // poll the process balancer and take back the process's unclaimed offer, then polled()
  back_off,    // wait SearchLoop::backoff(), then the next iteration
  pause,       // one pause instruction, then the next iteration
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
// SpawnMachine::enter
struct EntryRecord {
  SpawnEntry entry;
  SpawnEntryStep step;
};
// SpawnMachine::decide: the plan (the SpawnRecord before it has the facts)
struct PlanRecord {
  bool fenced;
  SpawnPlan plan;
};
// SpawnMachine::after_queue, when it polls
struct AfterQueueRecord {
  bool poll;
};
// SpawnMachine::task_edge
struct EdgeRecord {
  TaskEdge edge;
  bool drop;
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
// SearchLoop: one call, its inputs, its answer and the loop's back-off round after it
struct LoopRecord {
  enum class Call : std::uint8_t { begin, search, stolen, failed, polled, found };
  Call call;
  std::uint32_t loop = 0;  // which loop of the worker (SearchDriver::new_loop)
  SearchView view{};       // search
  std::uint32_t taken = 0;  // stolen
  bool flag = false;       // begin: waiting limits; stolen: tried; failed: answer awaited; polled: got tasks
  bool flag_other_processes = false;  // begin: the limits with other processes
  SearchAction action = SearchAction::fail;
  unsigned round = 0;
};


using Decision = std::variant<SpawnRecord, StepRecord, ChunkRecord, ResultRecord, FailureRecord, BackoffRecord,
                              EntryRecord, PlanRecord, AfterQueueRecord, EdgeRecord, LoopRecord>;

struct DecisionLog {
  std::vector<Decision> entries;
};

}  // namespace heist::policy
