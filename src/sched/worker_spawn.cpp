// Worker, spawning: the slow paths of heist::spawn/async (queue, inline or
// expose, as the SpawnDriver decides), inline frames, fences' held tasks,
// tasks with dependencies (spawn_with_handle) and their release.
#include "sched/worker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

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

void Worker::check_task(std::uint32_t fn, std::size_t in_size) const {
  const task::TaskRegistry& registry = sched_.registry();
  if (fn >= registry.size())
    throw std::invalid_argument("heist: spawn of unknown task function id " + std::to_string(fn));
  if (registry[fn].in_size != in_size)
    throw std::invalid_argument("heist: task '" + registry[fn].name + "' spawned with " +
                                std::to_string(in_size) + " input bytes, registered with " +
                                std::to_string(registry[fn].in_size));
}

void Worker::grant(std::int64_t credits) noexcept {
  fast_inlined_ += static_cast<std::uint64_t>(granted_ + room);  // credits spent since the last grant
  granted_ = credits;
  room = -credits;
}

SpawnPolicy Worker::policy_here() const noexcept {
  const FinishScope* ief = static_cast<const Frame*>(this->frame)->ief;
  return ief == nullptr || ief->policy < 0 ? run_policy_ : static_cast<SpawnPolicy>(ief->policy);
}

// How many more task bodies the running stack can nest inline: its room
// above a reserve, over the bytes a level has taken so far on it.
std::int64_t Worker::inline_budget() const noexcept {
  constexpr std::int64_t kUnknown = std::int64_t{1} << 40;
  if (stack_low_ == nullptr) return kUnknown;
  const char* sp = static_cast<const char*>(__builtin_frame_address(0));
  if (sp <= stack_low_ || sp > stack_high_) return kUnknown;  // not the stack we know (a foreign thread's)
  const std::int64_t size = stack_high_ - stack_low_;
  const std::int64_t room = (sp - stack_low_) - std::max<std::int64_t>(std::int64_t{256} << 10, size / 16);
  if (room <= 0) return 0;
  const std::int64_t frames = std::max(1, level - base_level_);
  const std::int64_t per_frame = std::max<std::int64_t>(128, (stack_high_ - sp) / frames);
  return room / per_frame;
}

std::byte* Worker::queue_slot() {
  if (std::byte* slot = deque_.begin_push()) return slot;
  // Past --deque-max-tasks a spawn runs inline, nesting on this stack; once
  // the stack is nearly full the deque grows past its limit instead (a DFS
  // of escaping asyncs over millions of vertices must not overflow).
  return inline_budget() <= 0 ? deque_.begin_push_past_limit() : nullptr;
}

bool Worker::waits_by_suspending() const noexcept {
  const SpawnPolicy p = policy_here();
  return p == SpawnPolicy::work_first || (p == SpawnPolicy::adaptive && !spawn_.slaw_help_first());
}

void Worker::stack_exhausted() const {
  throw std::runtime_error(
      "heist: work-first ran out of stack: " + std::to_string(level - base_level_) +
      " task bodies are nested on a " + std::to_string((stack_high_ - stack_low_) >> 10) +
      " KiB " + (native_ ? "thread stack" : "fiber stack") +
      " (each child runs on its parent's stack); use --policy adaptive or help-first, or raise "
      "--fiber-stack-bytes");
}

policy::SpawnAction Worker::decide_spawn() {
  const bool paced = remote_ != nullptr && remote_->region_active();
  std::int64_t now = 0;
  if (paced) {
    now = platform::now_ns();
    if (spawn_.poll_due(static_cast<double>(now - last_poll_ns_))) poll_remote();
  }
  if (queue_seeds_ && level == 0) return policy::SpawnAction::queue;
  // A thread's own stack cannot expose a continuation; after another
  // rank's request the next spawn is queued as a task that can leave
  // (end_queue releases it).
  const SpawnPolicy kind = policy::SpawnDriver::effective_kind(policy_here(), native_ && conts_, remote_asked_);
  policy::SpawnFacts facts;
  facts.queued = deque_.size();
  facts.held = facts.queued + static_cast<std::size_t>(depth_);
  facts.public_tasks = deque_.public_size();
  facts.inline_frames = static_cast<unsigned>(level - base_level_);
  facts.depth = static_cast<unsigned>(level);
  if (kind != SpawnPolicy::help_first) facts.inline_budget = inline_budget();  // help-first never inlines
  if (work_wanted.load(std::memory_order_relaxed)) {
    work_wanted.store(false, std::memory_order_relaxed);
    facts.thief_asked = true;
  }
  if (steals_continuations(kind)) {
    facts.can_expose = conts_->can_expose();
    facts.many_workers = sched_.size() > 1;
  }
  const policy::SpawnStep step = spawn_.decide(kind, facts, paced, static_cast<double>(now));
  const policy::SpawnAction action = step.action;
  switch (action) {
    case policy::SpawnAction::queue_public: publish_next_ = true; break;
    case policy::SpawnAction::run_inline: grant(step.credits); break;
    case policy::SpawnAction::stack_exhausted: stack_exhausted();
    case policy::SpawnAction::queue:
    case policy::SpawnAction::expose: break;
  }
  return action;
}

template <class Call>
void Worker::run_inline(Call&& call) {
  ++slow_inlined_;
  detail::run_inline(this, std::forward<Call>(call));
}

Frame& Worker::joined_frame() {
  Frame& f = current_frame();
  if (f.level == level) return f;
  // An inline task queues its first joined child: it gets a frame now.
  Frame& made = stack_->inline_frames.emplace_back(ctx_, &f, f.ief, level);
  set_frame(&made);
  return made;
}

void Worker::close_inline_frame() noexcept {
  Frame& f = current_frame();
  wait_frame(f);  // the implicit wait at the end of a task
  set_frame(f.parent);
  stack_->inline_frames.pop_back();
}

void Worker::flush_fence(Frame& f) {
  f.fence->flush([this](const std::byte* slot) { push_copy(slot); },
                 [this](DependentTask* dependent) {
                   if (dependent->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
                     push_copy(dependent->slot.get());
                     delete dependent;
                   }
                 });
}

void Worker::end_queue(Frame& current, detail::Join join, std::byte* slot, bool held, bool expose) {
  Frame& f = join == detail::Join::joined ? joined_frame() : current;
  FinishScope* target = join == detail::Join::joined ? f.join_target() : f.ief;
  TaskHeader* h = task::header(slot);
  h->completion = GlobalRef::local(rank_, target);
  h->ief = GlobalRef::local(rank_, f.ief);
  enroll(target);
  ++deferred_;
  if (held || (join == detail::Join::joined && f.fence && f.fence->must_hold())) {
    f.fence->hold(slot, task::used_bytes(slot));  // the deque slot (if any) is left uncommitted
    return;
  }
  if (expose) return;  // the caller runs it on a fresh fiber (ContinuationEngine::expose)
  deque_.end_push();
  if (publish_next_) {
    publish_next_ = false;
    deque_.release();
  }
  if (remote_asked_) {  // a thief of another rank is waiting for this task
    remote_asked_ = false;
    poll_remote();
  }
  stats_.max_queue = std::max<std::uint64_t>(stats_.max_queue, deque_.size());
  if (trace_) [[unlikely]] trace_->queue(platform::now_ns(), deque_.size());
  if (at_top_level()) enter_region();
}

void Worker::spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                              detail::Join join) {
  check_task(fn, in_size);
  Frame& f = current_frame();
  if (f.fenced) flush_fence(f);
  // A joined child that a fence holds back is held, never run inline (it
  // would start before the generations spawned before the fence completed).
  const bool held = join == detail::Join::joined && f.level == level && f.fence && f.fence->must_hold();
  const policy::SpawnAction action = held ? policy::SpawnAction::queue : decide_spawn();
  std::byte* slot = action == policy::SpawnAction::run_inline ? nullptr : queue_slot();
  std::vector<std::byte> overflow;  // a held task needs no deque slot: when the deque is full, build it here
  if (slot == nullptr && held) {
    overflow.resize(sched_.stride());
    slot = overflow.data();
  }
  if (slot == nullptr) {
    const detail::TaskInvoke invoke = sched_.registry()[fn].invoke;
    run_inline([&] { invoke(const_cast<void*>(in), out); });  // C++ bodies take const In&; C bodies get the pointer given to put
    return;
  }
  TaskHeader* h = task::header(slot);
  h->fn_id = fn;
  h->flags = static_cast<std::uint16_t>((join == detail::Join::joined ? task::kJoined : 0) |
                                        (sched_.registry()[fn].local_only ? task::kLocalOnly : 0));
  h->in_size = static_cast<std::uint16_t>(in_size);
  h->out = GlobalRef::local(rank_, out);
  h->sync = GlobalRef();
  std::memcpy(task::payload(slot), in, in_size);
  const bool expose = action == policy::SpawnAction::expose && !held && slot != overflow.data();
  end_queue(f, join, slot, held, expose);  // held stays held even if the fence opened meanwhile: flushed at the next step
  if (expose) conts_->expose(slot);  // returns maybe on another worker: nothing after it
}

void Worker::spawn_closure(const detail::ClosureOps& ops, void* object) {
  Frame& f = current_frame();
  if (f.fenced) flush_fence(f);
  const policy::SpawnAction action = decide_spawn();
  std::byte* slot = action == policy::SpawnAction::run_inline ? nullptr : queue_slot();
  if (slot == nullptr) {
    run_inline([&] { ops.run_in_place(object); });
    return;
  }
  const bool fits = ops.trivially_copyable && ops.align <= task::kSlotAlign &&
                    kClosureObject + ops.size <= input_capacity_;
  TaskHeader* h = task::header(slot);
  std::byte* p = task::payload(slot);
  const detail::ClosureOps* ops_ptr = &ops;
  std::memcpy(p, &ops_ptr, sizeof ops_ptr);
  if (fits) {
    std::memcpy(p + kClosureObject, object, ops.size);
    h->in_size = static_cast<std::uint16_t>(kClosureObject + ops.size);
  } else {
    void* box = ops.make_box(object);
    std::memcpy(p + kClosureObject, &box, sizeof box);
    h->in_size = static_cast<std::uint16_t>(kClosureObject + sizeof box);
  }
  h->fn_id = task::kClosureFn;
  h->flags = static_cast<std::uint16_t>(task::kLocalOnly | (fits ? 0 : task::kBoxed));
  h->out = GlobalRef();
  h->sync = GlobalRef();
  const bool expose = action == policy::SpawnAction::expose;
  end_queue(f, detail::Join::escaping, slot, false, expose);
  if (expose) conts_->expose(slot);  // returns maybe on another worker: nothing after it
}

detail::SyncNode* Worker::spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                                            detail::SyncNode* const* after, std::size_t n_after) {
  check_task(fn, in_size);
  Frame& f = joined_frame();
  if (f.fenced) flush_fence(f);
  auto* node = new detail::SyncNode();
  node->refs.store(2, std::memory_order_relaxed);  // the task's and the handle's; not yet shared
  auto* dependent = new DependentTask(sched_.stride());
  std::byte* slot = dependent->slot.get();
  TaskHeader* h = task::header(slot);
  h->fn_id = fn;
  h->flags = static_cast<std::uint16_t>(task::kJoined | (sched_.registry()[fn].local_only ? task::kLocalOnly : 0));
  h->in_size = static_cast<std::uint16_t>(in_size);
  h->out = GlobalRef::local(rank_, out);
  h->sync = GlobalRef::local(rank_, node);
  std::memcpy(task::payload(slot), in, in_size);
  FinishScope* target = f.join_target();
  h->completion = GlobalRef::local(rank_, target);
  h->ief = GlobalRef::local(rank_, f.ief);
  enroll(target);
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
  if (at_top_level()) enter_region();
  return node;
}

void Worker::push_copy(const std::byte* slot) {
  std::byte* dst = deque_.begin_push();
  const std::size_t bytes = task::used_bytes(slot);
  if (dst == nullptr) {  // deque at its maximum: run the task now
    // Only `bytes` are valid at `slot` (a fence holds just the used bytes).
    std::vector<std::byte> copy(sched_.stride());
    std::memcpy(copy.data(), slot, bytes);
    ++no_migrate_;  // our caller goes on with this worker
    execute(copy.data());
    --no_migrate_;
    return;
  }
  std::memcpy(dst, slot, bytes);
  deque_.end_push();
}

void Worker::release_dependents(detail::SyncNode* node) {
  for (DependentTask* dependent : node->complete()) {
    if (dependent->remaining.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      push_copy(dependent->slot.get());
      delete dependent;
    }
  }
  detail::sync_release(node);
}

}  // namespace heist::sched
