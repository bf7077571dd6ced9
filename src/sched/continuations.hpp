// ContinuationEngine: continuation stealing for one worker (HelpFirst §3.3,
// §4; docs/design/continuations.md). Task bodies run on fibers from the
// FiberPool; a thread's own stack (its "native" context) never runs one
// while continuations are on, it only waits.
//
//  * Exposure (work-first spawn): the child's task slot is built as for a
//    queued task, copied onto a fresh fiber and run there first; the
//    spawner's fiber, suspended inside spawn, is pushed into the deque as a
//    continuation slot and published. When the child is done, its fiber
//    pops the newest slot: if that is the continuation, no thief took it and
//    the spawner resumes here; else a thief resumed it elsewhere and this
//    fiber goes on as a scheduler loop.
//  * Suspension (wait()/finish with outstanding tasks): the fiber switches
//    to a fresh scheduler-loop fiber, which parks it on the scope (the
//    FinishScope::kWaiting protocol below); the completion that drains the
//    scope pushes it back as a continuation slot, so it is resumed by the
//    worker that completed the scope last, or stolen.
//  * Pinned waits: a context whose code must stay on this worker — the
//    native stack, or a fiber with a help loop below (Worker member code) —
//    waits by giving the worker to a scheduler-loop fiber; the loop resumes
//    it when it finds no work, and it re-checks what it waits for. A fiber
//    that helps in place (its wait could not suspend) likewise hands the
//    worker to a pinned waiter after each round without work: what it
//    waits for may be behind one. Waiters take turns, oldest first.
// The scheduler loop runs at the bottom of a fiber: pop, steal, run tasks
// on this fiber; to resume a continuation or a pinned context it returns to
// the fiber's entry function, which switches there and so parks this fiber
// at its one idle point, released to the pool by the arriving side. A fiber
// taken from the pool again resumes at that point with its next assignment
// (nothing else of it is live then): stacks are reused without being
// restarted, and no frame is ever abandoned. Code below a task body that may
// have migrated reads its worker afresh (Worker::resumed).
//
// Protocol of a suspended waiter on scope S (owner fiber F):
//   F switches to the loop fiber L; L, once F's registers are saved, moves
//   S.local (owner-only) into S.remote and adds kWaiting in one fetch_add
//   (acq_rel), after setting S.waiter = F. The result is kWaiting + the
//   number of S's outstanding tasks. If that number is 0, L switches back to
//   F at once. Otherwise every later completion of a task of S is a
//   non-owner one (F does not run) and decrements S.remote (acq_rel); new
//   registrations come only from outstanding tasks of S, so the count passes
//   through 0 exactly once, and exactly one decrement returns kWaiting + 1:
//   that completer resets S.remote to 0 and pushes F (release through the
//   deque). Release of the fold publishes S.waiter to the waker; acquire of
//   the waker's decrement sees every earlier completion's writes, and the
//   deque hands them on to whoever resumes F.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "heist/detail/abi.hpp"
#include "platform/backoff.hpp"
#include "platform/fiber.hpp"
#include "policy/search_loop.hpp"
#include "sched/fiber_pool.hpp"
#include "sched/stack_state.hpp"

namespace heist::sched {

class Worker;

class ContinuationEngine {
 public:
  ContinuationEngine(Worker& worker, FiberPool& pool) noexcept;
  ContinuationEngine(const ContinuationEngine&) = delete;
  ContinuationEngine& operator=(const ContinuationEngine&) = delete;

  // On the worker's own thread, before anything runs on it.
  void adopt_native() noexcept;
  // The worker takes part in distributed regions (back-off as its helpers').
  void attach_remote() noexcept;

  // ---- spawn side
  // Is the running code on a fiber that may move to another worker, with a
  // fiber to spare for the child?
  bool can_expose() const noexcept;
  // `slot`: the child's task, built and registered at the deque's next
  // position (begin_push, not yet end_push). Runs it first on a fresh fiber
  // and leaves the running fiber's continuation there, public. Returns when
  // the continuation is resumed, maybe on another worker: the caller
  // returns at once without touching its Worker.
  void expose(std::byte* slot);

  // ---- wait side
  bool can_suspend() const noexcept { return can_expose(); }
  // Suspend the running fiber until `scope` (which it owns) has no
  // outstanding task. Returns the worker it resumed on; if no fiber was free
  // it did not suspend and returns the caller's worker.
  Worker& suspend_until_drained(detail::FinishScope& scope);
  // The last completion of a scope whose owner is suspended on it.
  void wake(detail::FinishScope& scope);
  // The running context (pinned to this worker) lets a scheduler loop use
  // the worker until the loop finds no work and resumes it; false (at once)
  // when no fiber is free.
  bool wait_pinned();
  // A help loop popped or stole a continuation slot: resume it; the helper
  // waits pinned meanwhile.
  void resume_from_help(const std::byte* slot);
  // A help loop found no work: give the worker to the oldest pinned waiter
  // (this context waits pinned meanwhile) so it re-checks what it waits
  // for — what this loop waits for may be behind it. False if none waits.
  bool yield_to_pinned();

  bool on_fiber() const noexcept { return current_ != nullptr; }

 private:
  // What a switch hands the context it resumes, besides control.
  struct Arrival {
    enum class Then : std::uint8_t {
      nothing,
      publish_continuation,  // commit and publish the slot the left fiber wrote (exposure)
      release,               // the left fiber is abandoned: back to the pool
      park_waiter,           // the left fiber waits on `scope` (suspension protocol)
      park_pinned,           // the left context waits pinned to this worker
    };
    Worker* worker = nullptr;  // where the arriving context runs now (set by switch_to)
    Then then = Then::nothing;
    Fiber* left = nullptr;     // the context left (nullptr: a native stack)
    detail::FinishScope* scope = nullptr;
    bool start_slot = false;   // a fresh fiber: run the task in its slot first
  };

  // Where a loop fiber goes next: `to` (nullptr: the native stack) if `go`.
  struct Next {
    bool go = false;
    Fiber* to = nullptr;
  };

  [[noreturn]] static void fiber_main(void* message);
  static Next run_loop(Fiber* self);
  // Switch to `to` (nullptr: this worker's native stack); returns the
  // message the running context is resumed with (not yet handled).
  static Arrival switch_to(ContinuationEngine& from, Fiber* to, Arrival arrival);
  // Handle what the context left asks (arrival.then); returns where a loop
  // fiber goes on to, if anywhere.
  static Next arrive(const Arrival& arrival);
  // arrive() for a context that goes on with its own code; its worker.
  static Worker& resume_here(const Arrival& arrived);
  Next park_waiter(Fiber* waiter, detail::FinishScope& scope);
  Next step(Fiber* self);
  Next go_to(Fiber* target);
  Fiber* fresh_fiber(int level);
  Fiber* next_pinned();  // takes the oldest pinned waiter off the list
  void make_runnable(Fiber* fiber);
  static void write_continuation(std::byte* slot, Fiber* fiber, int exposer) noexcept;
  static Fiber* continuation_of(const std::byte* slot, int* exposer) noexcept;

  Worker& worker_;
  FiberPool& pool_;
  Fiber* current_ = nullptr;          // the running fiber; nullptr: the native stack
  platform::Context native_;          // this worker's own stack
  StackState native_state_;           // its stack state while a fiber runs
  std::vector<Fiber*> pinned_;        // contexts waiting pinned (nullptr: the native stack), oldest first
  std::vector<Fiber*> ready_;         // woken fibers that did not fit the deque
  std::optional<policy::SearchLoop> search_;  // the loop's, kept across loop fibers (made at start-up)
  std::int64_t searching_since_ = 0;  // the loop's idle time, for WorkerStats::time_search_s
};

}  // namespace heist::sched
