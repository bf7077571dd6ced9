// WorkerQueue (worker_queue.hpp), spawning: the slow paths of
// heist::spawn/async (queue, inline or expose, as the SpawnDriver decides),
// inline frames, fences' held tasks, tasks with dependencies
// (spawn_with_handle) and their release, and the rma/ hooks that move tasks
// in and out of the deque (take_oldest, accept_stolen).
#include "sched/worker.hpp"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "heist/heist.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker_loop.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

// ---------------------------------------------------------------- spawning

namespace {
// The header flags of a registered task spawned with `join`.
std::uint16_t registered_flags(const task::TaskRegistry& registry, std::uint32_t fn, detail::Join join) noexcept {
  return static_cast<std::uint16_t>((join == detail::Join::joined ? task::kJoined : 0) |
                                    (registry[fn].local_only ? task::kLocalOnly : 0));
}
}  // namespace

WorkerQueue::WorkerQueue(const Options& options, std::size_t stride)
    : deque_(stride, options.deque_initial_tasks, options.deque_max_tasks),
      spawn_(options, options.workers),
      input_capacity_(options.task_input_bytes),
      free_inline_(!options.count_context_spawns) {}

// Every slow-path spawn checks its task id and input size: the check stays
// two compares inlined into the spawn, the messages are built out of line.
inline void WorkerQueue::check_task(std::uint32_t fn, std::size_t in_size) const {
  const task::TaskRegistry& registry = owner().sched_.registry();
  if (fn >= registry.size() || registry[fn].in_size != in_size) [[unlikely]]
    bad_task(fn, in_size);
}

void WorkerQueue::bad_task(std::uint32_t fn, std::size_t in_size) const {
  const task::TaskRegistry& registry = owner().sched_.registry();
  if (fn >= registry.size())
    throw std::invalid_argument("heist: spawn of unknown task function id " + std::to_string(fn));
  throw std::invalid_argument("heist: task '" + registry[fn].name + "' spawned with " + std::to_string(in_size) +
                              " input bytes, registered with " + std::to_string(registry[fn].in_size));
}

void WorkerQueue::grant(std::int64_t credits, std::int64_t free_levels) noexcept {
  Worker& w = owner();
  fast_inlined_ += static_cast<std::uint64_t>(granted_ + w.room);  // credits spent since the last grant
  granted_ = credits;
  w.room = -credits;
  if (free_levels > 0 && free_inline_ && w.conts_ == nullptr) {
    // Up to the level the stack can reach (inline_budget), held to int.
    // Then the handshake with a thief's request (WorkerCore::context_limit):
    // a flag raised before this load is seen, one raised after it brings
    // its own 0 after this store. Seq_cst both, as the thief's two stores.
    w.context_limit.store(w.level() + static_cast<int>(std::min<std::int64_t>(free_levels, std::int64_t{1} << 24)),
                          std::memory_order_seq_cst);
    if (w.work_wanted.load(std::memory_order_seq_cst)) w.context_limit.store(0, std::memory_order_relaxed);
    ++w.stats_.uncounted_grants;
  } else {
    w.context_limit.store(0, std::memory_order_relaxed);
  }
}

std::uint64_t WorkerQueue::fast_inlined() const noexcept {
  return fast_inlined_ + static_cast<std::uint64_t>(granted_ + owner().room);
}

// How many more task bodies the running stack can nest inline: its room
// above a reserve, over the bytes a level has taken so far on it.
std::int64_t WorkerQueue::inline_budget() const noexcept {
  constexpr std::int64_t kUnknown = std::int64_t{1} << 40;
  const Worker& w = owner();
  if (w.stack_low_ == nullptr) return kUnknown;
  const char* sp = static_cast<const char*>(__builtin_frame_address(0));
  if (sp <= w.stack_low_ || sp > w.stack_high_) return kUnknown;  // not the stack we know (a foreign thread's)
  const std::int64_t size = w.stack_high_ - w.stack_low_;
  const std::int64_t room = (sp - w.stack_low_) - std::max<std::int64_t>(std::int64_t{256} << 10, size / 16);
  if (room <= 0) return 0;
  const std::int64_t frames = std::max(1, w.level() - w.base_level_);
  const std::int64_t per_frame = std::max<std::int64_t>(128, (w.stack_high_ - sp) / frames);
  return room / per_frame;
}

// Inline into the spawn paths (as decide_spawn and end_queue): a queued
// spawn calls each of them once, and a call costs more than the body.
[[gnu::always_inline]] inline std::byte* WorkerQueue::queue_slot() {
  if (std::byte* slot = deque_.begin_push()) [[likely]] return slot;
  return queue_slot_full();
}

std::byte* WorkerQueue::queue_slot_full() {
  // Past --deque-max-tasks a spawn runs inline, nesting on this stack; once
  // the stack is nearly full the deque grows past its limit instead (a DFS
  // of escaping asyncs over millions of vertices must not overflow).
  return inline_budget() <= 0 ? deque_.begin_push_past_limit() : nullptr;
}

void WorkerQueue::stack_exhausted() const {
  const Worker& w = owner();
  throw std::runtime_error(
      "heist: work-first ran out of stack: " + std::to_string(w.level() - w.base_level_) +
      " task bodies are nested on a " + std::to_string((w.stack_high_ - w.stack_low_) >> 10) +
      " KiB " + (w.native_ ? "thread stack" : "fiber stack") +
      " (each child runs on its parent's stack); use --policy adaptive or help-first, or raise "
      "--fiber-stack-bytes");
}

// The spawn slow path: SpawnMachine's steps (spawn_machine.hpp) in their
// order, each answer applied here.
[[gnu::always_inline]] inline policy::SpawnAction WorkerQueue::decide_spawn() {
  Worker& w = owner();
  const bool paced = w.remote_ != nullptr && w.remote_->region_active();
  policy::SpawnEntry entry;
  entry.paced = paced;
  if (paced) {
    entry.now_ns = static_cast<double>(w.dispatch_.pace_clock_.now_ns());
    entry.last_poll_ns = static_cast<double>(w.dispatch_.last_poll_ns_);
  }
  entry.seeding = queue_seeds_ && w.level() == 0;
  const policy::SpawnEntryStep first = spawn_.enter(entry);
  if (first.poll) w.dispatch_.poll_remote();
  if (first.queue_seed) return policy::SpawnAction::queue;
  // A thread's own stack cannot expose a continuation; after another
  // rank's request the next spawn is queued as a task that can leave
  // (end_queue releases it).
  const SpawnPolicy kind = policy::SpawnMachine::kind(w.policy_here(), w.native_ && w.conts_, remote_asked_);
  const policy::FactsWanted wanted = policy::SpawnMachine::wanted(kind, paced);
  policy::SpawnFacts facts;
  facts.queued = deque_.size();
  facts.held = facts.queued + static_cast<std::size_t>(w.depth_);
  facts.public_tasks = deque_.public_size();
  facts.inline_frames = static_cast<unsigned>(w.level() - w.base_level_);
  facts.depth = static_cast<unsigned>(w.level());
  facts.levels = w.current_frame().levels;
  if (wanted.inlined) facts.inlined = fast_inlined() + slow_inlined_;
  if (wanted.idle_workers) facts.idle_workers = static_cast<unsigned>(std::max(0, w.sched_.searching_workers()));
  if (wanted.inline_budget) facts.inline_budget = inline_budget();
  if (w.work_wanted.load(std::memory_order_relaxed)) {
    w.work_wanted.store(false, std::memory_order_relaxed);
    facts.thief_asked = true;
  }
  if (wanted.expose) {
    facts.can_expose = w.conts_->can_expose();
    facts.many_workers = w.sched_.size() > 1;
  }
  const policy::SpawnPlan plan = spawn_.decide(kind, facts, {paced, entry.now_ns, w.current_frame().fenced});
  if (plan.release) deque_.release();
  if (plan.reroot) {
    Frame& top = w.current_frame();
    top.levels = 0;
    top.queued_children = 0;
  }
  switch (plan.action) {
    case policy::SpawnAction::queue_public: publish_next_ = plan.publish; break;
    case policy::SpawnAction::run_inline:
      // WorkerCore::context_limit: a decision that stands until a thief
      // asks lets a body's Context inline down to the stack's limit, uncounted.
      grant(plan.credits, plan.free_levels);
      break;
    case policy::SpawnAction::stack_exhausted: stack_exhausted();
    case policy::SpawnAction::queue:
    case policy::SpawnAction::expose: break;
  }
  return plan.action;
}

// An async run here never throws at its call (detail::run_inline_async).
template <class Call>
void WorkerQueue::run_inline(detail::Join join, Call&& call) {
  ++slow_inlined_;
  if (join == detail::Join::escaping) detail::run_inline_async(&owner(), std::forward<Call>(call));
  else detail::run_inline(&owner(), std::forward<Call>(call));
}

// An inline task queues its first joined child: it gets a frame now.
Frame& WorkerQueue::make_inline_frame() {
  Worker& w = owner();
  Frame& f = w.current_frame();
  Frame& made = w.stack_->inline_frames.emplace_back(w.ctx_, &f, f.ief, w.level());
  w.set_frame(&made);
  return made;
}

// Called at the end of an inline task that made a frame (inline_child_done),
// still at the task's level: waits for its children, then closes the frame
// and returns their first failure (the task's own, task_failure.hpp); the
// inline path then stores the level it saved on entry. The task's level is
// its frame's: stored first, as a Context body's store-free spawns may
// have left another (WorkerCore::context_limit), and the wait runs tasks
// above it.
std::exception_ptr WorkerQueue::close_inline_frame() noexcept {
  Worker& w = owner();
  w.above_frame = 0;
  Frame& f = w.current_frame();
  w.joins_.wait_frame(f);  // the implicit wait at the end of a task
  std::exception_ptr failure = f.take_failure();
  w.set_frame(f.parent);
  w.stack_->inline_frames.pop_back();
  return failure;
}

// The end of an inline task at `child_level` whose own frame or whose
// spawner's frame is the innermost (detail::inline_child_done). Its frame
// is closed as its implicit wait; the first failure of its queued children
// is returned (the task fails with it: task_failure.hpp). If it threw (more
// exceptions in flight than where the innermost wait during an unwinding
// began, Worker::unwinding_base_: tasks that wait runs must not take the
// exception that unwinds below them for their own; a spawn made by a
// destructor during another unwinding also says so, and then only waits
// early), its children's failure is dropped for the exception in flight,
// and the spawner's queued children are waited for now, while the
// spawner's locals, where their outputs may go, still exist: its implicit
// wait would come only after the exception destroyed them. Their failures
// are dropped too: the spawn raises the exception in flight. The inline
// path's guard stores the level after this.
std::exception_ptr WorkerQueue::inline_child_done(int child_level) noexcept {
  Worker& w = owner();
  const int in_flight = std::uncaught_exceptions();
  const bool threw = in_flight > w.unwinding_base_;
  const int saved_base = std::exchange(w.unwinding_base_, in_flight);
  std::exception_ptr failure;
  if (w.frame_level == child_level) failure = close_inline_frame();
  if (w.frame_level == child_level - 1 && threw) {
    Frame& f = w.current_frame();
    if (!f.joined_drained()) {
      w.above_frame = 0;  // the spawner's level: the wait runs tasks above it
      w.joins_.wait_frame(f);
    }
    (void)f.take_failure();
  }
  w.unwinding_base_ = saved_base;
  if (threw) failure = nullptr;
  return failure;
}

void WorkerQueue::flush_fence(Frame& f) {
  f.fence->flush([this](const std::byte* slot) { push_copy(slot); },
                 [this](DependentTask* dependent) {
                   if (dependent->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                     push_copy(dependent->slot.get());
                     delete dependent;
                   }
                 });
}

[[gnu::always_inline]] inline void WorkerQueue::end_queue(Frame& current, detail::Join join, std::byte* slot, bool held,
                                                          bool expose) {
  Worker& w = owner();
  const std::uint32_t depth = w.running_depth();
  Frame& f = join == detail::Join::joined ? joined_frame() : current;
  FinishScope* target = join == detail::Join::joined ? f.join_target() : f.ief;
  TaskHeader* h = task::header(slot);
  h->completion = GlobalRef::local(w.rank_, target);
  h->ief = GlobalRef::local(w.rank_, f.ief);
  h->spawner = static_cast<std::uint32_t>(w.id_);
  h->levels = task::saturate(policy::SpawnDecider::child_levels(f.levels, ++f.queued_children));
  h->depth = task::saturate(depth + 1);
  w.joins_.enroll(target);
  ++deferred_;
  // Held: spawn_held decided it (spawn_registered tests the fence before
  // anything else; nothing between that test and here can close a fence).
  if (held) {
    f.fence->hold(slot, task::used_bytes(slot));  // the deque slot (if any) is left uncommitted
    return;
  }
  if (expose) return;  // the caller runs it on a fresh fiber (ContinuationEngine::expose)
  deque_.end_push();
  if (publish_next_ != policy::Publish::none) {
    if (publish_next_ == policy::Publish::one) deque_.publish_one();
    else deque_.release();
    publish_next_ = policy::Publish::none;
  }
  if (spawn_.after_queue(remote_asked_)) {  // a thief of another rank is waiting for this task
    remote_asked_ = false;
    w.dispatch_.poll_remote();
  }
  w.stats_.max_queue = std::max<std::uint64_t>(w.stats_.max_queue, deque_.size());
  if (w.trace_) [[unlikely]] w.trace_->queue(platform::now_ns(), deque_.size());
  if (w.at_top_level()) w.joins_.enter_region();
}

void WorkerQueue::spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                   detail::Join join) {
  check_task(fn, in_size);
  Worker& w = owner();
  Frame& f = w.current_frame();
  if (f.fenced) flush_fence(f);
  // A joined child that a fence holds back is held, never run inline (it
  // would start before the generations spawned before the fence completed).
  if (join == detail::Join::joined && w.above_frame == 0 && f.fence && f.fence->must_hold()) [[unlikely]]
    return spawn_held(f, fn, in, in_size, out);
  const policy::SpawnAction action = decide_spawn();
  std::byte* slot = action == policy::SpawnAction::run_inline ? nullptr : queue_slot();
  if (slot == nullptr) {
    const detail::TaskInvoke invoke = w.sched_.registry()[fn].invoke;
    run_inline(join, [&] { invoke(const_cast<void*>(in), out); });  // C++ bodies take const In&; C bodies get the pointer given to put
    return;
  }
  task::write_task(slot, fn, registered_flags(w.sched_.registry(), fn, join), in, in_size, GlobalRef::local(w.rank_, out));
  const bool expose = action == policy::SpawnAction::expose;
  end_queue(f, join, slot, false, expose);
  if (expose) w.conts_->expose(slot);  // returns maybe on another worker: nothing after it
}

void WorkerQueue::spawn_held(Frame& f, std::uint32_t fn, const void* in, std::size_t in_size, void* out) {
  Worker& w = owner();
  std::byte* slot = queue_slot();
  std::vector<std::byte> overflow;  // a held task needs no deque slot: when the deque is full, build it here
  if (slot == nullptr) {
    overflow.resize(w.sched_.stride());
    slot = overflow.data();
  }
  task::write_task(slot, fn, registered_flags(w.sched_.registry(), fn, detail::Join::joined), in, in_size,
                   GlobalRef::local(w.rank_, out));
  end_queue(f, detail::Join::joined, slot, true);  // stays held even if the fence opens meanwhile: flushed at the next step
}

void WorkerQueue::spawn_closure(const detail::ClosureOps& ops, void* object) {
  Worker& w = owner();
  Frame& f = w.current_frame();
  if (f.fenced) flush_fence(f);
  const policy::SpawnAction action = decide_spawn();
  std::byte* slot = action == policy::SpawnAction::run_inline ? nullptr : queue_slot();
  if (slot == nullptr) {
    run_inline(detail::Join::escaping, [&] { ops.run_in_place(object); });
    return;
  }
  const bool fits = ops.trivially_copyable && ops.align <= task::kSlotAlign &&
                    kClosureObject + ops.size <= input_capacity_;
  task::write_task(slot, task::kClosureFn, static_cast<std::uint16_t>(task::kLocalOnly | (fits ? 0 : task::kBoxed)),
                   nullptr, kClosureObject + (fits ? ops.size : sizeof(void*)));
  std::byte* p = task::payload(slot);
  const detail::ClosureOps* ops_ptr = &ops;
  std::memcpy(p, &ops_ptr, sizeof ops_ptr);
  if (fits) {
    std::memcpy(p + kClosureObject, object, ops.size);
  } else {
    void* box = ops.make_box(object);
    std::memcpy(p + kClosureObject, &box, sizeof box);
  }
  const bool expose = action == policy::SpawnAction::expose;
  end_queue(f, detail::Join::escaping, slot, false, expose);
  if (expose) w.conts_->expose(slot);  // returns maybe on another worker: nothing after it
}

detail::SyncNode* WorkerQueue::spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                                 detail::SyncNode* const* after, std::size_t n_after) {
  check_task(fn, in_size);
  Worker& w = owner();
  Frame& f = joined_frame();
  if (f.fenced) flush_fence(f);
  auto* node = new detail::SyncNode();
  node->refs.store(2, std::memory_order_relaxed);  // the task's and the handle's; not yet shared
  auto* dependent = new DependentTask(w.sched_.stride());
  std::byte* slot = dependent->slot.get();
  TaskHeader* h = task::write_task(slot, fn, registered_flags(w.sched_.registry(), fn, detail::Join::joined), in, in_size,
                                   GlobalRef::local(w.rank_, out), GlobalRef::local(w.rank_, node));
  FinishScope* target = f.join_target();
  h->completion = GlobalRef::local(w.rank_, target);
  h->ief = GlobalRef::local(w.rank_, f.ief);
  h->spawner = static_cast<std::uint32_t>(w.id_);
  h->levels = task::saturate(policy::SpawnDecider::child_levels(f.levels, ++f.queued_children));
  h->depth = task::saturate(f.depth + 1);  // f is the running task's own frame (joined_frame)
  w.joins_.enroll(target);
  ++deferred_;
  // One count per dependency plus one held by this call, so the task cannot
  // be released before every dependency has been looked at.
  dependent->remaining.store(static_cast<std::uint32_t>(n_after + 1), std::memory_order_relaxed);
  for (std::size_t i = 0; i < n_after; ++i)
    if (!after[i]->add_waiter(dependent)) dependent->remaining.fetch_sub(1, std::memory_order_relaxed);
  if (f.fence && f.fence->must_hold()) {
    f.fence->hold(dependent);  // the fence owns this call's count now
  } else if (dependent->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    push_copy(slot);
    delete dependent;
  }
  if (w.at_top_level()) w.joins_.enter_region();
  return node;
}

void WorkerQueue::push_copy(const std::byte* slot, WhenFull when_full) {
  std::byte* dst = deque_.begin_push();
  const std::size_t bytes = task::used_bytes(slot);
  if (dst == nullptr && when_full == WhenFull::overflow) {
    const std::size_t at = overflow_.size();
    overflow_.resize(at + owner().sched_.stride());
    std::memcpy(overflow_.data() + at, slot, bytes);
    return;
  }
  if (dst == nullptr) {  // deque at its maximum: run the task now
    // From `slot` itself: execute reads only the header and the used
    // payload (all a fence holds), and copies both before the body runs.
    ++owner().no_migrate_;  // our caller goes on with this worker
    owner().exec_.execute(slot);
    --owner().no_migrate_;
    return;
  }
  std::memcpy(dst, slot, bytes);
  deque_.end_push();
}

bool WorkerQueue::pop_overflow(std::byte* dst) {
  if (overflow_.empty()) return false;
  const std::size_t stride = owner().sched_.stride();
  std::memcpy(dst, overflow_.data() + (overflow_.size() - stride), stride);
  overflow_.resize(overflow_.size() - stride);
  return true;
}

void WorkerQueue::release_dependents(detail::SyncNode* node, WhenFull when_full) {
  for (DependentTask* dependent : node->complete()) {
    if (dependent->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      push_copy(dependent->slot.get(), when_full);
      delete dependent;
    }
  }
  detail::sync_release(node);
}

// ---------------------------------------------------------------- tasks in and out (rma/)

std::uint32_t WorkerQueue::take_oldest(std::uint32_t max, std::vector<std::byte>& out, std::size_t max_output) {
  if (deque_.migratable_pushed() == none_migratable_at_) return 0;  // nothing that may leave came in since
  const task::TaskRegistry& registry = owner().sched_.registry();
  const std::size_t stride = owner().sched_.stride();
  const auto migratable = [&](const std::byte* slot) {
    const TaskHeader& h = *task::header(slot);
    return task::may_migrate(h) && registry[h.fn_id].out_size <= max_output;
  };
  // None among the whole deque: remember it, and claim nothing (claiming
  // would only put the same tasks back, newest first).
  if (!deque_.any_of(migratable)) {
    none_migratable_at_ = deque_.migratable_pushed();
    return 0;
  }
  std::vector<std::byte> keep;  // claimed but not allowed to leave: back into the deque
  std::uint32_t moved = 0;
  deque_.take_oldest(max, [&](const std::byte* slot) {
    const bool can_leave = migratable(slot);
    std::vector<std::byte>& to = can_leave ? out : keep;
    const std::size_t at = to.size();
    to.resize(at + stride);
    std::memcpy(to.data() + at, slot, task::used_bytes(slot));
    moved += can_leave ? 1 : 0;
  });
  for (std::size_t at = 0; at < keep.size(); at += stride) accept_stolen(keep.data() + at);
  owner().stats_.tasks_kept_local += keep.size() / stride;
  return moved;
}

void WorkerQueue::accept_stolen(const std::byte* slot) {
  push_copy(slot, WhenFull::overflow);  // deque at its maximum: run it from the overflow list
}

}  // namespace heist::sched
