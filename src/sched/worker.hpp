// Worker: one thread of the runtime with its SplitDeque. It spawns (queue or
// inline, as the spawn policy says), executes tasks, and waits by helping:
// a worker that waits keeps running its own tasks and stealing others' —
// it never idles while work exists (DESIGN layer 3).
//
// Bounded nesting (stack safety): a task run while waiting runs on the
// waiter's stack. Each nested wait increments help_depth_; past
// Options::max_help_depth a waiter only runs tasks from its own deque (never
// steals), and tasks run inline count against SLAW's S. Escaping asyncs
// (finish + async) never nest: a task that spawns and returns leaves its
// children to the deque, so a DFS over millions of vertices under help-first
// uses a constant stack (the deque grows instead).
//
// Continuation stealing (work-first, adaptive; ContinuationEngine): task
// bodies run on fibers, which may be suspended on one worker and resumed on
// another. What describes the running stack (StackState) travels with it,
// and member code that runs after a task body or a wait that may have moved
// the stack continues on Worker::resumed(), never on `this`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <string_view>
#include <vector>

#include "heist/detail/abi.hpp"
#include "heist/stats.hpp"
#include "platform/rng.hpp"
#include "policy/search_driver.hpp"
#include "policy/spawn_driver.hpp"
#include "sched/continuations.hpp"
#include "sched/frame.hpp"
#include "sched/remote_work.hpp"
#include "sched/split_deque.hpp"
#include "sched/sync_node.hpp"
#include "task/task_slot.hpp"
#include "trace/worker_trace.hpp"

namespace heist::sched {

class Scheduler;

class Worker : public detail::WorkerCore {
 public:
  Worker(Scheduler& scheduler, int id);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  static Worker* current() noexcept { return static_cast<Worker*>(detail::tls_worker); }
  // The calling thread's worker, read in a call the optimiser cannot see
  // through: for code that may have resumed on another thread.
  [[gnu::noinline]] static Worker* resumed() noexcept;
  void bind() noexcept;    // make this the calling thread's worker
  void unbind() noexcept;

  int id() const noexcept { return id_; }
  Scheduler& scheduler() noexcept { return sched_; }
  std::uint32_t rank() const noexcept { return rank_; }
  void attach_remote(RemoteWork* remote, std::uint32_t rank) noexcept;

  // ---- distributed regions (worker 0; Runtime::root / Runtime::pool) ----
  // Runs body(ctx) (if seed) under a finish, helps until it drains, then
  // until every rank's region is done; stops the other workers. A task
  // exception is left for the caller to rethrow after the ranks met.
  // With `pool`, the spawns body() makes itself are all queued: they are the
  // task pool every worker and rank draws from (Runtime::pool).
  void run_region(void (*body)(void*), void* ctx, bool seed, bool pool);

  // ---- for rma/ (RemoteWork implementations) ----
  std::size_t queued() const noexcept { return deque_.size(); }
  // Moves up to `max` of the oldest queued tasks that may leave the process
  // (registered, not local-only, output <= max_output) to `out`, stride bytes
  // each; returns how many.
  std::uint32_t take_oldest(std::uint32_t max, std::vector<std::byte>& out, std::size_t max_output);
  void accept_stolen(const std::byte* slot);  // a task from another process (or back from the window)
  // Completion of one of this process's tasks that ran on another rank.
  void finish_foreign(task::GlobalRef completion, task::GlobalRef sync, task::GlobalRef out, const void* bytes,
                      std::size_t size, std::string_view error);
  // Another rank found this process's public queue empty: queue the next
  // spawn and release it at once (end_queue polls right after queueing it).
  void want_work() noexcept {
    remote_asked_ = true;
    work_wanted.store(true, std::memory_order_relaxed);
  }
  WorkerStats& stats_ref() noexcept { return stats_; }
  ContinuationEngine* continuations() noexcept { return conts_.get(); }
  // Does a wait here suspend its fiber (work-first, adaptive in its
  // work-first mode) rather than help in place (every other policy)?
  bool waits_by_suspending() const noexcept;
  // --trace: this worker's events (null when off; only the slow paths test it).
  void attach_trace(trace::WorkerTrace* t) noexcept { trace_ = t; }
  trace::WorkerTrace* trace() const noexcept { return trace_; }
  // A steal this worker made from [from_ns, now]; victim_track: a worker or trace::kPublicQueueTrack.
  void trace_steal(std::int64_t from_ns, int victim_rank, int victim_track, std::uint32_t taken);

  // Owner thread: the worker is looking for work (its load is its queue alone).
  bool searching() const noexcept { return searching_; }

  // The machine this worker steals in, and its place there: its search
  // driver (victim policy Options::victim, chunks) is made for it. Before
  // the first region.
  void set_places(const policy::Topology& topology, int place_base);
  // The drivers that make this worker's scheduling decisions (tests attach
  // a DecisionLog to them; nothing else may touch them while a region runs).
  policy::SpawnDriver& spawn_driver() noexcept { return spawn_; }
  policy::SearchDriver& search_driver() noexcept { return *search_; }

  // ---- spawning (slow paths of the inline templates) ----
  void spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out, detail::Join join);
  void spawn_closure(const detail::ClosureOps& ops, void* object);
  detail::SyncNode* spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                      detail::SyncNode* const* after, std::size_t n_after);

  // ---- joining ----
  void wait_current();  // wait() of the running task
  void wait_root();     // worker 0 at top level: every task of the root context, escaping ones included
  void fence_current();
  detail::FrameCore* finish_begin(int policy = -1);
  void finish_end(detail::FrameCore* finish);
  void wait_sync(detail::SyncNode* node);

  // ---- C API single steps ----
  bool execute_one();           // run one task of this worker's deque
  std::uint32_t steal_once();   // one steal attempt; tasks taken
  bool root_empty() noexcept;   // no task in the root context (worker 0)

  // ---- worker threads ----
  void run_until_stopped();  // body of workers 1..N-1

  WorkerStats stats() const;
  void reset_stats() noexcept;
  bool parked() const noexcept { return parked_.load(std::memory_order_seq_cst); }  // see Scheduler::quiesce

  // Swap the state of the running stack with `s` (ContinuationEngine switches).
  void exchange_stack(StackState& s) noexcept;
  Frame& current_frame() noexcept { return *static_cast<Frame*>(this->frame); }

 private:
  friend class ContinuationEngine;
  template <class Done>
  void help_until(Done&& done);
  void wait_frame(Frame& frame);
  void execute(std::byte* slot);
  void end_task(Frame& child, detail::FrameCore* saved, const task::TaskHeader& h, std::int64_t traced_from);
  policy::SpawnAction decide_spawn();
  std::int64_t inline_budget() const noexcept;
  [[noreturn]] void stack_exhausted() const;
  SpawnPolicy policy_here() const noexcept;
  void execute_foreign(std::byte* slot);
  void poll_remote();
  std::byte* queue_slot();  // the deque's next slot, or nullptr: run the spawn inline
  void complete(detail::FinishScope* scope) noexcept;
  void enroll(detail::FinishScope* scope) noexcept;
  void grant(std::int64_t credits) noexcept;
  std::uint64_t fast_inlined() const noexcept { return fast_inlined_ + static_cast<std::uint64_t>(granted_ + room); }
  void check_task(std::uint32_t fn, std::size_t in_size) const;
  void end_queue(Frame& frame, detail::Join join, std::byte* slot, bool held = false, bool expose = false);
  void push_copy(const std::byte* slot);
  void flush_fence(Frame& frame);
  void enter_region() noexcept;
  void leave_region();
  void release_dependents(detail::SyncNode* node);
  std::uint32_t try_steal();
  std::uint32_t steal_local(int victim, policy::Level level);
  bool may_steal() const noexcept { return search_->can_steal(); }
  bool remote_region() const noexcept { return remote_ != nullptr && remote_->region_active(); }
  void request_across();
  void run_overflow();
  template <class Call>
  void run_inline(Call&& call);
  Frame& joined_frame();  // the running task's frame, made now if it runs inline without one
 public:
  void close_inline_frame() noexcept;
 private:
  std::byte* exec_buffer(int depth);
  void set_frame(detail::FrameCore* f) noexcept {
    frame = f;
    frame_level = f->level;
  }
  void park();
  std::int64_t trace_begin();  // a traced task starts now: sample the queue
  bool at_top_level() const noexcept { return id_ == 0 && depth_ == 0 && native_; }

  Scheduler& sched_;
  const int id_;
  std::uint32_t rank_ = 0;           // this process's rank (GlobalRefs name it)
  RemoteWork* remote_ = nullptr;     // tasks may move between processes (null: one process)
  int poll_interval_;
  int poll_countdown_;
  bool remote_asked_ = false;        // owner-only: set by want_work() (called on this worker's thread)
  // Between processes a thief of another rank cannot raise work_wanted: it is
  // heard only when this worker polls, which inline spawns never do; the
  // spawn driver says when the slow path polls, and paces inline credits.
  std::int64_t last_poll_ns_ = 0;
  bool queue_seeds_ = false;          // Runtime::pool's seed body runs: its own spawns are all queued
  SplitDeque deque_;
  bool searching_ = false;
  policy::SpawnDriver spawn_;                      // queue / inline / expose, credits
  std::unique_ptr<policy::SearchDriver> search_;   // victims, chunks, poll rounds, back-off (set_places)
  std::size_t input_capacity_;
  bool publish_next_ = false;  // the task being queued is for thieves: release it at once
  int max_help_depth_;
  int help_depth_ = 0;   // nested help loops on this stack
  int depth_ = 0;        // queued tasks running on this stack (bounded: they hold a queue slot)
  Frame root_frame_;
  detail::FinishScope root_scope_;
  StackContainers native_containers_;            // finish scopes, inline frames, exec buffers of the thread's stack
  StackContainers* stack_ = &native_containers_;  // ... of the running stack
  std::vector<std::byte> overflow_;  // stolen slots that did not fit this deque (stride bytes each)
  std::atomic<bool> parked_{false};
  trace::WorkerTrace* trace_ = nullptr;
  // The rest of the running stack's state (StackState; with the fields of
  // WorkerCore and depth_ ... stack_ above).
  int ctx_;                       // owner id of scopes opened on this stack (== id_ on the native stack)
  bool native_ = true;            // running on the thread's own stack
  int no_migrate_ = 0;            // code below must stay on this worker (foreign tasks, full deque)
  int base_level_ = 0;            // level of the stack's bottom
  const char* stack_low_ = nullptr;
  const char* stack_high_ = nullptr;
  SpawnPolicy run_policy_;
  std::unique_ptr<ContinuationEngine> conts_;  // null unless the run uses continuations

  // Statistics (owner-written; read by the scheduler when the worker is parked).
  WorkerStats stats_;
  std::uint64_t deferred_ = 0;       // tasks queued
  std::uint64_t slow_inlined_ = 0;   // inlined by the slow path
  std::uint64_t fast_inlined_ = 0;   // inlined by the fast path, up to the last grant
  std::int64_t granted_ = 0;         // credits of the last grant (see grant())
  std::int64_t active_since_ns_ = 0;
  std::int64_t active_ns_ = 0, search_ns_ = 0, steal_ns_ = 0;
  std::int64_t level_ns_[policy::kLevels] = {};  // steal attempts by level
  std::int64_t comm_ns_ = 0;  // polls between tasks and completions sent (WorkerStats::time_comm_s)
};

}  // namespace heist::sched
