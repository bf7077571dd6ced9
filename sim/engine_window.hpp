// Engine<W>, owner side of a process, at the polling worker's clock: the
// effects and costs of a poll whose decisions are policy::PollPlan's
// (src/policy/poll_plan.hpp lists them in order) — the mailbox drained and
// requests answered (success-only), the load published, pushes (push), the
// public queue refilled when it ran dry, then the completion inbox — and the
// take-back of an unclaimed offer. Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::poll(Worker& w) {
  w.poll_countdown = cfg_.options.poll_interval;
  w.last_poll = w.clock;
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  w.load = policy::worker_load(w.deque.size(), w.step == Step::busy);  // before the mailbox, as the runtime
  // Then the completion inbox (Distributor::poll), without a read of the
  // posted count where the public queue's read brought it.
  const bool posted_read = poll_owner_part(w, proc);
  OwnerOps inbox_ops;
  drain_inbox(proc, inbox_ops, w.clock, posted_read);
  charge(w, inbox_ops);
}

// The part of a poll under the runtime's owner lock: the mailbox's, then the
// public queue's. Returns whether it read the inbox's posted count.
template <class W>
bool Engine<W>::poll_owner_part(Worker& w, Process& proc) {
  if (plan_.locality().success_only && !proc.requested.empty()) {
    // MailboxBalance::take_answers: the answer words of the open requests,
    // read as AnswerSlots::read_words does (the span at once, or one each).
    const auto [lowest, highest] = std::minmax_element(proc.requested.begin(), proc.requested.end());
    OwnerOps answer_ops;
    if (policy::answer_words_at_once(*lowest, *highest)) {
      answer_ops.blocking = 1;
      answer_ops.bytes = 8 * static_cast<std::uint64_t>(*highest - *lowest + 1);
    } else {
      answer_ops.blocking = static_cast<int>(proc.requested.size());
    }
    charge(w, answer_ops);
  }
  if (plan_.drains_mailbox()) {
    drain_mailbox(w, proc);
    if (plan_.locality().success_only) serve_requests(w, proc);
  }
  if (plan_.locality().success_only) {
    const std::uint32_t load = process_load(w.rank);
    if (plan_.publish_at_poll(load, proc.published)) publish_load(w, proc, load);
  }
  if (plan_.locality().push) push_step(w, proc);
  if (!plan_.watches_public_queue()) return false;
  OwnerOps ops;
  bool posted_read = false;
  if (proc.window.dry(ops, posted_read)) {
    const bool asked = proc.window.asked();
    const policy::DryStep dry = policy::PollPlan::on_dry(asked, w.deque.size());
    if (dry.want_work) want_work(w);
    if (dry.release) {
      const std::uint32_t released = release_from(w, proc, ops);
      const policy::ReleaseStep after = policy::PollPlan::after_release(released, asked);
      if (after.reserve) proc.reserved_until = w.clock + reacquire_delay_ns_;
    }
  }
  charge(w, ops);
  return posted_read;
}

// A thief of another rank waits: queue the next spawn, and poll right after it.
template <class W>
void Engine<W>::want_work(Worker& w) {
  w.remote_asked = true;
  w.work_wanted = true;
}

template <class W>
std::uint32_t Engine<W>::release_from(Worker& w, Process& proc, OwnerOps& ops) {
  const std::uint32_t offer = plan_.offer(proc.window.room(), w.deque.size());
  if (offer == 0) return 0;
  buffer_.clear();
  if (w.deque.take_oldest(offer, buffer_) == 0) return 0;
  returned_.clear();
  proc.window.release(buffer_, returned_, ops, slot_bytes_);
  result_.releases += buffer_.size();
  for (const Task& t : returned_) w.deque.push(t);  // handed straight back by the protocol
  return static_cast<std::uint32_t>(buffer_.size());
}

// Tasks the process offered and nobody took, unless still reserved for the
// thief of another rank that asked. nullopt: SDC's lock is held by a thief.
template <class W>
std::optional<std::uint32_t> Engine<W>::reclaim(Worker& w) {
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  if (!policy::PollPlan::may_reclaim(proc.window.offering(), w.clock, proc.reserved_until)) return 0;
  OwnerOps ops;
  buffer_.clear();
  const std::optional<std::uint32_t> n = proc.window.acquire(buffer_, ops);
  charge(w, ops);
  if (!n || *n == 0) return n;
  for (const Task& task : buffer_) w.deque.push(task);
  result_.public_acquires += *n;
  return n;
}

template <class W>
void Engine<W>::charge(Worker& w, const OwnerOps& ops) {
  if (ops.blocking == 0 && ops.bytes == 0) return;
  const double dt = ops.blocking * machine_.latency_ns(Hop::self) +
                    machine_.transfer_ns(Hop::self, static_cast<std::size_t>(ops.bytes));
  result_.messages.owner_ops += static_cast<std::uint64_t>(ops.blocking);
  w.clock += dt;
  if (w.step == Step::busy) w.work_ns += dt;
}

}  // namespace heist::sim
