// WorkerTrace: the trace events of one worker (the trace layer of docs/architecture.md), appended by
// that worker's thread only — no atomics, no locks. TraceRecorder owns one
// per worker and writes them all once the workers have stopped.
//
// What is recorded, only while tracing is on (the worker holds a null
// pointer otherwise, so the inline spawn fast path never sees tracing and
// the slow paths pay one predictable branch):
//  * task spans: a queued or stolen task from the start to the end of its
//    body, kept when it lasted at least --trace-min-us (inline spawns are
//    never recorded: they are the fast path);
//  * steals: the thief's steal operation as a span on its own track, a
//    zero-length mark on the victim's track, and a flow arrow victim -> thief;
//    a steal from another rank marks the victim rank's "public queue" track;
//  * queue length: the worker's deque length, sampled at most every
//    --trace-queue-us at spawns, task starts and steals.
// A worker keeps at most --trace-max-events events; later ones are counted
// as dropped, and the recorder says so when it writes the file.
#pragma once

#include <cstdint>
#include <vector>

namespace heist::trace {

// Track of a rank's public queue (between ranks): victims of remote steals.
inline constexpr std::int32_t kPublicQueueTrack = 100000;

struct Event {
  enum class Kind : std::uint8_t { task, steal, queue };
  Kind kind;
  std::int32_t victim_rank = 0;   // steal
  std::int32_t victim_track = 0;  // steal: a worker, or kPublicQueueTrack
  std::uint32_t value = 0;        // task: function id (or from-rank flag); steal: tasks taken; queue: length
  std::uint32_t from_rank = 0;    // task: rank that spawned it (foreign tasks)
  std::int64_t begin_ns = 0;
  std::int64_t end_ns = 0;        // task, steal
};

class WorkerTrace {
 public:
  WorkerTrace(std::int64_t min_task_ns, std::int64_t queue_interval_ns, std::size_t max_events)
      : min_task_ns_(min_task_ns), queue_interval_ns_(queue_interval_ns), max_events_(max_events) {}

  // A task's body ran from begin to end (fn: registry id or kClosureFn).
  void task(std::int64_t begin_ns, std::int64_t end_ns, std::uint32_t fn, std::uint32_t from_rank) {
    if (end_ns - begin_ns < min_task_ns_) return;
    Event e{Event::Kind::task};
    e.value = fn;
    e.from_rank = from_rank;
    e.begin_ns = begin_ns;
    e.end_ns = end_ns;
    add(e);
  }
  // This worker took `taken` tasks from a victim in [begin, end].
  void steal(std::int64_t begin_ns, std::int64_t end_ns, std::int32_t victim_rank, std::int32_t victim_track,
             std::uint32_t taken) {
    Event e{Event::Kind::steal};
    e.victim_rank = victim_rank;
    e.victim_track = victim_track;
    e.value = taken;
    e.begin_ns = begin_ns;
    e.end_ns = end_ns;
    add(e);
  }
  // The deque holds `length` tasks now; kept at most once per interval.
  void queue(std::int64_t now_ns, std::size_t length) {
    if (now_ns - last_queue_ns_ < queue_interval_ns_) return;
    last_queue_ns_ = now_ns;
    Event e{Event::Kind::queue};
    e.value = static_cast<std::uint32_t>(length);
    e.begin_ns = now_ns;
    add(e);
  }

  const std::vector<Event>& events() const noexcept { return events_; }
  std::uint64_t dropped() const noexcept { return dropped_; }

 private:
  void add(const Event& e) {
    if (events_.size() >= max_events_) {
      ++dropped_;
      return;
    }
    events_.push_back(e);
  }

  std::int64_t min_task_ns_;
  std::int64_t queue_interval_ns_;
  std::size_t max_events_;
  std::int64_t last_queue_ns_ = INT64_MIN / 2;
  std::uint64_t dropped_ = 0;
  std::vector<Event> events_;
};

}  // namespace heist::trace
