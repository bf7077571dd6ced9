// Dispatcher::help_until, the dispatch/help loop every wait and every worker
// thread runs: pop this worker's own tasks, then its overflow list; when
// there are none, one iteration of its policy::SearchLoop (search_once,
// worker_search.cpp: steal or ask, poll round, back-off).
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
  policy::SearchLoop loop = search_loop(w.id_ == 0 || w.depth_ > 0);
  const bool within_depth = w.help_depth_ <= w.max_help_depth_;
  std::int64_t searching_since = 0;
  while (!done()) {
    if (const std::byte* slot = deque.pop()) {  // runs in place
      if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
      searching_since = 0;
      set_searching(false);
      w.exec_.execute(slot);
      loop.found();
      continue;
    }
    // Tasks another rank delivered (a poll after a spawn or a task, a push,
    // an answered request) while the deque was at its maximum wait in the
    // overflow list: run them before anything else, or a worker whose deque
    // emptied could wait for them forever.
    if (!w.queue_.overflow_.empty()) {
      if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
      searching_since = 0;
      set_searching(false);
      run_overflow();
      loop.found();
      continue;
    }
    out_of_tasks();
    if (search_once(loop, floor, within_depth, searching_since)) continue;
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
