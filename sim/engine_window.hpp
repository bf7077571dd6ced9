// Engine<W>, owner side of a process's window: Distributor::poll and
// release_from (src/dist/distributor.cpp), at the polling worker's clock.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::poll(Worker& w) {
  w.poll_countdown = cfg_.options.poll_interval;
  w.last_poll = w.clock;
  SimWindow<Task>& win = windows_[static_cast<std::size_t>(w.rank)];
  OwnerOps ops;
  if (win.dry(ops)) {
    const bool asked = win.asked();
    if (w.deque.size() >= 1) {
      // Released because a thief of another rank asked: reserved for thieves
      // for a while (this process's idle workers do not take it back).
      if (release_from(w, win, ops) > 0 && asked)
        reserved_until_[static_cast<std::size_t>(w.rank)] = w.clock + reacquire_delay_ns_;
    } else if (asked) {  // Worker::want_work: queue the next spawn and release it
      w.remote_asked = true;
      w.work_wanted = true;
    }
  }
  if (!requests_.empty()) {  // SuccessOnly: publish the count, serve requests
    advertise(w.rank);
    ++ops.blocking;
  }
  charge(w, ops);
  if (!requests_.empty()) serve_requests(w);
}

template <class W>
std::uint32_t Engine<W>::release_from(Worker& w, SimWindow<Task>& win, OwnerOps& ops) {
  const std::uint32_t room = win.room();
  if (room == 0) return 0;
  const auto half = static_cast<std::uint32_t>((w.deque.size() + 1) / 2);
  buffer_.clear();
  if (w.deque.take_oldest(std::min(room, half), buffer_) == 0) return 0;
  returned_.clear();
  win.release(buffer_, returned_, ops, slot_bytes_);
  result_.releases += buffer_.size();
  for (const Task& t : returned_) w.deque.push(t);  // Worker::accept_stolen
  return static_cast<std::uint32_t>(buffer_.size());
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
