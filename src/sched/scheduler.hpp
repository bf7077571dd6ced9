// Scheduler: the runtime of one process — its workers (the creating thread is
// worker 0), their threads, and the activity state that lets idle workers
// park between parallel regions.
//
// Activity protocol: worker 0 activates the scheduler when it queues a task
// or starts to wait at top level (outside every task), and deactivates it
// when the root context has no task left. Idle workers search with back-off
// while active and park (futex wait on `epoch_`) while inactive.
// `active_` is stored release / loaded acquire; `epoch_` is incremented
// (release) after every change, and a parking worker loads it (acquire)
// before re-checking `active_`, so a wake-up between check and wait is never
// lost. `parked_` (per worker) is stored after the worker's last statistics
// update, so stats() reads them after loading it. Parking is a handshake
// (all four accesses seq_cst): quiesce() stores active_ = false, then loads
// parked_; a waking worker stores parked_ = false, then loads active_. So a
// quiesce() that sees a worker parked is sure that worker will see the
// deactivation and park again before touching its statistics — a worker
// still waking up for a region that has already ended.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>
#include <vector>

#include "heist/options.hpp"
#include "heist/stats.hpp"
#include "platform/cache_line.hpp"
#include "platform/hw_topology.hpp"
#include "platform/kill_timer.hpp"
#include "platform/native_thread.hpp"
#include "platform/stack_guard.hpp"
#include "platform/thread_binding.hpp"
#include "policy/topology.hpp"
#include "task/task_registry.hpp"
#include "trace/trace_recorder.hpp"

namespace heist::sched {

class Worker;
class RemoteWork;
class FiberPool;

class Scheduler {
 public:
  explicit Scheduler(const Options& options);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  const Options& options() const noexcept { return options_; }
  int size() const noexcept { return static_cast<int>(workers_.size()); }
  Worker& worker(int i) noexcept { return *workers_[static_cast<std::size_t>(i)]; }
  const task::TaskRegistry& registry() const noexcept { return registry_; }
  std::size_t stride() const noexcept { return stride_; }
  // The fibers of continuation stealing; null when the run uses none.
  FiberPool* fiber_pool() const noexcept { return fibers_.get(); }

  void activate() noexcept;
  void deactivate() noexcept;
  bool active() const noexcept { return active_.load(std::memory_order_acquire); }
  bool active_seq_cst() const noexcept { return active_.load(std::memory_order_seq_cst); }  // Worker::park
  bool stopping() const noexcept { return stopping_.load(std::memory_order_acquire); }
  // Block until active or stopping.
  void wait_for_activity() const noexcept;

  // Between processes: the hooks every worker calls (null in a one-process
  // run). Set once, before the first parallel region.
  void attach_remote(RemoteWork* remote, int rank) noexcept;
  RemoteWork* remote() const noexcept { return remote_; }

  // Where the workers sit: this process's sites (hwloc or --hierarchy), and
  // the machine the policies see — this process alone, or, with several
  // ranks, every rank's workers (set_topology, before the first region).
  const platform::ProcessSites& sites() const noexcept { return sites_; }
  const policy::Topology& topology() const noexcept { return topology_; }
  int place_base() const noexcept { return place_base_; }  // place of worker 0
  void set_topology(policy::Topology topology, int place_base);

  // Deactivate must have happened: wait until workers 1.. are parked.
  void quiesce();

  RunStats stats();  // from worker 0, between parallel regions
  void reset_stats();

  // The first exception thrown by a queued task; rethrown by worker 0 when
  // its top-level wait or finish returns.
  void record_exception(std::exception_ptr error) noexcept;
  void rethrow_task_exception();
  std::exception_ptr take_task_exception() noexcept;  // and forget it

  // Workers of this process looking for work (Dispatcher::set_searching):
  // the spawn policy queues more public tasks while more of them wait.
  int searching_workers() const noexcept { return searching_count_.value.load(std::memory_order_relaxed); }
  void add_searching(int delta) noexcept { searching_count_.value.fetch_add(delta, std::memory_order_relaxed); }

  // Print a clear message when a worker's stack overflows (platform/stack_guard.hpp).
  // Called once the process's rank is known and MPI is initialised.
  void report_stack_overflows(int rank);

  // Fault injection (Options::kill_rank): SIGKILL this process after
  // `after_ms`, unless the scheduler is destroyed first.
  void arm_kill_timer(int after_ms, int rank);

 private:
  RemoteWork* remote_ = nullptr;
  // Written by workers as they start and stop searching, read by spawn slow
  // paths; alone on its line, so the fields around it stay quiet.
  // Relaxed: a hint for one spawn decision, ordered with nothing else.
  struct alignas(platform::kCacheLine) SearchingCount {
    std::atomic<int> value{0};
  };
  SearchingCount searching_count_;

  Options options_;
  task::TaskRegistry& registry_;
  std::size_t stride_;
  platform::ProcessSites sites_;
  policy::Topology process_topology_;  // this process's workers alone
  policy::Topology topology_;          // the machine (every rank's workers; set_topology)
  int place_base_ = 0;
  std::unique_ptr<FiberPool> fibers_;  // before workers_: it outlives them
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::unique_ptr<platform::NativeThread>> threads_;
  std::atomic<bool> active_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint32_t> epoch_{0};
  std::mutex error_mutex_;
  std::exception_ptr error_;  // guarded by error_mutex_
  std::unique_ptr<platform::KillTimer> kill_timer_;
  std::unique_ptr<platform::ThreadStackGuard> stack_guard_;  // worker 0's (the creating thread's)
  std::unique_ptr<platform::ThreadBinding> caller_binding_;  // --bind-workers pus: worker 0's, undone at the end
  std::unique_ptr<platform::StackOverflowHandler> overflow_handler_;
  std::unique_ptr<trace::TraceRecorder> trace_;  // --trace: written when the workers have stopped
};

}  // namespace heist::sched
