// SearchLoop: one help loop's search, as a pure state machine — the order in
// which a worker out of its own tasks steals, asks, polls and backs off. The
// runtime's loops (sched::Dispatcher::help_until, the fiber scheduler loop of
// sched::ContinuationEngine) and the simulator's search events
// (sim/engine_search.hpp) execute it; each answer is an action the executor
// carries out (a claim with atomics, a one-sided steal over MPI, a poll; or
// their modelled cost) before it reports the outcome. Pure: no threads,
// clocks, MPI or TLS; the decisions are the worker's SearchDriver's.
//
// One iteration, once the executor found its deque and overflow list empty:
//   search(view)           -> steal (step()) | request | fail
//   stolen(taken, tried)   -> found | fail            (after steal)
//   failed(answer_awaited) -> poll_round | back_off | pause   (after fail, request)
//   polled(got_tasks)      -> found | back_off | pause        (after poll_round)
//   found: tasks arrived (the back-off starts over); back_off: wait
//   backoff() (platform::backoff_step of the loop's round); pause: one pause
//   instruction. Then the next iteration.
// Rules:
//  * a step is drawn only by a worker that may steal: a victim exists and
//    its help loops nest no deeper than --max-help-depth;
//  * between processes a failed iteration polls when the driver says a
//    round is due, and always past the help depth (what the waiter needs may
//    hang on a completion, its own offer, or tasks another rank handed this
//    process, and only a poll brings them; it neither steals nor asks, so no
//    steal chain grows its stack);
//  * a worker that may not steal backs off after every failure; one that
//    may, only after a failed sweep of its victims (SearchDriver::backs_off),
//    and pauses once otherwise.
#pragma once

#include <cstdint>

#include "platform/backoff.hpp"
#include "policy/decision_log.hpp"
#include "policy/search_driver.hpp"

namespace heist::policy {

class SearchLoop {
 public:
  // One loop (a help loop of a wait, or a worker's idle loop) of the worker
  // whose driver this is, backing off within the driver's limits for a
  // waiting or an idle worker, with or without other processes
  // (SearchDriver::backoff_limits).
  // `round`: where its back-off stands (0 for a new loop; a replay of a
  // record that began later passes the recorded one).
  SearchLoop(SearchDriver& driver, bool waiting, bool other_processes, unsigned round = 0) noexcept
      : driver_(&driver),
        limits_(driver.backoff_limits(waiting, other_processes)),
        round_(round),
        waiting_(waiting),
        other_processes_(other_processes) {}

  // An iteration begins: the worker's deque and overflow list are empty.
  SearchAction search(const SearchView& v) {
    begin_record();
    view_ = v;
    call_ = {LoopRecord::Call::search, id_, v};
    SearchAction a = SearchAction::fail;
    if (may_steal()) {
      step_ = driver_->next(v.remote_ok);
      switch (step_.kind) {
        case SearchStep::Kind::steal_here:
        case SearchStep::Kind::steal_rank: a = SearchAction::steal; break;
        case SearchStep::Kind::request: a = SearchAction::request; break;
        case SearchStep::Kind::none: break;
      }
    }
    return record(a);
  }
  // The steal of step() took `taken` tasks; `tried`: false when it was not
  // made (another worker of the process holds the remote-steal token).
  SearchAction stolen(std::uint32_t taken, bool tried) {
    begin_record();
    call_ = {LoopRecord::Call::stolen, id_, {}, taken, tried};
    if (tried) driver_->on_result(step_, taken);
    if (taken == 0) return record(SearchAction::fail);
    round_ = 0;
    return record(SearchAction::found);
  }
  // The iteration took nothing. answer_awaited: this thief's success-only
  // request is still open (MailboxBalance::awaits_answer).
  SearchAction failed(bool answer_awaited) {
    begin_record();
    call_ = {LoopRecord::Call::failed, id_, {}, 0, answer_awaited};
    if (view_.remote && (!view_.within_depth || driver_->failed(view_.region, answer_awaited)))
      return record(SearchAction::poll_round);
    return record(after_failure());
  }
  // The poll round brought tasks (delivered, answered, taken back) or not.
  SearchAction polled(bool got_tasks) {
    begin_record();
    call_ = {LoopRecord::Call::polled, id_, {}, 0, got_tasks};
    if (got_tasks) {
      round_ = 0;
      return record(SearchAction::found);
    }
    return record(after_failure());
  }
  // Tasks were found outside the search (own deque, overflow): the back-off
  // starts over.
  void found() {
    begin_record();
    round_ = 0;
    if (DecisionLog* log = driver_->log()) [[unlikely]] log->entries.emplace_back(LoopRecord{LoopRecord::Call::found, id_});
  }

  const SearchStep& step() const noexcept { return step_; }
  // back_off: the wait, the loop's round that the answer advanced past.
  platform::BackoffStep backoff() const noexcept { return platform::backoff_step(round_ - 1, limits_); }
  unsigned round() const noexcept { return round_; }
  const platform::BackoffLimits& limits() const noexcept { return limits_; }
  bool may_steal() const noexcept { return view_.within_depth && driver_->can_steal(); }

 private:
  SearchAction after_failure() {
    if (!may_steal() || driver_->backs_off()) {
      ++round_;
      return SearchAction::back_off;
    }
    return SearchAction::pause;
  }
  // The driver's log (tests) records this loop from the first call it
  // sees: a begin, with where the loop stands, then every call.
  void begin_record() {
    DecisionLog* log = driver_->log();
    if (log == nullptr || id_ != 0) [[likely]] return;
    id_ = driver_->new_loop();
    LoopRecord begin{LoopRecord::Call::begin, id_, {}, 0, waiting_, other_processes_};
    begin.round = round_;
    log->entries.emplace_back(begin);
  }
  SearchAction record(SearchAction a) {
    if (DecisionLog* log = driver_->log()) [[unlikely]] {
      call_.action = a;
      call_.round = round_;
      log->entries.emplace_back(call_);
    }
    return a;
  }

  SearchDriver* driver_;
  platform::BackoffLimits limits_;
  SearchView view_{};
  SearchStep step_{};
  unsigned round_ = 0;
  bool waiting_, other_processes_;  // the limits', for the records
  std::uint32_t id_ = 0;            // in the driver's records (0: none yet)
  LoopRecord call_{};               // the call being answered, for the records
};

}  // namespace heist::policy
