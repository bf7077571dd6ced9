// Dispatcher::help_until, the dispatch/help loop every wait and every worker
// thread runs: pop this worker's own tasks; when there are none, take one
// step of the search driver (worker_search.cpp); after a round of failed
// steps between processes, poll and take back the process's unclaimed
// offer; else back off (platform::Backoff with the driver's limits).
// Private to the worker_*.cpp files and continuations.cpp.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "platform/backoff.hpp"
#include "platform/timer.hpp"
#include "sched/worker.hpp"

namespace heist::sched {

template <class Done>
void Dispatcher::help_until(Done&& done, std::int64_t floor) {
  if (done()) return;
  Worker& w = owner();
  if (w.at_top_level()) w.joins_.enter_region();
  // With continuations, a thread's own stack runs no task: it lets a
  // scheduler loop on a fiber use the worker until that loop resumes it.
  if (w.conts_ && w.native_) {
    while (!done())
      if (!w.conts_->wait_pinned()) break;  // no fiber free: help here
    if (done()) return;
  }
  ++w.help_depth_;
  const bool was_searching = searching_;
  SplitDeque& deque = w.queue_.deque_;
  // The common wait finds what it waits for on top of its own deque: run
  // that first, and set up the search only when the deque runs dry (a
  // help-first fib's every wait set it up for nothing).
  for (;;) {
    if (done()) {
      set_searching(was_searching);
      --w.help_depth_;
      return;
    }
    const std::byte* slot = deque.pop();
    if (slot == nullptr) break;
    set_searching(false);
    w.exec_.execute(slot);  // runs in place
  }
  platform::Backoff backoff(search_->backoff_limits(w.id_ == 0 || w.depth_ > 0, w.remote_ != nullptr));
  const bool within_depth = w.help_depth_ <= w.max_help_depth_;
  const bool may_steal = within_depth && search_->can_steal();
  std::int64_t searching_since = 0;
  while (!done()) {
    if (const std::byte* slot = deque.pop()) {  // runs in place
      if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
      searching_since = 0;
      set_searching(false);
      w.exec_.execute(slot);
      backoff.reset();
      continue;
    }
    // Tasks another rank delivered (a poll after a spawn or a task, a push,
    // an answered request) while the deque was at its maximum wait in the
    // overflow list: run them before anything else. Only a successful steal
    // or reclaim used to run them, so a worker whose deque then emptied
    // could wait for them forever (2 ranks, --deque-max-tasks 2: the soak's
    // seed 1843661751 hung 11 runs in 12).
    if (!w.queue_.overflow_.empty()) {
      if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
      searching_since = 0;
      set_searching(false);
      run_overflow();
      backoff.reset();
      continue;
    }
    out_of_tasks();
    const std::int64_t attempt_start = platform::now_ns();
    if (searching_since == 0) searching_since = attempt_start;
    set_searching(true);
    if (may_steal && try_steal(floor) > 0) {
      const std::int64_t stolen_at = platform::now_ns();
      run_overflow();
      steal_ns_ += stolen_at - attempt_start;
      search_ns_ += attempt_start - searching_since;
      searching_since = 0;
      backoff.reset();
      continue;
    }
    // After a round of failed attempts: apply completions and deliveries
    // (they may end the wait), release, take back what nobody took. Past
    // the help depth a waiter does not steal but polls every round: what
    // it waits for may hang on a completion, on its own offer, or on tasks
    // another rank handed this process (a success-only answer, a push),
    // and only a poll brings those; with every waiter of a process that
    // deep nobody else would (2 ranks x 1, --max-help-depth 2: fib hung on
    // every run; the soak with depths 1-4: 3 runs in 120, push and
    // success-only). Its requests and steals stay off, so no steal chain
    // grows its stack.
    if (w.remote_ != nullptr && (!within_depth || search_->failed(w.remote_->region_active(), w.remote_->awaits_answer(w)))) {
      w.remote_->poll(w);
      if (!w.joins_.reports().empty()) w.exec_.send_reports();  // the poll's completions drained some
      const std::int64_t reclaim_start = platform::now_ns();
      if (deque.size() > 0 || w.remote_->reclaim(w) > 0) {
        run_overflow();
        steal_ns_ += platform::now_ns() - reclaim_start;
        search_ns_ += reclaim_start - searching_since;
        searching_since = 0;
        backoff.reset();
        continue;
      }
    }
    pause_after_failure(backoff, may_steal);
    // A context parked pinned on this worker (a help loop that met a
    // stolen continuation, or the native stack) may hold what this wait
    // needs; only this worker can resume it, so take turns.
    if (w.conts_ != nullptr) w.conts_->yield_to_pinned();
  }
  if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
  set_searching(was_searching);
  --w.help_depth_;
}

}  // namespace heist::sched
