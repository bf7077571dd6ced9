// SearchDriver: a thief's search, step by step, shared by the runtime
// (sched::Worker's help loop) and the simulator (sim/engine_search.hpp).
// Pure: no threads, clocks, MPI or TLS; the victim RNG is the driver's own,
// seeded from Options::seed and the thief's place, so a seeded run replays.
//
// The loop both sides run around it, per iteration that found its own
// deque empty:
//   SearchStep s = driver.next(remote_ok);
//   steal_here / steal_rank: claim driver.take(available, s.choice.level)
//       tasks from s.target (a worker of this process / a rank), then
//       driver.on_result(s, taken) — unless the attempt was not made
//       (another worker of the process holds the remote-steal token);
//   request: ask a rank of another node (driver.next_rank(rng, advertised));
//   none:    nothing to try.
//   After a steal that took tasks, the next step is that victim again,
//   once (its deque held the siblings of what was taken); then the victim
//   policy's own steps go on.
//   An iteration that took nothing: driver.failed(remote_ok, awaited) says
//   whether a poll round is due (after max(1, workers - 1) of them between
//   processes, or at once while an answer to this thief's own success-only
//   request is awaited: apply deliveries, take back the unclaimed offer);
//   then, if
//   driver.backs_off(), back off by platform::backoff_step(round,
//   driver.backoff_limits(...)), else pause once (one pause instruction)
//   and try the next victim.
// A worker with no victim (can_steal() false: one place) never searches; it
// parks when its region ends.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "heist/options.hpp"
#include "platform/backoff.hpp"
#include "platform/rng.hpp"
#include "policy/chunk_policy.hpp"
#include "policy/decision_log.hpp"
#include "policy/topology.hpp"
#include "policy/victim_policy.hpp"

namespace heist::policy {

struct SearchSetup {
  int place = 0;         // the thief's place in the topology
  int place_base = 0;    // place of its process's first worker
  int workers_here = 1;  // workers of its process
};

class SearchDriver {
 public:
  // While waiting (a process's first worker in Runtime::root/pool, or any
  // worker below a task) a worker backs off more gently than an idle one:
  // what it waits for may complete any moment. It yields 64 times before
  // its first sleep, since a sleep costs the kernel's timer slack on top:
  // with fewer yields, waits for children stolen by other ranks slept
  // through most completions (docs/design/search-and-backoff.md).
  static constexpr platform::BackoffLimits kWaitBackoff{6, 64, 2, 100};
  static constexpr platform::BackoffLimits kIdleBackoff{6, 4, 5, 500};

  SearchDriver(const Options& o, const Topology& topology, const SearchSetup& setup);

  bool can_steal() const noexcept { return victims_ != nullptr; }

  // The next step. remote_ok: a distributed region is on (other ranks may
  // be stolen from or asked). Precondition: can_steal().
  SearchStep next(bool remote_ok);
  // How many of `available` (> 0) public tasks to claim at `level`.
  std::uint32_t take(std::uint32_t available, Level level) const;
  // A steal step ended with `taken` tasks (0: failed).
  void on_result(const SearchStep& step, std::uint32_t taken);
  // An iteration took nothing: true when a poll round is due now.
  // answer_awaited: this thief's last success-only request is still open
  // (its answer lands in the process's mailbox, and only a poll takes it).
  // Then every failed iteration polls: polled every max(1, workers - 1)
  // failures, an answer on a node of 8 workers waited out up to 7 in-node
  // attempts. The other searchers of the process keep their rounds: all of
  // them polling cost more than it gained (docs/design/search-and-backoff.md).
  bool failed(bool remote_ok, bool answer_awaited);
  // An iteration took nothing: true when the back-off advances now — one
  // sweep of the victims (VictimPolicy::sweep) failed since the last
  // success or advance. Advanced after every failed attempt, the back-off
  // reached its longest sleep between attempts after one empty sweep, so
  // when one worker of sixteen held every public task each thief found it
  // once per many sleeps (docs/design/search-and-backoff.md).
  bool backs_off();
  // After a request step: the rank to ask (see VictimPolicy::next_rank).
  std::optional<int> next_rank(platform::Rng& rng, std::span<const std::uint32_t> advertised);

  // Back-off limits: `waiting` or idle; with other processes the sleeps are
  // capped so that tasks another rank released for this process (reserved
  // for Options::reacquire_delay_us) are looked at at least twice within it.
  platform::BackoffLimits backoff_limits(bool waiting, bool other_processes) const noexcept;

  const ChunkPolicy& chunk() const noexcept { return chunk_; }
  void record_to(DecisionLog* log) noexcept { log_ = log; }
  DecisionLog* log() const noexcept { return log_; }  // SearchLoop records its answers there too
  std::uint32_t new_loop() noexcept { return ++loops_; }  // a SearchLoop's id in the records

 private:
  // The victim policy's next step, as a SearchStep.
  SearchStep policy_step(bool remote_ok);

  const Topology* topology_;
  SearchSetup setup_;
  std::unique_ptr<VictimPolicy> victims_;  // null: no other place
  platform::Rng rng_;
  ChunkPolicy chunk_;
  int poll_round_;
  int failures_ = 0;
  std::uint32_t sweep_ = 1;           // victims_->sweep()
  std::uint32_t failed_in_sweep_ = 0;  // failed iterations since the last success or back-off step
  std::int64_t remote_max_sleep_us_;
  DecisionLog* log_ = nullptr;
  std::uint32_t loops_ = 0;
  // The last steal that took tasks: the next search tries that victim
  // first, once (its deque held siblings of what was taken).
  std::optional<SearchStep> retry_;
};

}  // namespace heist::policy
