// Dispatcher: a worker's dispatch/help loop and what it runs (oneTBB's
// task_dispatcher). help_until pops this worker's own tasks and executes
// them; when there are none it carries out one iteration of its
// policy::SearchLoop (search_once: a claim on another worker's deque, a
// steal from another rank or a request; a poll round; a back-off), whose
// order is the simulator's too; the tasks it finds run through Executor
// (worker_executor.hpp). It keeps the search and communication statistics.
// A part of Worker (worker.hpp); owner() is the worker it belongs to.
// Owner thread only.
//
// Migration (worker.hpp): a task body may end on another worker (see
// Executor), but a help loop itself is
// pinned to its worker (ContinuationEngine::wait_pinned/yield_to_pinned):
// help_until returns on the worker it started on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "heist/detail/abi.hpp"
#include "heist/options.hpp"
#include "platform/backoff.hpp"
#include "platform/pace_clock.hpp"
#include "policy/help_floor.hpp"
#include "policy/search_driver.hpp"
#include "policy/search_loop.hpp"
#include "sched/frame.hpp"
#include "sched/remote_work.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

class Worker;

// Closure payload: the ClosureOps pointer, then the object 16-aligned.
inline constexpr std::size_t kClosureObject = 16;

class Dispatcher {
 public:
  explicit Dispatcher(const Options& options);
  Dispatcher(const Dispatcher&) = delete;
  Dispatcher& operator=(const Dispatcher&) = delete;

  void set_places(const policy::Topology& topology, int place_base);
  // Pops, executes and searches until done() holds (worker_loop.hpp).
  // `floor`: what it may claim from the other workers of its process
  // (policy::help_floor; a wait for joined children).
  template <class Done>
  void help_until(Done&& done, std::int64_t floor = policy::kNoFloor);
  bool execute_one();          // C API: run one task of this worker's deque
  std::uint32_t steal_once();  // C API: one steal attempt; tasks taken

 private:
  friend class Worker;
  friend class WorkerQueue;
  friend class Joins;
  friend class Executor;
  friend class ContinuationEngine;

  void poll_remote();
  // After a queued task of a distributed run (SpawnDriver::poll_after_task).
  void poll_between_tasks();
  void run_overflow();
  // Out of own tasks, before a search step: the proxies this worker opened
  // may drain now (Joins::seal_proxies), and the foreign ones that drained
  // (here, or on this worker's completions) report. Every search loop
  // calls it: help_until, steal_once, the fiber scheduler's step.
  void out_of_tasks();
  // A search loop of this worker: waiting (a process's first worker, or
  // below a task) or idle back-off limits.
  policy::SearchLoop search_loop(bool waiting) const;
  // What the loop's next iteration starts from.
  policy::SearchView search_view(std::int64_t floor, bool within_depth) const noexcept;
  // One iteration of `loop`, its answers carried out up to its wait (a
  // back-off or a pause): true when it found tasks (in the deque or the
  // overflow list). searching_since: when the worker started looking (0: now).
  bool search_once(policy::SearchLoop& loop, std::int64_t floor, bool within_depth, std::int64_t& searching_since);
  // One step of `loop` without its failure path (the C API's steal_once).
  std::uint32_t try_steal(policy::SearchLoop& loop, std::int64_t floor = policy::kNoFloor);
  // The steal of `step` (steal_here, steal_rank), with its statistics.
  StealOutcome steal_step(const policy::SearchStep& step, std::int64_t floor);
  std::uint32_t steal_local(int victim, policy::Level level, std::int64_t floor = policy::kNoFloor);
  void request_across();
  // The worker starts or stops looking for work: keeps the process's count
  // of searching workers (Scheduler::searching_workers) in step.
  void set_searching(bool searching) noexcept {
    if (searching != searching_) change_searching(searching);
  }
  void change_searching(bool searching) noexcept;

  // The worker this part is a member of: computed from `this` (a fixed
  // offset, no load), so reaching it costs the spawn path nothing.
  Worker& owner() noexcept;
  const Worker& owner() const noexcept;
  std::unique_ptr<policy::SearchDriver> search_;  // victims, chunks, poll rounds, back-off (set_places)
  bool searching_ = false;
  int poll_interval_;
  int poll_countdown_;
  // Between processes a thief of another rank cannot raise work_wanted: it is
  // heard only when this worker polls, which inline spawns never do; the
  // spawn driver says when the slow path polls, and paces inline credits.
  // Both read pace_clock_ (the time-stamp counter where it is invariant,
  // cheaper than steady_clock: docs/design/paced-grants.md), in its own base.
  platform::PaceClock pace_clock_;
  std::int64_t last_poll_ns_ = 0;  // pace_clock_ time
  // Statistics (WorkerStats::time_*).
  std::int64_t search_ns_ = 0, steal_ns_ = 0;
  std::int64_t level_ns_[policy::kLevels] = {};  // steal attempts by level
  std::int64_t comm_ns_ = 0;  // polls between tasks and completions sent (WorkerStats::time_comm_s)
};

}  // namespace heist::sched
