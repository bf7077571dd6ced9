// Engine<W>, thief side: an idle worker's search as events. The order of its
// steps is the worker's policy::SearchLoop (the runtime's help loops execute
// the same machine), every decision its policy::SearchDriver's: a step
// inside the process is a claim on that worker's deque, a step to another
// rank a one-sided steal from that rank's window with the runtime's SWS or
// SDC thief state machine, one communication per event; a request step goes
// to engine_mailbox.hpp. What this file adds is the model: when each
// operation lands, what it costs, and which state it reads at that
// simulated instant.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

// One iteration of the search, starting at time t.
template <class W>
void Engine<W>::start_attempt(Worker& w, double t) {
  w.clock = t;
  // A suspended stack of this process became runnable: take it (a claim of
  // its continuation slot inside the process) before searching further.
  const double claimed = t + machine_.latency_ns(Hop::socket);
  if (w.stack.empty() && runnable_here(w) && resume_suspended(w, claimed)) {
    // The search ended with the claim; resume_suspended ran the clock on
    // past the fiber switch, which is work.
    const double resumed = w.clock;
    become_busy(w, claimed);
    w.clock = resumed;
    return;
  }
  if (!w.stack.empty() && wait_over(w)) {  // a task's wait helps (engine_joins.hpp): it is over
    become_busy(w, t);
    return;
  }
  w.attempt_start = t;
  policy::SearchAction a;
  if (w.pending) {  // drawn at the pause before this iteration
    a = *w.pending;
    w.pending.reset();
  } else {
    a = w.loop->search(search_view(w));
  }
  search_answer(w, a, t);
}

// The loop's first answer of an iteration, carried out from time t.
template <class W>
void Engine<W>::search_answer(Worker& w, policy::SearchAction a, double t) {
  switch (a) {
    case policy::SearchAction::request:  // the answer arrives through a poll
      request_across(w, t);
      attempt_failed(w, w.clock);
      return;
    case policy::SearchAction::steal:
      if (w.loop->step().kind == policy::SearchStep::Kind::steal_here) {
        launch_thread_claim(w, t);
        return;
      }
      break;
    default: attempt_failed(w, t); return;
  }
  const policy::SearchStep& step = w.loop->step();
  const int rank = step.target;
  // Another process: with --remote-steal sequential one worker of a process
  // at a time; the others' iteration is not an attempt.
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  if (cfg_.options.remote_steal == RemoteStealMode::sequential) {
    if (proc.remote_busy) {
      w.loop->stolen(0, false);  // not an attempt
      attempt_failed(w, t);
      return;
    }
    proc.remote_busy = w.holds_token = true;
  }
  w.target = rank;
  w.hop = machine_.hop_to_rank(w.id, rank);
  w.incoming.clear();
  ++counts(step.choice.level, true).attempts;
  if (cfg_.options.protocol == StealProtocolKind::sws) {
    w.sws.emplace(w.empty_targets.count(rank) != 0 ? policy::sws::TargetMode::empty : policy::sws::TargetMode::full);
  } else {
    w.sdc.emplace(static_cast<std::uint64_t>(w.id) + 1);
    w.polls = 0;
  }
  w.remote_since = t;
  issue_remote_op(w, t);
}

template <class W>
void Engine<W>::launch_thread_claim(Worker& w, double start) {
  w.attempt_start = start;
  w.target = machine_.first_worker(w.rank) + w.loop->step().target;  // steal_here: a worker of its process
  w.hop = machine_.hop(w.id, w.target);
  ++counts(w.loop->step().choice.level, false).attempts;
  ++result_.messages.shm_ops;
  schedule(w, Step::thread_claim, start + machine_.latency_ns(w.hop) / 2);
}

template <class W>
void Engine<W>::apply_thread_claim(Worker& w, double t) {
  Worker& v = workers_[static_cast<std::size_t>(w.target)];
  advance(v, t);
  w.incoming.clear();
  // A wait for joined children claims only what is deeper than its frame
  // (policy/help_floor.hpp; SplitDeque::steal_with peeks the same way).
  if (v.deque.public_size() > 0 && !policy::may_claim(help_floor_of(w), v.deque.oldest_public().depth)) {
    ++result_.help_floor_refusals;
    ++counts(w.loop->step().choice.level, false).failed;
    steal_failed(w, t + machine_.latency_ns(w.hop) / 2);
    return;
  }
  const std::uint32_t k = v.deque.steal(
      [&](std::uint32_t available) { return w.search.take(available, w.loop->step().choice.level); }, w.incoming);
  // Nothing public left (we failed, or took the last): ask the victim to queue more.
  if (v.deque.public_size() == 0) v.work_wanted = true;
  const double back = t + machine_.latency_ns(w.hop) / 2;
  StealCounts& c = counts(w.loop->step().choice.level, false);
  if (k == 0) {
    ++c.failed;
    steal_failed(w, back);
    return;
  }
  ++c.steals;
  c.tasks += k;
  schedule(w, Step::receive, back + machine_.transfer_ns(w.hop, std::size_t{k} * task_bytes_));
}

template <class W>
void Engine<W>::issue_remote_op(Worker& w, double t) {
  ++result_.messages.blocking;
  schedule(w, Step::remote_op, t + machine_.latency_ns(w.hop) / 2);
}

template <class W>
void Engine<W>::apply_remote_op(Worker& w, double t) {
  advance_rank(w.target, t);
  SimWindow<Task>& win = procs_[static_cast<std::size_t>(w.target)].window;
  if (w.sws) apply_sws(w, win, t);
  else apply_sdc(w, win, t);
}

template <class W>
void Engine<W>::apply_sws(Worker& w, SimWindow<Task>& win, double t) {
  policy::SwsSteal& s = *w.sws;
  const policy::SwsSteal::Step step = s.step();
  if (step == policy::SwsSteal::Step::copy) {  // the get reads the claimed block now
    const policy::sws::Claim& c = s.claim();
    for (std::uint32_t j = 0; j < c.block.count; ++j)
      w.incoming.push_back(win.ring.read_slot(std::uint64_t{c.start} + c.block.offset + j, win.slots()));
  }
  policy::sws_apply(s, win.stealval, win.completed);
  if (step == policy::SwsSteal::Step::fetch_add) {  // damping: the target's mode for the next attempt
    if (s.mode() == policy::sws::TargetMode::empty) w.empty_targets.insert(w.target);
    else w.empty_targets.erase(w.target);
  }
  const double back = t + machine_.latency_ns(w.hop) / 2;
  switch (s.step()) {
    case policy::SwsSteal::Step::fetch_add:  // the probe showed a block
    case policy::SwsSteal::Step::copy:       // the fetch-and-add claimed one
      issue_remote_op(w, back);
      return;
    case policy::SwsSteal::Step::complete: {
      const std::uint32_t count = s.claim().block.count;
      const double reply = back + machine_.transfer_ns(w.hop, std::size_t{count} * slot_bytes_);
      StealCounts& c = counts(w.loop->step().choice.level, true);
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += std::uint64_t{count} * slot_bytes_;
      ++result_.messages.nonblocking;
      post(reply + machine_.latency_ns(w.hop) / 2, w.target, w.rank, s);
      w.sws.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:  // aborted: nothing to take
      w.sws.reset();
      ++counts(w.loop->step().choice.level, true).failed;
      release_token(w);
      steal_failed(w, back);
      return;
  }
}

template <class W>
void Engine<W>::apply_sdc(Worker& w, SimWindow<Task>& win, double t) {
  policy::SdcSteal& s = *w.sdc;
  if (s.step() == policy::SdcSteal::Step::copy)  // the get reads the claimed tasks now
    for (std::uint64_t i = s.first(); i < s.first() + s.count(); ++i) w.incoming.push_back(win.ring.read(i));
  policy::sdc_apply(s, win.sdc, [&](std::uint64_t available) {  // SdcQueue::steal: chunk at the victim's level
    return w.search.take(static_cast<std::uint32_t>(std::min<std::uint64_t>(available, 0xFFFFFFFFu)), w.loop->step().choice.level);
  });
  const double back = t + machine_.latency_ns(w.hop) / 2;
  switch (s.step()) {
    case policy::SdcSteal::Step::poll:  // the lock is busy: look without it, within a budget
      if (++w.polls > policy::kSdcLockPolls) break;
      issue_remote_op(w, back);
      return;
    case policy::SdcSteal::Step::lock:
    case policy::SdcSteal::Step::read_meta:
    case policy::SdcSteal::Step::put_tail:
    case policy::SdcSteal::Step::unlock:
    case policy::SdcSteal::Step::copy:
      issue_remote_op(w, back);
      return;
    case policy::SdcSteal::Step::complete: {
      const std::uint64_t count = s.count();
      const double reply = back + machine_.transfer_ns(w.hop, static_cast<std::size_t>(count) * slot_bytes_);
      StealCounts& c = counts(w.loop->step().choice.level, true);
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += count * slot_bytes_;
      ++result_.messages.nonblocking;
      post(reply + machine_.latency_ns(w.hop) / 2, w.target, w.rank, s);
      w.sdc.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:
      break;
  }
  w.sdc.reset();  // aborted: empty, or the lock stayed busy
  ++counts(w.loop->step().choice.level, true).failed;
  release_token(w);
  steal_failed(w, back);
}

template <class W>
void Engine<W>::release_token(Worker& w) {
  if (!w.holds_token) return;
  procs_[static_cast<std::size_t>(w.rank)].remote_busy = false;
  w.holds_token = false;
}

// A steal of the loop's step took nothing; its answer arrived at time t.
template <class W>
void Engine<W>::steal_failed(Worker& w, double t) {
  w.loop->stolen(0, true);
  attempt_failed(w, t);
}

// An iteration that took nothing ended at time t: the loop says whether a
// poll round is due, or which wait comes first.
template <class W>
void Engine<W>::attempt_failed(Worker& w, double t) {
  end_remote(w, t);
  // MailboxBalance::awaits_answer: the rank w last asked still has this process's request open.
  // One process has no Process records (procs_ is empty) and asks no one.
  bool awaited = false;
  if (w.asked >= 0) {
    const std::vector<int>& open = procs_[static_cast<std::size_t>(w.rank)].requested;
    awaited = std::find(open.begin(), open.end(), w.asked) != open.end();
  }
  const policy::SearchAction a = w.loop->failed(awaited);
  if (a == policy::SearchAction::poll_round) {
    schedule(w, Step::poll_round, t);
    return;
  }
  pause(w, t, a);
}

template <class W>
void Engine<W>::poll_round(Worker& w, double t) {
  w.clock = t;
  poll(w);
  bool got = w.deque.size() > 0;  // tasks arrived through the mailbox
  if (!got) {
    const std::optional<std::uint32_t> taken = reclaim(w);
    if (!taken) {  // SDC: a thief holds this queue's lock; the runtime spins on it
      schedule(w, Step::poll_round, w.clock + machine_.latency_ns(Hop::self));
      return;
    }
    got = *taken > 0;
  }
  const policy::SearchAction a = w.loop->polled(got);
  if (a == policy::SearchAction::found) {
    become_busy(w, w.clock);
    return;
  }
  pause(w, w.clock, a);
}

template <class W>
double Engine<W>::wait_ns(const Worker& w, policy::SearchAction a) const {
  if (cfg_.backoff != BackoffModel::heist) return 0.0;
  const unsigned round = a == policy::SearchAction::back_off ? w.loop->round() - 1 : 0;  // round 0: one pause instruction
  return heist_backoff_ns(round, w.loop->limits());
}

// The loop's wait (back_off, pause), then the next iteration. An idle
// worker's next answer is drawn now rather than when the wait ends: nothing
// else moves its loop, driver or RNG in between, and nothing it observes
// changes (no wait can end; its deque fills only through its own polls),
// so the draws, and the run, are the same — and a failed claim inside the
// process costs one event instead of two.
template <class W>
void Engine<W>::pause(Worker& w, double t, policy::SearchAction a) {
  const double start = t + wait_ns(w, a);
  // A waiting worker looks at its count before each attempt, and a worker
  // of a process with a runnable suspended stack takes it: no shortcut.
  if (w.stack.empty() && !runnable_here(w)) {
    const policy::SearchAction next = w.loop->search(search_view(w));
    if (next == policy::SearchAction::steal && w.loop->step().kind == policy::SearchStep::Kind::steal_here) {
      launch_thread_claim(w, start);
      return;
    }
    w.pending = next;  // start_attempt takes it from here
  }
  schedule(w, Step::attempt, start);
}

template <class W>
void Engine<W>::receive(Worker& w, double t) {
  end_remote(w, t);
  const auto k = static_cast<std::uint32_t>(w.incoming.size());
  for (const Task& task : w.incoming) w.deque.push(task, false);
  if (w.deque.wanted()) w.deque.release();
  w.incoming.clear();
  release_token(w);
  w.loop->stolen(k, true);
  w.steal_ns += t - w.attempt_start;
  w.search_since += t - w.attempt_start;  // the steal itself is not search time
  become_busy(w, t);
}

template <class W>
void Engine<W>::become_busy(Worker& w, double t) {
  w.search_ns += std::max(0.0, t - w.search_since);
  // Straight from go_idle, with no step in between (a suspended stack's
  // claim): schedule() never saw the worker leave its tasks, so the busy
  // profile gets the stretch here.
  if (w.step == Step::busy) profile_.idle(w.search_since, t);
  schedule(w, Step::busy, t);
}

}  // namespace heist::sim
