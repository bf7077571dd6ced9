// RemoteWork: what a worker asks of the layer above it (rma/) when tasks
// may move between processes. The scheduler knows nothing of MPI: it calls
// these hooks, and a process without MPI has none (Scheduler::remote() is
// null), so the one-process paths pay one pointer test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "policy/topology.hpp"
#include "policy/search_driver.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

class Worker;

struct StealOutcome {
  std::uint32_t tasks = 0;
  bool attempted = false;
};

class RemoteWork {
 public:
  virtual ~RemoteWork() = default;

  // Inside a distributed region (Runtime::root / Runtime::pool) on every
  // rank: tasks may leave and enter the process. Relaxed read of a flag.
  virtual bool region_active() const noexcept = 0;

  // Between tasks (every --poll-interval) and while idle: apply arrived
  // completions, retire finished steals, release surplus tasks of `w`.
  virtual void poll(Worker& w) = 0;

  // Tasks this process offered to other ranks and nobody took: take them
  // back into `w` (Worker::accept_stolen). Returns tasks taken.
  virtual std::uint32_t reclaim(Worker& w) = 0;

  // One steal attempt on rank `victim`, which the thief meets at `level`
  // (node or machine). Stolen tasks are pushed into `w`. Not attempted when
  // another worker of this process is stealing from other ranks (--remote-steal
  // sequential).
  virtual StealOutcome steal(Worker& w, int victim, policy::Level level) = 0;

  // Success-only across nodes (HabaneroUPC++): read the ranks' advertised loads
  // and queue a request at a rank of another node that advertises work
  // (search.next_rank). That rank answers it with tasks, which poll()
  // delivers later; a request is never declined. true: one was queued.
  virtual bool request(Worker& w, policy::SearchDriver& search) = 0;
  // The last request `w` queued is still open: its answer has not been taken
  // by a poll yet (SearchDriver::failed polls at once then). Relaxed read.
  virtual bool awaits_answer(Worker& w) = 0;

  // A task of another rank finished here (its escaping descendants too):
  // deliver its output and completion to the rank that owns its finish.
  // `error` is non-empty when the task threw.
  virtual void send_completion(Worker& w, const task::TaskHeader& task, const void* out, std::size_t out_size,
                               std::string_view error) = 0;
  // A foreign proxy drained (sched/proxy_scope.hpp): `count` escaping tasks
  // of the finish scope `origin` (on another rank) finished here, their
  // descendants too; `error` is the first a task raised, or empty.
  virtual void send_report(Worker& w, task::GlobalRef origin, std::uint32_t count, std::string_view error) = 0;

  // The distributed region may end: every rank's tasks are done.
  virtual bool region_done(Worker& w) = 0;
};

}  // namespace heist::sched
