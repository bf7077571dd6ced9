// WorkerQueue: the owner side of a worker's queue (oneTBB's arena_slot, as
// its owner sees it) and the spawn path: the SplitDeque, the SpawnDriver
// and its inline credits, the slow paths of heist::spawn/async (queue,
// inline or expose), inline frames, fences' held tasks, tasks with
// dependencies and their release, and the hooks rma/ uses to move tasks in
// and out of the deque. A part of Worker (worker.hpp), reached through it;
// owner() is the worker it belongs to. Owner thread only, except the deque's
// thief side (split_deque.hpp) and WorkerCore::work_wanted.
//
// Migration (worker.hpp): an expose (ContinuationEngine::expose) may return
// on another worker, so a spawn does nothing after it; every other call
// here returns on the worker it started on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "heist/detail/abi.hpp"
#include "heist/options.hpp"
#include "policy/spawn_machine.hpp"
#include "sched/frame.hpp"
#include "sched/split_deque.hpp"
#include "sched/sync_node.hpp"

namespace heist::sched {

class Worker;

class WorkerQueue {
 public:
  WorkerQueue(const Options& options, std::size_t stride);
  WorkerQueue(const WorkerQueue&) = delete;
  WorkerQueue& operator=(const WorkerQueue&) = delete;

  void spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out, detail::Join join);
  void spawn_closure(const detail::ClosureOps& ops, void* object);
  detail::SyncNode* spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                      detail::SyncNode* const* after, std::size_t n_after);
  std::exception_ptr close_inline_frame() noexcept;
  std::exception_ptr inline_child_done(int child_level) noexcept;
  std::uint32_t take_oldest(std::uint32_t max, std::vector<std::byte>& out, std::size_t max_output);
  void accept_stolen(const std::byte* slot);

 private:
  friend class Worker;
  friend class Dispatcher;
  friend class Executor;
  friend class Joins;
  friend class ContinuationEngine;

  policy::SpawnAction decide_spawn();
  std::int64_t inline_budget() const noexcept;
  [[noreturn]] void stack_exhausted() const;
  std::byte* queue_slot();  // the deque's next slot, or nullptr: run the spawn inline
  std::byte* queue_slot_full();  // the same when the deque is at its capacity
  // New inline credits (WorkerCore::room); with free_levels > 0, where the
  // run allows it (free_inline_), also the store-free path of a body's
  // Context for that many levels more (WorkerCore::context_limit).
  void grant(std::int64_t credits, std::int64_t free_levels = 0) noexcept;
  std::uint64_t fast_inlined() const noexcept;
  void check_task(std::uint32_t fn, std::size_t in_size) const;
  [[noreturn]] [[gnu::cold]] void bad_task(std::uint32_t fn, std::size_t in_size) const;
  void end_queue(Frame& frame, detail::Join join, std::byte* slot, bool held = false, bool expose = false);
  // A joined child that the frame's fence holds back (spawn_registered, out of line).
  [[gnu::cold]] void spawn_held(Frame& frame, std::uint32_t fn, const void* in, std::size_t in_size, void* out);
  // What push_copy does with a task when the deque is at its maximum: run it
  // now on this stack, or append it to overflow_ (the help loop runs that
  // list before it steals). A caller that holds a lock a task could need —
  // the completion inbox's drain — must not run tasks.
  enum class WhenFull { run_now, overflow };
  void push_copy(const std::byte* slot, WhenFull when_full = WhenFull::run_now);
  // Move the newest slot of overflow_ into dst (stride bytes); false if
  // the list is empty. A copy: the task it holds may add to the list.
  bool pop_overflow(std::byte* dst);
  void flush_fence(Frame& frame);
  void release_dependents(detail::SyncNode* node, WhenFull when_full = WhenFull::run_now);
  template <class Call>
  void run_inline(detail::Join join, Call&& call);
  Frame& joined_frame();  // the running task's frame, made now if it runs inline without one
  Frame& make_inline_frame();  // joined_frame's making

  // The worker this part is a member of: computed from `this` (a fixed
  // offset, no load), so reaching it costs the spawn path nothing.
  Worker& owner() noexcept;
  const Worker& owner() const noexcept;
  SplitDeque deque_;
  policy::SpawnMachine spawn_;  // the slow path's steps: queue / inline / expose, credits, polls
  std::size_t input_capacity_;
  // The task being queued is for thieves: publish it at once, alone
  // (SpawnStep::publish_one) or with half of the private tasks (release()).
  policy::Publish publish_next_ = policy::Publish::none;
  bool remote_asked_ = false;  // owner-only: set by Worker::want_work() (called on this worker's thread)
  bool queue_seeds_ = false;   // Runtime::pool's seed body runs: its own spawns are all queued
  // The run may use the store-free path of a body's Context: its spawns
  // need not be counted (--count-context-spawns off). grant() also wants a
  // worker without continuations: a stack switch would carry away a level
  // that path does not store. Runs across processes get no such grant
  // (SpawnStep::until_asked): their slow path is where they poll.
  bool free_inline_;
  std::vector<std::byte> overflow_;  // slots that did not fit this deque (stride bytes each): stolen, delivered or released
  // take_oldest found no task in the deque that may leave the process when
  // the deque's migratable_pushed() was this: until it changes, none can be
  // there. (Otherwise a deque of local-only tasks is claimed and re-pushed
  // a whole offer at every poll, a cost that grows with the deque.)
  std::uint64_t none_migratable_at_ = ~std::uint64_t{0};
  // Statistics of the spawn path (WorkerStats::tasks_created/inlined).
  std::uint64_t deferred_ = 0;      // tasks queued
  std::uint64_t slow_inlined_ = 0;  // inlined by the slow path
  std::uint64_t fast_inlined_ = 0;  // inlined by the fast path, up to the last grant
  std::int64_t granted_ = 0;        // credits of the last grant (see grant())
};

}  // namespace heist::sched
