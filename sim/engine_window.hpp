// Engine<W>, owner side of a process's window: Distributor::poll and
// release_from (src/dist/distributor.cpp), at the polling worker's clock.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::poll(Worker& w) {
  w.poll_countdown = cfg_.options.poll_interval;
  SimWindow<Task>& win = windows_[static_cast<std::size_t>(w.rank)];
  OwnerOps ops;
  if (win.dry(ops)) {
    if (w.deque.size() >= 1) release_from(w, win, ops);
    else if (win.asked()) {  // Worker::want_work: queue the next spawn and release it
      w.remote_asked = true;
      w.work_wanted = true;
    }
  }
  charge(w, ops);
}

template <class W>
void Engine<W>::release_from(Worker& w, SimWindow<Task>& win, OwnerOps& ops) {
  const std::uint32_t room = win.room();
  if (room == 0) return;
  const auto half = static_cast<std::uint32_t>((w.deque.size() + 1) / 2);
  buffer_.clear();
  if (w.deque.take_oldest(std::min(room, half), buffer_) == 0) return;
  returned_.clear();
  win.release(buffer_, returned_, ops, slot_bytes_);
  result_.releases += buffer_.size();
  for (const Task& t : returned_) w.deque.push(t);  // Worker::accept_stolen
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
