// RemoteWork: what a worker asks of the layer above it (dist/) when tasks
// may move between processes. The scheduler knows nothing of MPI: it calls
// these hooks, and a process without MPI has none (Scheduler::remote() is
// null), so the one-process paths pay one pointer test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "task/task_slot.hpp"

namespace heist::sched {

class Worker;

class RemoteWork {
 public:
  virtual ~RemoteWork() = default;

  // Inside a distributed region (Runtime::root / Runtime::pool) on every
  // rank: tasks may leave and enter the process. Relaxed read of a flag.
  virtual bool region_active() const noexcept = 0;

  // Between tasks (every --poll-interval) and while idle: apply arrived
  // completions, retire finished steals, release surplus tasks of `w`.
  virtual void poll(Worker& w) = 0;

  // One attempt to find work outside the process's worker deques: take back
  // tasks from the process's own public queue, else steal from another rank.
  // Stolen tasks are pushed into `w` (Worker::accept_stolen). Returns tasks taken.
  virtual std::uint32_t steal(Worker& w) = 0;

  // A task of another rank finished here (its escaping descendants too):
  // deliver its output and completion to the rank that owns its finish.
  // `error` is non-empty when the task threw.
  virtual void send_completion(Worker& w, const task::TaskHeader& task, const void* out, std::size_t out_size,
                               std::string_view error) = 0;

  // The distributed region may end: every rank's tasks are done.
  virtual bool region_done(Worker& w) = 0;
};

}  // namespace heist::sched
