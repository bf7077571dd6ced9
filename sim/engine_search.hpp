// Engine<W>, thief side: an idle worker's search, following Worker::help_until
// and Worker::try_steal (src/sched/worker.cpp) inside its process and
// Distributor::steal (src/dist/distributor.cpp) between processes, with the
// runtime's SWS and SDC thief state machines applied one communication per
// event at the victim's window. Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::start_attempt(Worker& w, double t) {
  if (machine_.workers_per_rank() > 1) {
    launch_thread_attempt(w, t);
    return;
  }
  w.attempt_start = t;
  if (multi_rank_) {
    start_remote(w, t);
    return;
  }
  pause(w, t);
}

// try_steal: one victim of this process. The victim is drawn when the
// attempt is scheduled rather than when it starts: each worker has its own
// RNG, so the draws, and the run, are the same — and a failed attempt costs
// one event instead of two.
template <class W>
void Engine<W>::launch_thread_attempt(Worker& w, double start) {
  w.attempt_start = start;
  const int victim = machine_.first_worker(w.rank) + w.victims.next(w.rng);
  w.target = victim;
  w.hop = machine_.hop(w.id, victim);
  w.remote_attempt = false;
  ++result_.thread_steals[static_cast<std::size_t>(w.hop)].attempts;
  ++result_.messages.shm_ops;
  const double arrive = start + machine_.latency_ns(w.hop) / 2;
  at_worker_[static_cast<std::size_t>(victim)].add(arrive);
  schedule(w, Step::thread_claim, arrive);
}

template <class W>
void Engine<W>::apply_thread_claim(Worker& w, double t) {
  at_worker_[static_cast<std::size_t>(w.target)].remove_earliest();
  Worker& v = workers_[static_cast<std::size_t>(w.target)];
  w.incoming.clear();
  const std::uint32_t k = v.deque.steal([&](std::uint32_t available) { return take(available, w.hop); }, w.incoming);
  // Nothing public left: ask the victim to queue more (Worker::try_steal).
  if (v.deque.public_size() == 0) v.work_wanted = true;
  const double back = t + machine_.latency_ns(w.hop) / 2;
  StealCounts& c = result_.thread_steals[static_cast<std::size_t>(w.hop)];
  if (k == 0) {
    ++c.failed;
    after_local_failure(w, back);
    return;
  }
  ++c.steals;
  c.tasks += k;
  schedule(w, Step::receive, back + machine_.transfer_ns(w.hop, std::size_t{k} * task_bytes_));
}

template <class W>
void Engine<W>::after_local_failure(Worker& w, double t) {
  // Nothing in this process after a round of attempts: look outside it.
  if (multi_rank_ && ++w.local_failures >= machine_.workers_per_rank() - 1) {
    schedule(w, Step::remote_start, t);
    return;
  }
  pause(w, t);
}

template <class W>
void Engine<W>::start_remote(Worker& w, double t) {
  w.clock = t;
  w.local_failures = 0;
  poll(w);  // completions, releases (help_until polls before a remote steal)
  // 1. Tasks this process offered and nobody took: take them back first.
  SimWindow<Task>& own = windows_[static_cast<std::size_t>(w.rank)];
  if (own.offering()) {
    OwnerOps ops;
    buffer_.clear();
    const std::optional<std::uint32_t> n = own.acquire(buffer_, ops);
    charge(w, ops);
    if (!n) {  // SDC: a thief holds this queue's lock; the runtime spins on it
      schedule(w, Step::remote_start, w.clock);
      return;
    }
    if (*n > 0) {
      for (const Task& task : buffer_) w.deque.push(task);
      become_busy(w, w.clock);
      return;
    }
  }
  // 2. Another rank, at random.
  const int pick = static_cast<int>(w.remote_rng.below(static_cast<std::uint32_t>(machine_.ranks() - 1)));
  const int victim = pick >= w.rank ? pick + 1 : pick;
  w.target = victim;
  w.hop = machine_.hop_to_rank(w.id, victim);
  w.remote_attempt = true;
  w.incoming.clear();
  ++result_.remote_steals[static_cast<std::size_t>(w.hop)].attempts;
  if (cfg_.options.protocol == StealProtocolKind::sws) {
    w.sws.emplace(w.empty_targets.count(victim) != 0 ? dist::sws::TargetMode::empty : dist::sws::TargetMode::full);
  } else {
    w.sdc.emplace(static_cast<std::uint64_t>(w.id) + 1);
    w.polls = 0;
  }
  issue_remote_op(w, w.clock);
}

template <class W>
void Engine<W>::issue_remote_op(Worker& w, double t) {
  const double arrive = t + machine_.latency_ns(w.hop) / 2;
  at_rank_[static_cast<std::size_t>(w.target)].add(arrive);
  ++result_.messages.blocking;
  schedule(w, Step::remote_op, arrive);
}

template <class W>
void Engine<W>::apply_remote_op(Worker& w, double t) {
  at_rank_[static_cast<std::size_t>(w.target)].remove_earliest();
  SimWindow<Task>& win = windows_[static_cast<std::size_t>(w.target)];
  if (w.sws) apply_sws(w, win, t);
  else apply_sdc(w, win, t);
}

template <class W>
void Engine<W>::apply_sws(Worker& w, SimWindow<Task>& win, double t) {
  dist::SwsSteal& s = *w.sws;
  const dist::SwsSteal::Step step = s.step();
  if (step == dist::SwsSteal::Step::copy) {  // the get reads the claimed block now
    const dist::sws::Claim& c = s.claim();
    for (std::uint32_t j = 0; j < c.block.count; ++j)
      w.incoming.push_back(win.ring.read_slot(std::uint64_t{c.start} + c.block.offset + j, win.slots()));
  }
  dist::sws_apply(s, win.stealval, win.completed);
  if (step == dist::SwsSteal::Step::fetch_add) {  // damping: the target's mode for the next attempt
    if (s.mode() == dist::sws::TargetMode::empty) w.empty_targets.insert(w.target);
    else w.empty_targets.erase(w.target);
  }
  const double back = t + machine_.latency_ns(w.hop) / 2;
  switch (s.step()) {
    case dist::SwsSteal::Step::fetch_add:  // the probe showed a block
    case dist::SwsSteal::Step::copy:       // the fetch-and-add claimed one
      issue_remote_op(w, back);
      return;
    case dist::SwsSteal::Step::complete: {
      const std::uint32_t count = s.claim().block.count;
      const double reply = back + machine_.transfer_ns(w.hop, std::size_t{count} * slot_bytes_);
      StealCounts& c = result_.remote_steals[static_cast<std::size_t>(w.hop)];
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += std::uint64_t{count} * slot_bytes_;
      ++result_.messages.nonblocking;
      const double lands = reply + machine_.latency_ns(w.hop) / 2;
      at_rank_[static_cast<std::size_t>(w.target)].add(lands);
      messages_.push({lands, message_seq_++, w.target, s});
      w.sws.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:  // aborted: nothing to take
      w.sws.reset();
      after_remote_failure(w, back);
      return;
  }
}

template <class W>
void Engine<W>::apply_sdc(Worker& w, SimWindow<Task>& win, double t) {
  dist::SdcSteal& s = *w.sdc;
  if (s.step() == dist::SdcSteal::Step::copy)  // the get reads the claimed tasks now
    for (std::uint64_t i = s.first(); i < s.first() + s.count(); ++i) w.incoming.push_back(win.ring.read(i));
  dist::sdc_apply(s, win.sdc, [&](std::uint64_t available) {
    return take_remote(static_cast<std::uint32_t>(std::min<std::uint64_t>(available, 0xFFFFFFFFu)), w.hop);
  });
  const double back = t + machine_.latency_ns(w.hop) / 2;
  switch (s.step()) {
    case dist::SdcSteal::Step::poll:  // the lock is busy: look without it, within a budget
      if (++w.polls > dist::kSdcLockPolls) break;
      issue_remote_op(w, back);
      return;
    case dist::SdcSteal::Step::lock:
    case dist::SdcSteal::Step::read_meta:
    case dist::SdcSteal::Step::put_tail:
    case dist::SdcSteal::Step::unlock:
    case dist::SdcSteal::Step::copy:
      issue_remote_op(w, back);
      return;
    case dist::SdcSteal::Step::complete: {
      const std::uint64_t count = s.count();
      const double reply = back + machine_.transfer_ns(w.hop, static_cast<std::size_t>(count) * slot_bytes_);
      StealCounts& c = result_.remote_steals[static_cast<std::size_t>(w.hop)];
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += count * slot_bytes_;
      ++result_.messages.nonblocking;
      const double lands = reply + machine_.latency_ns(w.hop) / 2;
      at_rank_[static_cast<std::size_t>(w.target)].add(lands);
      messages_.push({lands, message_seq_++, w.target, s});
      w.sdc.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:
      break;
  }
  w.sdc.reset();  // aborted: empty, or the lock stayed busy
  after_remote_failure(w, back);
}

template <class W>
void Engine<W>::deliver(const Message& m) {
  at_rank_[static_cast<std::size_t>(m.rank)].remove_earliest();
  SimWindow<Task>& win = windows_[static_cast<std::size_t>(m.rank)];
  if (const auto* sws = std::get_if<dist::SwsSteal>(&m.steal)) {
    dist::SwsSteal s = *sws;
    dist::sws_apply(s, win.stealval, win.completed);
  } else {
    dist::SdcSteal s = std::get<dist::SdcSteal>(m.steal);
    dist::sdc_apply(s, win.sdc, [](std::uint64_t) { return std::uint32_t{0}; });
  }
}

template <class W>
void Engine<W>::after_remote_failure(Worker& w, double t) {
  ++result_.remote_steals[static_cast<std::size_t>(w.hop)].failed;
  pause(w, t);
}

template <class W>
void Engine<W>::pause(Worker& w, double t) {
  const double delay = cfg_.backoff == BackoffModel::heist ? heist_backoff_ns(w.backoff_round) : 0.0;
  ++w.backoff_round;
  if (machine_.workers_per_rank() > 1) launch_thread_attempt(w, t + delay);
  else schedule(w, Step::attempt, t + delay);
}

template <class W>
void Engine<W>::receive(Worker& w, double t) {
  for (const Task& task : w.incoming) w.deque.push(task, false);
  if (w.deque.wanted()) w.deque.release();
  w.incoming.clear();
  w.steal_ns += t - w.attempt_start;
  w.search_since += t - w.attempt_start;  // the steal itself is not search time
  become_busy(w, t);
}

template <class W>
void Engine<W>::become_busy(Worker& w, double t) {
  w.search_ns += std::max(0.0, t - w.search_since);
  w.clock = t;
  w.backoff_round = 0;
  schedule(w, Step::busy, t);
}

}  // namespace heist::sim
