// Engine<W>, thief side: an idle worker's search. Each attempt asks the
// worker's VictimPolicy (policy/victim_policy.hpp) for a place; a place of
// the thief's own process is tried like Worker::try_steal (one claim on its
// deque, src/sched/worker.cpp), a place of another process like
// Distributor::steal (take back this process's unclaimed offer first, then
// the runtime's SWS or SDC thief state machine on that rank's window, one
// communication per event; src/dist/distributor.cpp). A failed attempt
// backs off (platform::Backoff's delays) and asks the policy again.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

// Asks the victim policy for the next victim and sends the attempt's first
// communication. The choice is made when the attempt is scheduled rather
// than when it starts: each worker has its own policy object and RNG, so the
// choices, and the run, are the same — and a failed attempt costs one event.
template <class W>
void Engine<W>::launch_attempt(Worker& w, double start) {
  w.attempt_start = start;
  w.across_nodes = w.success_only != nullptr && w.success_only->inter_node_due();
  if (w.across_nodes) {  // SuccessOnly: a request to a rank that advertises work
    schedule(w, Step::remote_start, start);
    return;
  }
  w.choice = w.victims->next(w.rng);
  const int rank = machine_.rank_of(w.choice.place);
  if (rank != w.rank) {
    w.target = rank;
    schedule(w, Step::remote_start, start);
    return;
  }
  w.target = w.choice.place;
  w.hop = machine_.hop(w.id, w.target);
  ++counts(w, false).attempts;
  ++result_.messages.shm_ops;
  schedule(w, Step::thread_claim, start + machine_.latency_ns(w.hop) / 2);
}

template <class W>
void Engine<W>::apply_thread_claim(Worker& w, double t) {
  Worker& v = workers_[static_cast<std::size_t>(w.target)];
  advance(v, t);
  w.incoming.clear();
  const std::uint32_t k = v.deque.steal(
      [&](std::uint32_t available) { return chunk_.take(available, w.choice.level); }, w.incoming);
  // Nothing public left: ask the victim to queue more (Worker::try_steal).
  if (v.deque.public_size() == 0) v.work_wanted = true;
  const double back = t + machine_.latency_ns(w.hop) / 2;
  StealCounts& c = counts(w, false);
  if (k == 0) {
    ++c.failed;
    failed(w, back);
    return;
  }
  ++c.steals;
  c.tasks += k;
  schedule(w, Step::receive, back + machine_.transfer_ns(w.hop, std::size_t{k} * task_bytes_));
}

template <class W>
void Engine<W>::start_remote(Worker& w, double t) {
  w.clock = t;
  poll(w);  // completions, releases (help_until polls before a remote steal)
  // 1. Tasks this process offered and nobody took: take them back first,
  //    unless they are reserved for the thief of another rank that asked.
  SimWindow<Task>& own = windows_[static_cast<std::size_t>(w.rank)];
  if (own.offering() && w.clock >= reserved_until_[static_cast<std::size_t>(w.rank)]) {
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
      result_.public_acquires += *n;
      become_busy(w, w.clock);
      return;
    }
  }
  // 2. SuccessOnly across nodes: read the advertisements (one round trip).
  if (w.across_nodes) {
    ++result_.advert_reads;
    ++result_.messages.blocking;
    schedule(w, Step::advert_read, w.clock + machine_.latency_ns(Hop::network) / 2);
    return;
  }
  // 2. The rank of the place the policy chose.
  w.hop = machine_.hop_to_rank(w.id, w.target);
  w.incoming.clear();
  ++counts(w, true).attempts;
  if (cfg_.options.protocol == StealProtocolKind::sws) {
    w.sws.emplace(w.empty_targets.count(w.target) != 0 ? dist::sws::TargetMode::empty : dist::sws::TargetMode::full);
  } else {
    w.sdc.emplace(static_cast<std::uint64_t>(w.id) + 1);
    w.polls = 0;
  }
  issue_remote_op(w, w.clock);
}

template <class W>
void Engine<W>::issue_remote_op(Worker& w, double t) {
  ++result_.messages.blocking;
  schedule(w, Step::remote_op, t + machine_.latency_ns(w.hop) / 2);
}

template <class W>
void Engine<W>::apply_remote_op(Worker& w, double t) {
  advance_rank(w.target, t);
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
      StealCounts& c = counts(w, true);
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += std::uint64_t{count} * slot_bytes_;
      ++result_.messages.nonblocking;
      const double lands = reply + machine_.latency_ns(w.hop) / 2;
      messages_.push({lands, message_seq_++, w.target, s});
      w.sws.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:  // aborted: nothing to take
      w.sws.reset();
      ++counts(w, true).failed;
      failed(w, back);
      return;
  }
}

template <class W>
void Engine<W>::apply_sdc(Worker& w, SimWindow<Task>& win, double t) {
  dist::SdcSteal& s = *w.sdc;
  if (s.step() == dist::SdcSteal::Step::copy)  // the get reads the claimed tasks now
    for (std::uint64_t i = s.first(); i < s.first() + s.count(); ++i) w.incoming.push_back(win.ring.read(i));
  dist::sdc_apply(s, win.sdc, [&](std::uint64_t available) {
    return remote_chunk_.take(static_cast<std::uint32_t>(std::min<std::uint64_t>(available, 0xFFFFFFFFu)),
                              w.choice.level);
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
      StealCounts& c = counts(w, true);
      ++c.steals;
      c.tasks += count;
      result_.messages.bytes += count * slot_bytes_;
      ++result_.messages.nonblocking;
      const double lands = reply + machine_.latency_ns(w.hop) / 2;
      messages_.push({lands, message_seq_++, w.target, s});
      w.sdc.reset();
      schedule(w, Step::receive, reply);
      return;
    }
    default:
      break;
  }
  w.sdc.reset();  // aborted: empty, or the lock stayed busy
  ++counts(w, true).failed;
  failed(w, back);
}

template <class W>
void Engine<W>::deliver(const Message& m) {
  advance_rank(m.rank, m.time);
  SimWindow<Task>& win = windows_[static_cast<std::size_t>(m.rank)];
  if (const auto* sws = std::get_if<dist::SwsSteal>(&m.steal)) {
    dist::SwsSteal s = *sws;
    dist::sws_apply(s, win.stealval, win.completed);
  } else {
    dist::SdcSteal s = std::get<dist::SdcSteal>(m.steal);
    dist::sdc_apply(s, win.sdc, [](std::uint64_t) { return std::uint32_t{0}; });
  }
}

// A failed attempt, known at time t: tell the policy, back off, try again.
template <class W>
void Engine<W>::failed(Worker& w, double t) {
  w.victims->on_result(w.choice, 0);
  const double delay = cfg_.backoff == BackoffModel::heist ? heist_backoff_ns(w.backoff_round, w.backoff_limits) : 0.0;
  ++w.backoff_round;
  launch_attempt(w, t + delay);
}

template <class W>
void Engine<W>::receive(Worker& w, double t) {
  const auto k = static_cast<std::uint32_t>(w.incoming.size());
  for (const Task& task : w.incoming) w.deque.push(task, false);
  if (w.deque.wanted()) w.deque.release();
  w.incoming.clear();
  w.victims->on_result(w.choice, k);
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
