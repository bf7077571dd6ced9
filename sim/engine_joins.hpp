// Engine<W>, joins: what a task waits for before it ends, and how the
// completions it waits for travel (the runtime's sched/worker_wait.cpp,
// sched/worker_execute.cpp and rma/completion_inbox.hpp).
//  * A joined task (spawn + wait: fib, nqueens) waits for its queued
//    children, a Scope (a count of tasks) owned by the frame's worker, and
//    one of another process (Executor::execute_foreign) then reports back.
//    An escaping task of another process (UTS) counts in its worker's
//    foreign proxy of its scope (a Scope too), which reports every task it
//    counted in one completion once its worker went idle and it drained.
//  * A wait with children outstanding is a help loop (Dispatcher::help_until):
//    the worker runs tasks of its own deque, nested above the waiting frame;
//    with none it searches (the same driver, the waiting back-off), and looks
//    at the count again before every attempt. Past --max-help-depth nested
//    waits it does not steal (nor request), but polls every round.
//  * A completion in the process is a store to the count: it lands after half
//    the round trip between the two workers. Across processes it goes through
//    the origin's completion inbox: the sender pays one round trip (the put
//    of the entry into its own lane there, flushed; the ticket is local),
//    its seq word and counts land half a round trip later, and it counts
//    only when a worker of the origin polls (every poll reads the inbox's
//    posted count: one operation on its own window, none of its own under
//    SWS, whose read of stealval brings it; with something posted,
//    one more for the lanes' counts, and per lane with entries one for its
//    seq words, one per entry and one to publish what it consumed).
// Not modelled: proxy scopes inside a process (a thread thief counts a
// stolen async's subtree and reports once; here each task reports), and
// the root finish's own wait (a run ends with its last task, or the arrival
// of its last completion at rank 0).
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
int Engine<W>::open_scope(const Worker& w) {
  const int id = take_slot(scopes_, free_scopes_);
  scopes_[static_cast<std::size_t>(id)] = {0, w.id};  // drained_at: -1 again
  return id;
}

// Where a child queued by frame f counts: f's joined children (opened at the
// first one), or the escaping asyncs' scope f runs under.
template <class W>
int Engine<W>::children_scope(Worker& w, Frame& f) {
  if constexpr (W::kJoins) {
    if (f.join == kNoScope) f.join = open_scope(w);
    return f.join;
  } else {
    return f.ief;
  }
}

template <class W>
int Engine<W>::origin_rank(int scope) const {
  if (scope == kNoScope) return 0;  // the root's finish, on the rank that runs Runtime::root
  return workers_[static_cast<std::size_t>(scopes_[static_cast<std::size_t>(scope)].owner)].rank;
}

// The top frame has spawned all its children. Ends it unless it waits for
// some: then runs one task of this worker's deque nested above it (true), or,
// with none, starts helping (false: the worker left the busy path).
template <class W>
bool Engine<W>::end_frame(Worker& w) {
  Frame& f = w.stack.back();
  if (f.join != kNoScope && scopes_[static_cast<std::size_t>(f.join)].pending > 0) {
    if (!f.waiting) {
      f.waiting = true;
      ++w.help_depth;
      ++result_.waits;
    }
    Task t;
    if (w.deque.pop(t)) {
      begin(w, t, true);
      return true;
    }
    if (suspends_) {  // its own tasks run: the wait suspends (Worker::await_by_suspending)
      suspend(w, f.join);
      return true;
    }
    go_idle(w);
    return false;
  }
  if (f.waiting) {
    --w.help_depth;
    const double late = w.clock - scopes_[static_cast<std::size_t>(f.join)].drained_at;
    if (late > 0) {
      result_.late_resume_s += late * 1e-9;
      result_.late_resume_max_s = std::max(result_.late_resume_max_s, late * 1e-9);
    }
  }
  if (f.join != kNoScope) free_scopes_.push_back(f.join);
  const int scope = f.scope;
  const bool queued = f.queued, foreign = f.foreign;
  if (queued) --w.depth;
  w.stack.pop_back();
  --outstanding_;
  if (w.clock > makespan_) makespan_ = w.clock;
  if (queued) end_queued(w, scope, foreign);
  return true;
}

// A queued task ended on worker w: count it down where it was counted.
template <class W>
void Engine<W>::complete(Worker& w, int scope, bool foreign) {
  if (foreign) {  // DistContext::send_completion into the origin's inbox
    // The entry (put + flush) blocks; the seq write and the two counts are
    // issued after it and flushed lazily (CompletionInbox::send): they land
    // half a round trip later, while the sender goes on.
    const int origin = origin_rank(scope);
    const double rtt = latency_to_rank(w.id, origin);
    const double lands = w.clock + 1.5 * rtt;
    post(lands, origin, w.rank, Completion{scope, true});
    w.clock += rtt;
    w.work_ns += rtt;
    ++result_.messages.blocking;
    result_.messages.nonblocking += 3;
    ++result_.completions_sent;
    if (scope == kNoScope && lands > makespan_) makespan_ = lands;  // the root finish hears of it then
    return;
  }
  if (scope == kNoScope) return;
  const int owner = scopes_[static_cast<std::size_t>(scope)].owner;
  if (owner == w.id) {
    count_down(scope, w.clock);
    return;
  }
  post(w.clock + machine_.latency_ns(machine_.hop(w.id, owner)) / 2, w.rank, w.rank, Completion{scope, false});
}

template <class W>
void Engine<W>::count_down(int scope, double t, std::int64_t n) {
  if (scope == kNoScope) return;
  Scope& s = scopes_[static_cast<std::size_t>(scope)];
  if ((s.pending -= n) < 0) throw std::logic_error("simulator: a scope counted down below zero");
  if (s.pending > 0) return;
  s.drained_at = t;
  if (s.suspended >= 0) {  // ContinuationEngine::wake: runnable in its process from now on
    Suspended& held = suspended_[static_cast<std::size_t>(s.suspended)];
    held.runnable_at = t;
    runnable_[static_cast<std::size_t>(held.rank)].push_back(s.suspended);
    s.suspended = -1;
  }
  // The completion that drains a sealed proxy sends its report (the runtime:
  // that worker, at its next poll; not charged here).
  if (s.proxy && s.sealed) send_proxy(scope, t, nullptr);
}

// Executor::execute_foreign, escaping task: the worker's open proxy of the
// task's scope counts it (sched/proxy_scope.hpp).
template <class W>
int Engine<W>::adopt_foreign(Worker& w, int scope) {
  int proxy = kNoScope;
  for (const auto& [stands_for, p] : w.foreign_proxies)
    if (stands_for == scope) proxy = p;
  if (proxy == kNoScope) {
    proxy = open_scope(w);
    Scope& s = scopes_[static_cast<std::size_t>(proxy)];
    s.proxy = true;
    s.stands_for = scope;
    w.foreign_proxies.emplace_back(scope, proxy);
  }
  Scope& s = scopes_[static_cast<std::size_t>(proxy)];
  ++s.adopted;
  ++s.pending;  // the task itself, until it ends
  return proxy;
}

// Out of own tasks: seal the open foreign proxies; a drained one reports now,
// the others when their last task ends.
template <class W>
void Engine<W>::seal_foreign_proxies(Worker& w) {
  for (const auto& [stands_for, proxy] : w.foreign_proxies) {
    Scope& s = scopes_[static_cast<std::size_t>(proxy)];
    s.sealed = true;
    if (s.pending == 0) send_proxy(proxy, w.clock, &w);
  }
  w.foreign_proxies.clear();
}

// A sealed, drained foreign proxy reports every task it adopted in one
// completion into the origin's inbox (DistContext::send_completion: one
// round trip for the sender, lands after one and a half).
template <class W>
void Engine<W>::send_proxy(int proxy, double t, Worker* sender) {
  Scope& s = scopes_[static_cast<std::size_t>(proxy)];
  const int scope = s.stands_for;
  const int origin = origin_rank(scope);
  const double rtt = latency_to_rank(s.owner, origin);
  const double lands = t + 1.5 * rtt;
  post(lands, origin, workers_[static_cast<std::size_t>(s.owner)].rank, Completion{scope, true, s.adopted});
  if (sender != nullptr) {  // its last task's work, as complete() counts a completion's
    sender->clock += rtt;
    sender->work_ns += rtt;
  }
  ++result_.messages.blocking;
  result_.messages.nonblocking += 3;
  ++result_.completions_sent;
  result_.tasks_reported += static_cast<std::uint64_t>(s.adopted);
  if (scope == kNoScope && lands > makespan_) makespan_ = lands;
  s = Scope{};
  free_scopes_.push_back(proxy);
}

// CompletionInbox::drain at a poll, at time t; posted_read: the poll read
// the posted count already.
template <class W>
void Engine<W>::drain_inbox(Process& proc, OwnerOps& ops, double t, bool posted_read) {
  if (!posted_read) ++ops.blocking;  // the posted count
  if (proc.inbox.empty()) return;
  std::vector<int>& lanes = inbox_lanes_;  // the senders with entries here
  lanes.clear();
  for (const Completion& c : proc.inbox) lanes.push_back(c.from);
  std::sort(lanes.begin(), lanes.end());
  const auto senders = std::unique(lanes.begin(), lanes.end()) - lanes.begin();
  // The lanes' counts; per lane its seq words and consumed count; each entry's get.
  ops.blocking += 1 + 2 * static_cast<int>(senders) + static_cast<int>(proc.inbox.size());
  for (const Completion& c : proc.inbox) {
    result_.inbox_wait_s += (t - c.landed) * 1e-9;
    count_down(c.scope, t, c.count);
  }
  result_.completions_applied += proc.inbox.size();
  proc.inbox.clear();
}

// --suspend-waits on: w's stack waits aside for `join` (ContinuationEngine::
// suspend_until_drained); w goes on with an empty one.
template <class W>
void Engine<W>::suspend(Worker& w, int join) {
  const int id = take_slot(suspended_, free_suspended_);
  Suspended& held = suspended_[static_cast<std::size_t>(id)];
  held.stack = std::move(w.stack);
  held.depth = w.depth;
  held.help_depth = w.help_depth;
  held.rank = w.rank;
  held.since = w.clock;
  w.stack.clear();
  w.depth = 0;
  w.help_depth = 0;
  w.credits = 0;  // credits follow the worker: the fresh stack asks the policy again
  scopes_[static_cast<std::size_t>(join)].suspended = id;
  w.clock += kFiberSwitchNs;
  w.work_ns += kFiberSwitchNs;
  ++result_.suspensions;
}

template <class W>
bool Engine<W>::resume_suspended(Worker& w, double at) {
  std::deque<int>& ready = runnable_[static_cast<std::size_t>(w.rank)];
  // Drained by then: a worker whose clock runs behind the completion cannot take it yet.
  if (ready.empty() || suspended_[static_cast<std::size_t>(ready.front())].runnable_at > at) return false;
  const int id = ready.front();
  ready.pop_front();
  Suspended& held = suspended_[static_cast<std::size_t>(id)];
  w.stack = std::move(held.stack);
  held.stack.clear();
  w.depth = held.depth;
  w.help_depth = held.help_depth;
  w.credits = 0;
  free_suspended_.push_back(id);
  profile_.suspended(held.since, at);
  w.clock = at + kFiberSwitchNs;
  w.work_ns += kFiberSwitchNs;
  return true;
}

// A helping worker's wait is over: its top frame's count drained.
template <class W>
bool Engine<W>::wait_over(const Worker& w) const {
  if (w.stack.empty()) return false;
  const int join = w.stack.back().join;
  return join == kNoScope || scopes_[static_cast<std::size_t>(join)].pending == 0;
}

}  // namespace heist::sim
