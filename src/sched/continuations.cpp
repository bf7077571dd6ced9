#include "sched/continuations.hpp"

#include <algorithm>
#include <cstring>
#include <exception>

#include "platform/timer.hpp"
#include "sched/remote_work.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

using detail::FinishScope;

namespace {

// The loop backs off like an idle worker: it runs only when there is no
// task on this stack.


// Payload of a continuation slot.
struct ContinuationPayload {
  Fiber* fiber;
  std::int32_t exposer;  // worker that exposed it; -1: woken by a completion
  std::int32_t unused;
};

// Can the running code move to another thread? Not while an exception is in
// flight or being handled: the C++ runtime keeps those per thread.
bool exceptions_allow_migration() noexcept {
  return std::uncaught_exceptions() == 0 && !std::current_exception();
}

}  // namespace

ContinuationEngine::ContinuationEngine(Worker& worker, FiberPool& pool) noexcept
    : worker_(worker), pool_(pool) {}

void ContinuationEngine::attach_remote() noexcept {
  // Tasks another rank released for this process stay reserved for a
  // while: look again at least twice within it (as Dispatcher::help_until).
  search_.emplace(worker_.dispatch_.search_loop(false));
}

void ContinuationEngine::adopt_native() noexcept { platform::adopt_native(native_); }

bool ContinuationEngine::can_expose() const noexcept {
  return current_ != nullptr && worker_.help_depth_ == 0 && worker_.no_migrate_ == 0 &&
         pool_.available(worker_.id_) && exceptions_allow_migration();
}

// ---------------------------------------------------------------- slots

void ContinuationEngine::write_continuation(std::byte* slot, Fiber* fiber, int exposer) noexcept {
  const ContinuationPayload payload{fiber, exposer, 0};
  task::write_task(slot, task::kContinuationFn, task::kLocalOnly, &payload, sizeof payload);
  // A continuation resumes on its own fiber, never nested on a waiter's
  // stack: it buries no waiting frame, so any waiter may take it
  // (policy/help_floor.hpp).
  task::header(slot)->depth = task::kMaxCount;
}

Fiber* ContinuationEngine::continuation_of(const std::byte* slot, int* exposer) noexcept {
  ContinuationPayload payload;
  std::memcpy(&payload, task::payload(slot), sizeof payload);
  *exposer = payload.exposer;
  return payload.fiber;
}

// ---------------------------------------------------------------- switching

ContinuationEngine::Arrival ContinuationEngine::switch_to(ContinuationEngine& from, Fiber* to, Arrival arrival) {
  Worker& w = from.worker_;
  Fiber* const left = from.current_;
  w.exchange_stack(left != nullptr ? left->state : from.native_state_);  // the stack left keeps its state
  w.exchange_stack(to != nullptr ? to->state : from.native_state_);      // the arriving one brings its own
  from.current_ = to;
  w.queue_.grant(0);  // inline credits were granted to the stack left
  arrival.worker = &w;
  platform::Context& from_context = left != nullptr ? left->context : from.native_;
  platform::Context& to_context = to != nullptr ? to->context : from.native_;
  void* message = platform::switch_to(from_context, to_context, &arrival);
  // Resumed, maybe on another thread: what we know now comes with the message.
  return *static_cast<const Arrival*>(message);
}

Worker& ContinuationEngine::resume_here(const Arrival& arrived) {
  // Only a fiber's idle point (fiber_main) is handed an assignment that
  // switches on; a context resumed elsewhere just does what it is asked.
  const Next next = arrive(arrived);
  (void)next;
  return *arrived.worker;
}

ContinuationEngine::Next ContinuationEngine::arrive(const Arrival& a) {
  ContinuationEngine& e = *a.worker->conts_;
  switch (a.then) {
    case Arrival::Then::nothing: break;
    case Arrival::Then::publish_continuation:
      // The spawner's registers are saved (platform::switch_to stored them
      // before returning here): its continuation may now be stolen.
      a.worker->queue_.deque_.end_push();
      a.worker->queue_.deque_.release_all();
      break;
    case Arrival::Then::release: e.pool_.release(a.worker->id_, a.left); break;
    case Arrival::Then::park_waiter: return e.park_waiter(a.left, *a.scope);
    case Arrival::Then::park_pinned: e.pinned_.push_back(a.left); break;
  }
  return {};
}

// The whole life of a fiber: started once, then for each assignment (a
// child to run, or just the scheduler loop) run it, switch to where the
// loop says, and wait at the idle point below for the next assignment.
void ContinuationEngine::fiber_main(void* message) {
  Arrival a = *static_cast<const Arrival*>(message);
  Fiber* const self = a.worker->conts_->current_;
  for (;;) {
    Next next = arrive(a);  // a waiter whose scope drained meanwhile: straight back to it
    if (!next.go) {
      if (a.start_slot) a.worker->exec_.execute(self->slot.get());
      next = run_loop(self);
    }
    Worker& w = *Worker::resumed();  // the assignment may have moved this fiber
    Arrival idle;
    idle.then = Arrival::Then::release;
    idle.left = self;
    a = switch_to(*w.conts_, next.to, idle);  // the idle point: back here when handed out again
  }
}

ContinuationEngine::Next ContinuationEngine::run_loop(Fiber* self) {
  // Each round reads its worker afresh: a task run below may have moved
  // this fiber to another one.
  for (;;) {
    const Next next = Worker::resumed()->conts_->step(self);
    if (next.go) return next;
  }
}

Fiber* ContinuationEngine::fresh_fiber(int level) {
  Fiber* f = nullptr;
  try {
    f = pool_.acquire(worker_.id_);
  } catch (...) {
    return nullptr;  // no memory for another stack: the caller does without
  }
  if (f == nullptr) return nullptr;
  f->reset(level);
  if (!f->started) {  // a new fiber starts in fiber_main; a used one waits at its idle point
    platform::prepare(f->context, f->stack, &fiber_main);
    f->started = true;
  }
  return f;
}

ContinuationEngine::Next ContinuationEngine::go_to(Fiber* target) {
  Next next;
  next.go = true;
  next.to = target;
  return next;
}

// ---------------------------------------------------------------- exposure

void ContinuationEngine::expose(std::byte* slot) {
  Worker& w = worker_;
  Fiber* child = fresh_fiber(w.level());
  if (child == nullptr) {  // the last fiber went meanwhile: the child stays queued
    w.queue_.deque_.end_push();
    return;
  }
  std::memcpy(child->slot.get(), slot, task::used_bytes(slot));
  write_continuation(slot, current_, w.id_);  // committed and published by the child, once we are saved
  ++w.stats_.continuations_exposed;
  Arrival a;
  a.then = Arrival::Then::publish_continuation;
  a.left = current_;
  a.start_slot = true;
  resume_here(switch_to(*this, child, a));
}

// ---------------------------------------------------------------- suspension

Worker& ContinuationEngine::suspend_until_drained(FinishScope& scope) {
  Fiber* loop = fresh_fiber(0);
  if (loop == nullptr) return worker_;
  ++worker_.stats_.suspensions;
  Arrival a;
  a.then = Arrival::Then::park_waiter;
  a.left = current_;
  a.scope = &scope;
  return resume_here(switch_to(*this, loop, a));
}

ContinuationEngine::Next ContinuationEngine::park_waiter(Fiber* waiter, FinishScope& scope) {
  // On the waiter's thread, after it stopped: its owner-only count is ours to move.
  const std::int64_t local = scope.local;
  scope.local = 0;
  scope.waiter = waiter;
  // acq_rel: publishes `waiter` to the last completer; if nothing is
  // outstanding, sees the completions' writes before the waiter goes on.
  const std::int64_t outstanding =
      scope.remote.fetch_add(local + FinishScope::kWaiting, std::memory_order_acq_rel) + local;
  if (outstanding != 0) return {};  // the last completion resumes it (wake)
  scope.remote.store(0, std::memory_order_relaxed);
  scope.waiter = nullptr;
  return go_to(waiter);  // nothing to wait for any more
}

void ContinuationEngine::wake(FinishScope& scope) {
  auto* waiter = static_cast<Fiber*>(scope.waiter);
  scope.waiter = nullptr;
  // relaxed: the waiter is the scope's only user from here on, and it is
  // resumed through the deque (release/acquire).
  scope.remote.store(0, std::memory_order_relaxed);
  make_runnable(waiter);
}

void ContinuationEngine::make_runnable(Fiber* fiber) {
  std::byte* slot = worker_.queue_.deque_.begin_push();
  if (slot == nullptr) {  // the deque is at its maximum
    ready_.push_back(fiber);
    return;
  }
  write_continuation(slot, fiber, -1);
  worker_.queue_.deque_.end_push();
  worker_.queue_.deque_.release_all();  // any idle worker may resume it
}

// ---------------------------------------------------------------- pinned waits

bool ContinuationEngine::wait_pinned() {
  Fiber* loop = fresh_fiber(0);
  if (loop == nullptr) return false;
  Arrival a;
  a.then = Arrival::Then::park_pinned;
  a.left = current_;
  resume_here(switch_to(*this, loop, a));
  return true;
}

Fiber* ContinuationEngine::next_pinned() {
  // Oldest first: a waiter that looked and goes back to waiting queues up
  // behind the others, so every waiter gets its turn.
  Fiber* waiter = pinned_.front();
  pinned_.erase(pinned_.begin());
  return waiter;
}

bool ContinuationEngine::yield_to_pinned() {
  if (pinned_.empty()) return false;
  Fiber* waiter = next_pinned();
  Arrival a;
  a.then = Arrival::Then::park_pinned;
  a.left = current_;
  resume_here(switch_to(*this, waiter, a));
  return true;
}

void ContinuationEngine::resume_from_help(const std::byte* slot) {
  int exposer = -1;
  Fiber* target = continuation_of(slot, &exposer);
  if (exposer >= 0 && exposer != worker_.id_) ++worker_.stats_.continuations_stolen;
  Arrival a;
  a.then = Arrival::Then::park_pinned;
  a.left = current_;
  resume_here(switch_to(*this, target, a));
}

// ---------------------------------------------------------------- the scheduler loop

ContinuationEngine::Next ContinuationEngine::step(Fiber* self) {
  Worker& w = worker_;
  std::byte* buffer = self->slot.get();
  const auto found_work = [&] {
    if (searching_since_ != 0) w.dispatch_.search_ns_ += platform::now_ns() - searching_since_;
    searching_since_ = 0;
    w.dispatch_.set_searching(false);
    if (search_) search_->found();
  };
  const auto run = [&](const std::byte* slot) -> Next {
    if (task::header(slot)->fn_id != task::kContinuationFn) {
      w.exec_.execute(slot);
      return {};
    }
    int exposer = -1;
    Fiber* target = continuation_of(slot, &exposer);
    if (exposer >= 0 && exposer != w.id_) ++w.stats_.continuations_stolen;
    return go_to(target);
  };
  if (!ready_.empty()) {
    Fiber* f = ready_.back();
    ready_.pop_back();
    found_work();
    return go_to(f);
  }
  if (const std::byte* slot = w.queue_.deque_.pop()) {  // runs in place
    found_work();
    return run(slot);
  }
  if (w.queue_.pop_overflow(buffer)) {  // stolen while the deque was at its maximum
    found_work();
    return run(buffer);
  }
  w.dispatch_.out_of_tasks();
  // As Dispatcher::help_until: one iteration of the search loop (the
  // stolen slots land in our deque).
  if (!search_) search_.emplace(w.dispatch_.search_loop(false));
  if (w.dispatch_.search_once(*search_, policy::kNoFloor, true, searching_since_)) return {};
  if (!pinned_.empty()) return go_to(next_pinned());  // no work here: let a pinned waiter look at what it waits for
  return {};
}

}  // namespace heist::sched
