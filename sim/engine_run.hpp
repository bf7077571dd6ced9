// Engine<W>::run, the main loop: rounds of events and busy workers up to
// the lookahead (see sim/engine.hpp for why the rounds are exact), from the
// root's spawn to the last task's end. Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
SimResult Engine<W>::run() {
  const auto wall_start = std::chrono::steady_clock::now();
  // Rank 0's region body spawns the root on worker 0; every other worker
  // starts searching at time 0.
  Worker& first = workers_[0];
  spawn_root(first);
  outstanding_ = 1;
  schedule(first, Step::busy, 0.0);
  busy_min_ = 0.0;
  for (std::size_t i = 1; i < workers_.size(); ++i) go_idle(workers_[i]);

  while (outstanding_ > 0) {
    // T: the earliest thing pending; H: nothing sent from T on arrives sooner.
    double t_min = busy_min_;
    if (!heap_.empty()) t_min = std::min(t_min, heap_.top().time);
    if (!messages_.empty()) t_min = std::min(t_min, messages_.top().time);
    if (t_min == std::numeric_limits<double>::infinity())
      throw std::logic_error("simulator: nothing left to do with " + std::to_string(outstanding_) +
                             " tasks outstanding");
    // Progress guard: no task may wait forever (a livelock of the modelled
    // runtime would otherwise run the simulator forever).
    if (t_min - last_begin_ > stall_limit_ns_)
      throw std::runtime_error("simulator: no task started for " + std::to_string((t_min - last_begin_) * 1e-9) +
                               " simulated s with " + std::to_string(outstanding_) +
                               " outstanding: the modelled scheduler livelocks");
    const double horizon = t_min + lookahead_;
    // (1) Every event before the horizon, in time order.
    for (;;) {
      const bool have_event = !heap_.empty() && heap_.top().time < horizon;
      const bool have_message = !messages_.empty() && messages_.top().time < horizon;
      if (!have_event && !have_message) break;
      ++result_.events;
      if (have_message && (!have_event || messages_.top().time <= heap_.top().time)) {
        Message m = messages_.top();
        messages_.pop();
        deliver(m);
        continue;
      }
      const EventKey key = heap_.top();
      Worker& w = workers_[key.id];
      switch (w.step) {
        case Step::attempt: start_attempt(w, key.time); break;
        case Step::thread_claim: apply_thread_claim(w, key.time); break;
        case Step::remote_op: apply_remote_op(w, key.time); break;
        case Step::receive: receive(w, key.time); break;
        case Step::poll_round: poll_round(w, key.time); break;
        case Step::busy:
        case Step::idle: throw std::logic_error("simulator: a busy or finished worker has an event");
      }
      if (outstanding_ == 0) break;
    }
    // (2) Every busy worker up to the horizon.
    busy_min_ = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < busy_.size() && outstanding_ > 0;) {
      Worker& w = workers_[static_cast<std::size_t>(busy_[i])];
      if (w.clock < horizon) {
        ++result_.events;
        run_busy(w, horizon);
      }
      if (w.step != Step::busy) continue;  // it went idle: busy_[i] is another worker now
      busy_min_ = std::min(busy_min_, w.clock);
      ++i;
    }
  }

  // Statistics: a worker's time after its last task until the makespan is search.
  result_.time_s = makespan_ * 1e-9;
  for (Worker& w : workers_) {
    const double idle_from = w.step == Step::busy ? w.clock : w.search_since;
    w.search_ns += std::max(0.0, makespan_ - idle_from);
    profile_.idle(w.step == Step::busy ? w.clock : w.idle_from, makespan_);
    end_remote(w, makespan_);  // a steal still in flight at the end
    result_.tasks += w.executed;
    result_.inlined += w.inlined;
    result_.queued += w.queued_spawns;
    result_.work_s += w.work_ns * 1e-9;
    result_.search_s += w.search_ns * 1e-9;
    result_.steal_s += w.steal_ns * 1e-9;
    result_.max_queue = std::max(result_.max_queue, w.max_queue);
  }
  result_.busy_profile = profile_.finish(makespan_, machine_.workers());
  result_.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result_;
}

}  // namespace heist::sim
