// Worker: one thread of the runtime with its SplitDeque. It spawns (queue or
// inline, as the spawn policy says), executes tasks, and waits by helping:
// a worker that waits keeps running its own tasks and stealing others' (the
// sched layer of docs/architecture.md) — under a help floor only tasks
// deeper than its waiting frame (policy/help_floor.hpp, --waiter-steals).
//
// Bounded nesting (stack safety): a task run while waiting runs on the
// waiter's stack. Each nested wait increments help_depth_; past
// Options::max_help_depth a waiter never steals (nor requests): it runs its
// own deque and polls, so completions, its process's unclaimed offer and
// tasks other ranks handed over still reach it; tasks run inline count
// against SLAW's S. Escaping asyncs
// (finish + async) never nest: a task that spawns and returns leaves its
// children to the deque, so a DFS over millions of vertices under help-first
// uses a constant stack (the deque grows instead).
//
// Continuation stealing (work-first, adaptive; ContinuationEngine): task
// bodies run on fibers, which may be suspended on one worker and resumed on
// another. What describes the running stack (StackState) travels with it,
// and member code that runs after a task body or a wait that may have moved
// the stack continues on Worker::resumed(), never on `this`.
//
// The parts (oneTBB's thread_data / arena_slot / task_dispatcher split):
// Worker is the thread's record — its identity, the running stack's state
// (StackState), the continuation engine, statistics — and holds three parts
// by value; each reaches it through owner() (a fixed offset from the part):
//   WorkerQueue (worker_queue.hpp): the owner side of the SplitDeque, the
//     spawn path (SpawnDriver, inline credits), inline frames, dependencies.
//   Dispatcher (worker_dispatch.hpp): the help loop and the search
//     (SearchDriver, back-off, RemoteWork polls).
//   Executor (worker_executor.hpp): running a task (frame, body, exception,
//     implicit wait, completion), tasks of other processes.
//   Joins (worker_joins.hpp): finish-scope counters, waits, finish, fences,
//     regions.
// What thieves write (work_wanted) stays on WorkerCore's second cache line.
// The migration rule holds in every part: a part's owner() is the worker
// the call started on; code after a task body or a wait that may
// have moved the stack goes on through Worker::resumed() and its part, as
// Executor::execute does; code after an expose does nothing.
#pragma once

#include <cstddef>  // offsetof
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
#include "policy/spawn_machine.hpp"
#include "sched/continuations.hpp"
#include "sched/frame.hpp"
#include "sched/remote_work.hpp"
#include "sched/split_deque.hpp"
#include "sched/sync_node.hpp"
#include "sched/worker_dispatch.hpp"
#include "sched/worker_executor.hpp"
#include "sched/worker_joins.hpp"
#include "sched/worker_queue.hpp"
#include "task/task_slot.hpp"
#include "trace/worker_trace.hpp"

namespace heist::sched {

class Scheduler;

class Worker : public detail::WorkerCore {
 public:
  Worker(Scheduler& scheduler, int id);
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;

  static Worker* current() noexcept {
    detail::WorkerCore* core = detail::tls_worker;
    return core == &detail::outside_worker ? nullptr : static_cast<Worker*>(core);
  }
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
  void run_region(void (*body)(void*), void* ctx, bool seed, bool pool) { joins_.run_region(body, ctx, seed, pool); }

  // ---- for rma/ (RemoteWork implementations) ----
  std::size_t queued() const noexcept { return queue_.deque_.size(); }
  // Some queued task would report back by itself if it ran in another
  // process (task::reports_back; PollPlan::answer_size). Reads every slot.
  bool queued_report_back() const {
    return queue_.deque_.any_of([](const std::byte* slot) { return task::reports_back(*task::header(slot)); });
  }
  // Moves up to `max` of the oldest queued tasks that may leave the process
  // (registered, not local-only, output <= max_output) to `out`, stride bytes
  // each; returns how many.
  std::uint32_t take_oldest(std::uint32_t max, std::vector<std::byte>& out, std::size_t max_output) {
    return queue_.take_oldest(max, out, max_output);
  }
  // A task from another process (or back from the window).
  void accept_stolen(const std::byte* slot) { queue_.accept_stolen(slot); }
  // Publishes the older half of the private tasks (PollPlan::release_answered).
  void release_half() noexcept { queue_.deque_.release(); }
  // A success-only answer draws on the whole process (PollPlan::answer_size):
  // the public tasks of this process's other workers (relaxed reads, a
  // hint), and claiming up to `max` of them, sibling by sibling with the
  // thieves' protocol, into this worker's deque (returns how many).
  std::size_t siblings_public() const noexcept;
  std::uint32_t collect_from_siblings(std::uint32_t max);
  // Completion of one of this process's tasks that ran on another rank.
  void finish_foreign(task::GlobalRef completion, task::GlobalRef sync, task::GlobalRef out, const void* bytes,
                      std::size_t size, std::string_view error, std::uint32_t count) {
    exec_.finish_foreign(completion, sync, out, bytes, size, error, count);
  }
  // Another rank found this process's public queue empty: queue the next
  // spawn and release it at once (end_queue polls right after queueing it).
  void want_work() noexcept {
    queue_.remote_asked_ = true;
    ask_for_work();
  }
  WorkerStats& stats_ref() noexcept { return stats_; }
  ContinuationEngine* continuations() noexcept { return conts_.get(); }
  // Does a wait here suspend its fiber (work-first, adaptive in its
  // work-first mode, every policy under --suspend-waits on) rather than
  // help in place?
  bool waits_by_suspending() const noexcept;
  // A wait on `scope` that suspends (waits_by_suspending, conts_, and
  // can_suspend): under a policy that does not steal continuations the
  // wait first runs the tasks on top of its own deque (Joins::run_own_first),
  // then suspends its fiber until `scope` drains. Returns the worker the
  // caller goes on with (it may be another one); if the fiber could not
  // suspend, the caller's own wait helps on it.
  Worker& await_by_suspending(detail::FinishScope& scope);
  // --trace: this worker's events (null when off; only the slow paths test it).
  void attach_trace(trace::WorkerTrace* t) noexcept { trace_ = t; }
  trace::WorkerTrace* trace() const noexcept { return trace_; }
  // A steal this worker made from [from_ns, now]; victim_track: a worker or trace::kPublicQueueTrack.
  void trace_steal(std::int64_t from_ns, int victim_rank, int victim_track, std::uint32_t taken);

  // Owner thread: the worker is looking for work (its load is its queue alone).
  bool searching() const noexcept { return dispatch_.searching_; }

  // The machine this worker steals in, and its place there: its search
  // driver (victim policy Options::victim, chunks) is made for it. Before
  // the first region.
  void set_places(const policy::Topology& topology, int place_base) { dispatch_.set_places(topology, place_base); }
  // The drivers that make this worker's scheduling decisions (tests attach
  // a DecisionLog to them; nothing else may touch them while a region runs).
  policy::SpawnMachine& spawn_machine() noexcept { return queue_.spawn_; }
  policy::SearchDriver& search_driver() noexcept { return *dispatch_.search_; }

  // ---- spawning (slow paths of the inline templates; WorkerQueue) ----
  void spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out, detail::Join join) {
    queue_.spawn_registered(fn, in, in_size, out, join);  // may return on another worker: nothing after it
  }
  void spawn_closure(const detail::ClosureOps& ops, void* object) {
    queue_.spawn_closure(ops, object);  // may return on another worker: nothing after it
  }
  detail::SyncNode* spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                      detail::SyncNode* const* after, std::size_t n_after) {
    return queue_.spawn_with_handle(fn, in, in_size, out, after, n_after);
  }
  std::exception_ptr inline_child_done(int child_level) noexcept { return queue_.inline_child_done(child_level); }

  // ---- joining (Joins) ----
  void wait_current() { joins_.wait_current(); }  // wait() of the running task
  void async_failed(std::exception_ptr failure) noexcept { joins_.async_failed(std::move(failure)); }
  void wait_root() { joins_.wait_root(); }  // worker 0 at top level: every task of the root context, escaping ones included
  void fence_current() { joins_.fence_current(); }
  detail::FrameCore* finish_begin(int policy = -1) { return joins_.finish_begin(policy); }
  void finish_end(detail::FrameCore* finish) { joins_.finish_end(finish); }
  void wait_sync(detail::SyncNode* node) { joins_.wait_sync(node); }

  // ---- C API single steps (Dispatcher) ----
  bool execute_one() { return dispatch_.execute_one(); }          // run one task of this worker's deque
  std::uint32_t steal_once() { return dispatch_.steal_once(); }   // one steal attempt; tasks taken
  bool root_empty() noexcept { return joins_.root_empty(); }      // no task in the root context (worker 0)

  // ---- worker threads ----
  void run_until_stopped();  // body of workers 1..N-1

  WorkerStats stats() const;
  void reset_stats() noexcept;
  bool parked() const noexcept { return parked_.load(std::memory_order_seq_cst); }  // see Scheduler::quiesce

  // Swap the state of the running stack with `s` (ContinuationEngine switches).
  void exchange_stack(StackState& s) noexcept;
  Frame& current_frame() noexcept { return *static_cast<Frame*>(this->frame); }
  // Nesting level of the task running now on this stack (WorkerCore::above_frame).
  int level() const noexcept { return frame_level + above_frame; }
  // Depth in the task tree of the task running now (Frame::depth).
  std::uint32_t running_depth() noexcept {
    return current_frame().depth + static_cast<std::uint32_t>(above_frame);
  }

 private:
  friend class ContinuationEngine;
  friend class WorkerQueue;
  friend class Dispatcher;
  friend class Executor;
  friend class Joins;
  // The spawn policy in force for the running task: its IEF's, else the run's.
  SpawnPolicy policy_here() const noexcept {
    const detail::FinishScope* ief = static_cast<const Frame*>(this->frame)->ief;
    return ief == nullptr || ief->policy < 0 ? run_policy_ : static_cast<SpawnPolicy>(ief->policy);
  }
  // The innermost frame becomes f; the nesting level stays.
  void set_frame(detail::FrameCore* f) noexcept {
    above_frame += frame_level - f->level;
    frame = f;
    frame_level = f->level;
    if (f->fenced) [[unlikely]] drop_credits();  // WorkerCore::room's invariant
  }
  // No inline grant left (credits, nor the store-free levels of a body's
  // Context): the next spawn asks the policy.
  void drop_credits() noexcept {
    if (room < 0 || context_limit.load(std::memory_order_relaxed) != 0) queue_.grant(0);
  }
  void park();
  bool at_top_level() const noexcept { return id_ == 0 && depth_ == 0 && native_; }
  bool remote_region() const noexcept { return remote_ != nullptr && remote_->region_active(); }

  Scheduler& sched_;
  const int id_;
  std::uint32_t rank_ = 0;           // this process's rank (GlobalRefs name it)
  RemoteWork* remote_ = nullptr;     // tasks may move between processes (null: one process)
  // The parts (see the header comment): owner-side queue and spawn path,
  // dispatch/help loop with search, task execution, waits/finish/fences.
  WorkerQueue queue_;
  Dispatcher dispatch_;
  Executor exec_;
  Joins joins_;
  int max_help_depth_;
  int help_depth_ = 0;   // nested help loops on this stack
  int depth_ = 0;        // queued tasks running on this stack (bounded: they hold a queue slot)
  StackContainers native_containers_;            // finish scopes, inline frames, exec buffers of the thread's stack
  StackContainers* stack_ = &native_containers_;  // ... of the running stack
  std::atomic<bool> parked_{false};
  trace::WorkerTrace* trace_ = nullptr;
  // The rest of the running stack's state (StackState; with the fields of
  // WorkerCore and depth_ ... stack_ above).
  int ctx_;                       // owner id of scopes opened on this stack (== id_ on the native stack)
  bool native_ = true;            // running on the thread's own stack
  int no_migrate_ = 0;            // code below must stay on this worker (foreign tasks, full deque)
  // std::uncaught_exceptions() where the innermost wait that runs while an
  // exception unwinds began (WorkerQueue::inline_child_done): an inline
  // task threw only if more are in flight at its end than that.
  int unwinding_base_ = 0;
  int base_level_ = 0;            // level of the stack's bottom
  const char* stack_low_ = nullptr;
  const char* stack_high_ = nullptr;
  SpawnPolicy run_policy_;
  std::unique_ptr<ContinuationEngine> conts_;  // null unless the run uses continuations

  // Statistics (owner-written; read by the scheduler when the worker is parked).
  WorkerStats stats_;
  std::int64_t active_since_ns_ = 0;
  std::int64_t active_ns_ = 0;
};

// The parts' way back to their worker: each is a member of Worker at a fixed
// offset. offsetof on a class that is not standard-layout is conditionally
// supported; GCC and Clang support it for classes without virtual bases,
// which Worker (and WorkerCore) stays.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winvalid-offsetof"
#define HEIST_WORKER_PART(Part, member)                                                          \
  inline Worker& Part::owner() noexcept {                                                        \
    return *reinterpret_cast<Worker*>(reinterpret_cast<char*>(this) - offsetof(Worker, member)); \
  }                                                                                              \
  inline const Worker& Part::owner() const noexcept {                                            \
    return *reinterpret_cast<const Worker*>(reinterpret_cast<const char*>(this) -                \
                                            offsetof(Worker, member));                            \
  }
HEIST_WORKER_PART(WorkerQueue, queue_)
HEIST_WORKER_PART(Dispatcher, dispatch_)
HEIST_WORKER_PART(Executor, exec_)
HEIST_WORKER_PART(Joins, joins_)
#undef HEIST_WORKER_PART
#pragma GCC diagnostic pop

inline Frame& WorkerQueue::joined_frame() {
  Worker& w = owner();
  Frame& f = w.current_frame();
  if (w.above_frame == 0) [[likely]] return f;
  return make_inline_frame();
}

// The counters of finish scopes and joins (worker_joins.hpp), inline: every
// queued task enrolls once and completes once.
inline bool Joins::counts_locally(const detail::FinishScope* scope) const noexcept {
  // A scope is owned by a stack (ctx_), a proxy by a worker (proxy_owner_).
  // `proxy` is read only when this worker owns the scope: owner-only then.
  const int by = scope->owner;
  return (by == owner().ctx_ || by == proxy_owner_) && scope->proxy != kSealedProxy;
}

inline void Joins::enroll(detail::FinishScope* scope) noexcept {
  if (counts_locally(scope)) ++scope->local;
  // relaxed: the task is published to its executor through the deque
  // (release/acquire), so this increment precedes its decrement.
  else scope->remote.fetch_add(1, std::memory_order_relaxed);
}

inline void Joins::complete(detail::FinishScope* scope, std::int64_t n) noexcept {
  if (counts_locally(scope)) [[likely]] {
    scope->local -= n;
    return;
  }
  complete_shared(scope, n);
}

}  // namespace heist::sched
