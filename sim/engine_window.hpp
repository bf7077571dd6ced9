// Engine<W>, owner side of a process: Distributor::poll, release_from and
// reclaim (src/rma/distributor.cpp), at the polling worker's clock. A poll
// drains the mailbox (success-only answers, pushes), records the worker's
// load, publishes the process's load and serves requests (success-only),
// pushes (push), and refills the public queue when it ran dry. Included by
// sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::poll(Worker& w) {
  w.poll_countdown = cfg_.options.poll_interval;
  w.last_poll = w.clock;
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  if (success_only_ || push_) drain_mailbox(w, proc);
  // This worker's load: its queued tasks, and the one it runs if it is not searching.
  w.load = static_cast<std::uint32_t>(w.deque.size()) + (w.step == Step::busy ? 1u : 0u);
  if (success_only_) {
    const std::uint32_t load = process_load(w.rank);
    if ((load > 0) != (proc.published > 0) || proc.published == 0xFFFFFFFFu) publish_load(w, proc, load);
    serve_requests(w, proc);
  }
  if (push_) push_step(w, proc);
  if (!one_sided_thieves_) return;
  OwnerOps ops;
  if (proc.window.dry(ops)) {
    const bool asked = proc.window.asked();
    if (w.deque.size() >= 1) {
      // Released because a thief of another rank asked: reserved for thieves
      // for a while (this process's idle workers do not take it back).
      if (release_from(w, proc, ops) > 0 && asked) proc.reserved_until = w.clock + reacquire_delay_ns_;
    } else if (asked) {  // Worker::want_work: queue the next spawn and release it
      w.remote_asked = true;
      w.work_wanted = true;
    }
  }
  charge(w, ops);
}

template <class W>
std::uint32_t Engine<W>::release_from(Worker& w, Process& proc, OwnerOps& ops) {
  const std::uint32_t room = proc.window.room();
  if (room == 0) return 0;
  const auto half = static_cast<std::uint32_t>((w.deque.size() + 1) / 2);
  std::uint32_t offer = std::min(room, half);
  if (sws_offer_cap_ > 0) offer = std::min(offer, sws_offer_cap_);
  buffer_.clear();
  if (w.deque.take_oldest(offer, buffer_) == 0) return 0;
  returned_.clear();
  proc.window.release(buffer_, returned_, ops, slot_bytes_);
  result_.releases += buffer_.size();
  for (const Task& t : returned_) w.deque.push(t);  // Worker::accept_stolen
  return static_cast<std::uint32_t>(buffer_.size());
}

// Tasks the process offered and nobody took, unless still reserved for the
// thief of another rank that asked. nullopt: SDC's lock is held by a thief.
template <class W>
std::optional<std::uint32_t> Engine<W>::reclaim(Worker& w) {
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  if (!proc.window.offering() || w.clock < proc.reserved_until) return 0;
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
