// Joins: a worker's wait/finish/fence machinery — the finish-scope counters
// (enroll/complete), wait() of the running task, finish scopes, fences,
// waits on handles, the root context and the distributed region
// (Runtime::root / Runtime::pool). Every wait helps (Dispatcher::help_until)
// until its condition holds. A part of Worker (worker.hpp); owner() is the
// worker it belongs to. Owner thread only, except FinishScope::remote (see
// complete()).
//
// Migration (worker.hpp): the waits here help in place (a help loop is
// pinned to its worker), so each returns on the worker it started on; a
// suspending wait is ContinuationEngine's and ends through Worker::resumed()
// (Dispatcher::end_task).
#pragma once

#include <cstdint>
#include <exception>
#include <vector>

#include "heist/detail/abi.hpp"
#include "sched/frame.hpp"
#include "sched/proxy_scope.hpp"
#include "sched/sync_node.hpp"

namespace heist::sched {

class Worker;

class Joins {
 public:
  explicit Joins(int id);
  Joins(const Joins&) = delete;
  Joins& operator=(const Joins&) = delete;

  void run_region(void (*body)(void*), void* ctx, bool seed, bool pool);
  void wait_current();
  // An async that ran inline on this stack threw: its finish raises it.
  void async_failed(std::exception_ptr failure) noexcept;
  void wait_root();
  void fence_current();
  detail::FrameCore* finish_begin(int policy);
  void finish_end(detail::FrameCore* finish);
  void wait_sync(detail::SyncNode* node);
  bool root_empty() noexcept;

 private:
  friend class Worker;
  friend class WorkerQueue;
  friend class Dispatcher;
  friend class Executor;
  friend class ContinuationEngine;

  // `n` tasks of `scope` are done (n > 1: a foreign proxy's report). The
  // owner's own count inline (every queued task ends here), the rest out
  // of line.
  void complete(detail::FinishScope* scope, std::int64_t n = 1) noexcept;
  void complete_shared(detail::FinishScope* scope, std::int64_t n) noexcept;
  void enroll(detail::FinishScope* scope) noexcept;
  // Does this worker count `scope` with plain increments (it owns it, and
  // it is not a sealed proxy)?
  bool counts_locally(const detail::FinishScope* scope) const noexcept;
  // A task whose IEF `ief` this worker does not count locally: the open
  // proxy (proxy_scope.hpp) it runs under instead.
  ProxyScope* open_proxy(detail::FinishScope* ief);
  // An escaping task of another rank's scope `origin`: the open foreign
  // proxy it runs under (proxy_scope.hpp), which now counts it.
  ForeignProxy* adopt_foreign(task::GlobalRef origin);
  // Out of tasks: seal every open proxy (proxy_scope.hpp).
  void seal_proxies() noexcept;
  bool has_open_proxies() const noexcept { return !open_proxies_.empty() || !open_foreign_.empty(); }
  // A sealed proxy has drained: deletes it and returns the scope it stood
  // for, which its drain completes once (Joins::complete); a foreign proxy
  // goes to reports_ instead (nullptr).
  detail::FinishScope* release_proxy(detail::FinishScope* scope) noexcept;
  // Drained foreign proxies this worker is to report (Executor::send_reports).
  std::vector<ForeignProxy*>& reports() noexcept { return reports_; }
  void wait_frame(Frame& frame);
  // Before a wait suspends (Worker::await_by_suspending): runs the tasks on
  // top of this worker's deque while `scope` has tasks outstanding, as a
  // help loop's first step does, as long as the stack stays on this worker.
  // Returns the worker it is on at the end: a task that suspended may have
  // resumed on another one, whose tasks are not the wait's to run.
  Worker& run_own_first(const detail::FinishScope& scope);
  void enter_region() noexcept;
  void leave_region();
  void settle_region() noexcept;  // leave_region's end of the region, without its rethrow
  [[noreturn]] void raise(std::exception_ptr failure);

  // The worker this part is a member of: computed from `this` (a fixed
  // offset, no load), so reaching it costs the spawn path nothing.
  Worker& owner() noexcept;
  const Worker& owner() const noexcept;
  detail::FinishScope root_scope_;
  Frame root_frame_;
  // The owner id of this worker's proxies (proxy_scope.hpp): a worker's,
  // not a stack's. No stack has it (stack ids are >= 0), so a fiber that
  // resumes on another worker never counts them locally there.
  const int proxy_owner_;
  std::vector<ProxyScope*> open_proxies_;  // opened by this worker, not sealed yet
  std::vector<ForeignProxy*> open_foreign_;  // the same, standing for other ranks' scopes
  std::vector<ForeignProxy*> reports_;       // drained here, not reported yet
};

}  // namespace heist::sched
