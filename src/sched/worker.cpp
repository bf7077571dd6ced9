#include "sched/worker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "heist/heist.hpp"
#include "platform/backoff.hpp"
#include "policy/topology.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "task/task_slot.hpp"

namespace heist::detail {
constinit thread_local WorkerCore* tls_worker [[gnu::tls_model("initial-exec")]] = nullptr;
}  // namespace heist::detail

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

namespace {
// Closure payload: the ClosureOps pointer, then the object 16-aligned.
constexpr std::size_t kClosureObject = 16;
}  // namespace

Worker::Worker(Scheduler& scheduler, int id)
    : sched_(scheduler),
      id_(id),
      poll_interval_(scheduler.options().poll_interval),
      poll_countdown_(scheduler.options().poll_interval),
      deque_(scheduler.stride(), scheduler.options().deque_initial_tasks, scheduler.options().deque_max_tasks),
      spawn_(scheduler.options()),
      input_capacity_(scheduler.options().task_input_bytes),
      max_help_depth_(scheduler.options().max_help_depth),
      root_frame_(id, nullptr, &root_scope_, 0),
      ctx_(id),
      run_policy_(scheduler.options().policy) {
  root_scope_.owner = id;
  set_frame(&root_frame_);
  if (FiberPool* pool = scheduler.fiber_pool()) conts_ = std::make_unique<ContinuationEngine>(*this, *pool);
}

void Worker::attach_remote(RemoteWork* remote, std::uint32_t rank) noexcept {
  remote_ = remote;
  rank_ = rank;
  stats_.rank = rank;
  if (conts_ && remote_ != nullptr) conts_->attach_remote();
}

void Worker::set_places(const policy::Topology& topology, int place_base) {
  search_ = std::make_unique<policy::SearchDriver>(sched_.options(), topology,
                                                   policy::SearchSetup{place_base + id_, place_base, sched_.options().workers});
}

void Worker::bind() noexcept {
  detail::tls_worker = this;
  platform::Context native;  // this thread's stack: bounds for the stack guard of inline spawns
  platform::adopt_native(native);
  if (native.stack_low != nullptr) {
    stack_low_ = static_cast<const char*>(native.stack_low);
    stack_high_ = stack_low_ + native.stack_size;
  }
  if (conts_) conts_->adopt_native();
}

Worker* Worker::resumed() noexcept { return static_cast<Worker*>(detail::tls_worker); }

void Worker::exchange_stack(StackState& s) noexcept {
  std::swap(level, s.level);
  std::swap(frame_level, s.frame_level);
  std::swap(frame, s.frame);
  std::swap(depth_, s.depth);
  std::swap(help_depth_, s.help_depth);
  std::swap(stack_, s.containers);
  std::swap(ctx_, s.context);
  std::swap(native_, s.native);
  std::swap(no_migrate_, s.no_migrate);
  std::swap(base_level_, s.base_level);
  std::swap(stack_low_, s.stack_low);
  std::swap(stack_high_, s.stack_high);
}
void Worker::unbind() noexcept { detail::tls_worker = nullptr; }

// ---------------------------------------------------------------- counters

void Worker::enroll(FinishScope* scope) noexcept {
  if (scope->owner == ctx_) ++scope->local;
  // relaxed: the task is published to its executor through the deque
  // (release/acquire), so this increment precedes its decrement.
  else scope->remote.fetch_add(1, std::memory_order_relaxed);
}

void Worker::complete(FinishScope* scope) noexcept {
  if (scope->owner == ctx_) {
    --scope->local;
    return;
  }
  // release: the task's outputs happen before the owner's acquire sees 0.
  // acquire: the last completion of a scope with a suspended owner reads
  // FinishScope::waiter and resumes it (protocol in sched/continuations.hpp).
  if (scope->remote.fetch_sub(1, std::memory_order_acq_rel) == FinishScope::kWaiting + 1) conts_->wake(*scope);
}

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

// ---------------------------------------------------------------- executing

std::byte* Worker::exec_buffer(int depth) {
  const auto d = static_cast<std::size_t>(depth);
  auto& buffers = stack_->exec_buffers;
  while (buffers.size() <= d) buffers.push_back(std::make_unique<std::byte[]>(sched_.stride()));
  return buffers[d].get();
}

void Worker::execute(std::byte* slot) {
  const TaskHeader& h = *task::header(slot);
  if (h.fn_id == task::kContinuationFn) {  // a help loop met a stolen continuation
    conts_->resume_from_help(slot);
    return;
  }
  if (h.completion.rank() != rank_) {  // stolen from another process
    execute_foreign(slot);
    return;
  }
  if (room < 0) grant(0);  // a new task, maybe under another policy: re-evaluate
  const std::int64_t traced_from = trace_ ? trace_begin() : 0;
  ++level;
  Frame child(ctx_, &current_frame(), h.ief.local<FinishScope>(), level);
  detail::FrameCore* const saved = this->frame;
  set_frame(&child);
  ++depth_;
  try {
    std::byte* p = task::payload(slot);
    if (h.fn_id == task::kClosureFn) {
      const detail::ClosureOps* ops;
      std::memcpy(&ops, p, sizeof ops);
      if (h.flags & task::kBoxed) {
        void* box;
        std::memcpy(&box, p + kClosureObject, sizeof box);
        ops->run_boxed(box);
      } else {
        ops->run_in_place(p + kClosureObject);
      }
    } else {
      sched_.registry()[h.fn_id].invoke(p, h.out.local<void>());
    }
  } catch (...) {
    sched_.record_exception(std::current_exception());
  }
  // Under continuation stealing the body may have ended on another worker
  // (a thief resumed its continuation): the task ends there.
  (conts_ ? resumed() : this)->end_task(child, saved, h, traced_from);
}

void Worker::end_task(Frame& child, detail::FrameCore* saved, const TaskHeader& h, std::int64_t traced_from) {
  if (!child.joined_drained()) {  // the implicit wait at the end of a task
    if (conts_ && !child.fence && waits_by_suspending() && conts_->can_suspend()) {
      Worker& now = conts_->suspend_until_drained(child.join);
      if (&now != this) return now.end_task(child, saved, h, traced_from);
    }
    wait_frame(child);
  }
  if (trace_) [[unlikely]] trace_->task(traced_from, platform::now_ns(), h.fn_id, rank_);
  --depth_;
  --level;
  set_frame(saved);
  if (room < 0) grant(0);  // credits granted under the task's policy
  if ((h.flags & task::kUncounted) == 0) ++stats_.tasks_executed;
  if (!h.sync.null()) release_dependents(h.sync.local<detail::SyncNode>());
  complete(h.completion.local<FinishScope>());
  if (remote_ != nullptr && --poll_countdown_ <= 0) poll_remote();
}

// A task of another rank: its completion scope, output and task handle live
// there. It runs with a proxy finish as its IEF, so its escaping asyncs (and
// theirs) register here; its completion goes back only when they are done,
// which keeps the origin's finish from draining early (distributor.hpp,
// termination). Its output lands in a local buffer that travels back.
void Worker::execute_foreign(std::byte* slot) {
  const TaskHeader& h = *task::header(slot);
  const task::TaskInfo& entry = sched_.registry()[h.fn_id];  // validated when it arrived
  if (room < 0) grant(0);
  ++no_migrate_;  // a foreign task's ending below uses this worker: its continuations stay here
  const std::int64_t traced_from = trace_ ? trace_begin() : 0;
  ++level;
  FinishScope proxy;
  proxy.owner = ctx_;
  Frame child(ctx_, &current_frame(), &proxy, level);
  detail::FrameCore* const saved = this->frame;
  set_frame(&child);
  ++depth_;
  std::vector<std::byte> out(entry.out_size);
  std::string error;
  try {
    entry.invoke(task::payload(slot), out.empty() ? nullptr : out.data());
  } catch (const std::exception& e) {
    error = "task '" + entry.name + "' threw on rank " + std::to_string(rank_) + ": " + e.what();
  } catch (...) {
    error = "task '" + entry.name + "' threw a non-standard exception on rank " + std::to_string(rank_);
  }
  help_until([&] {
    if (child.fence) flush_fence(child);
    return child.joined_drained() && proxy.drained_for_owner();
  });
  if (trace_) [[unlikely]] trace_->task(traced_from, platform::now_ns(), h.fn_id, h.completion.rank());
  --depth_;
  --level;
  --no_migrate_;
  set_frame(saved);
  ++stats_.tasks_executed;
  const std::int64_t sending = platform::now_ns();
  remote_->send_completion(*this, h, out.data(), out.size(), error);
  comm_ns_ += platform::now_ns() - sending;
  if (--poll_countdown_ <= 0) poll_remote();
}

void Worker::poll_remote() {
  poll_countdown_ = poll_interval_;
  const std::int64_t start = platform::now_ns();
  last_poll_ns_ = start;
  if (!remote_->region_active()) return;
  remote_->poll(*this);
  comm_ns_ += platform::now_ns() - start;
}

void Worker::finish_foreign(GlobalRef completion, GlobalRef sync, GlobalRef out, const void* bytes, std::size_t size,
                            std::string_view error) {
  if (size > 0 && !out.null()) std::memcpy(out.local<void>(), bytes, size);
  if (!error.empty()) sched_.record_exception(std::make_exception_ptr(std::runtime_error("heist: " + std::string(error))));
  if (!sync.null()) release_dependents(sync.local<detail::SyncNode>());
  complete(completion.local<FinishScope>());
}

std::uint32_t Worker::take_oldest(std::uint32_t max, std::vector<std::byte>& out, std::size_t max_output) {
  const task::TaskRegistry& registry = sched_.registry();
  const std::size_t stride = sched_.stride();
  std::vector<std::byte> keep;  // claimed but not allowed to leave: back into the deque
  std::uint32_t moved = 0;
  deque_.take_oldest(max, [&](const std::byte* slot) {
    const TaskHeader& h = *task::header(slot);
    const bool migratable = h.fn_id != task::kClosureFn && (h.flags & task::kLocalOnly) == 0 &&
                            registry[h.fn_id].out_size <= max_output;
    std::vector<std::byte>& to = migratable ? out : keep;
    const std::size_t at = to.size();
    to.resize(at + stride);
    std::memcpy(to.data() + at, slot, task::used_bytes(slot));
    moved += migratable ? 1 : 0;
  });
  for (std::size_t at = 0; at < keep.size(); at += stride) accept_stolen(keep.data() + at);
  return moved;
}

void Worker::accept_stolen(const std::byte* slot) {
  std::byte* dst = deque_.begin_push();
  if (dst == nullptr) {  // deque at its maximum: run it from the overflow list
    const std::size_t at = overflow_.size();
    overflow_.resize(at + sched_.stride());
    std::memcpy(overflow_.data() + at, slot, task::used_bytes(slot));
    return;
  }
  std::memcpy(dst, slot, task::used_bytes(slot));
  deque_.end_push();
}

void Worker::run_overflow() {
  // Tasks stolen while this worker's deque was at its maximum: run them now.
  const std::size_t stride = sched_.stride();
  while (!overflow_.empty()) {
    std::vector<std::byte> slot(overflow_.end() - static_cast<std::ptrdiff_t>(stride), overflow_.end());
    overflow_.resize(overflow_.size() - stride);
    execute(slot.data());
  }
}

// One step of the search driver: a steal attempt inside the process or on
// another rank, or (success-only, across nodes) a request. Counted per level.
std::uint32_t Worker::try_steal() {
  const policy::SearchStep step = search_->next(remote_region());
  using Kind = policy::SearchStep::Kind;
  if (step.kind == Kind::none) return 0;
  if (step.kind == Kind::request) {
    request_across();
    return 0;  // the answer arrives through a poll
  }
  const policy::VictimChoice c = step.choice;
  const std::int64_t start = platform::now_ns();
  std::uint32_t taken = 0;
  if (step.kind == Kind::steal_here) {
    taken = steal_local(step.target, c.level);
  } else {
    const StealOutcome outcome = remote_->steal(*this, step.target, c.level);
    if (!outcome.attempted) return 0;  // another worker of this process is stealing remotely
    taken = outcome.tasks;
  }
  search_->on_result(step, taken);
  const int l = policy::index(c.level);
  LevelStealStats& at = stats_.levels[l];
  ++at.attempts;
  if (taken > 0) {
    ++at.successes;
    at.tasks += taken;
  } else {
    ++at.failures;
  }
  level_ns_[l] += platform::now_ns() - start;
  return taken;
}

std::uint32_t Worker::steal_local(int victim, policy::Level level) {
  ++stats_.steal_attempts;
  Worker& target = sched_.worker(victim);
  const std::int64_t traced_from = trace_ ? platform::now_ns() : 0;
  const std::uint32_t taken = target.deque_.steal_into(deque_, *search_, overflow_, level);
  // Nothing public left (we failed, or took the last): ask the victim to
  // queue more; its inline fast path sees the flag at its next spawn, so
  // work is ready by the time a thief comes back.
  if (target.deque_.public_size() == 0 && !target.work_wanted.load(std::memory_order_relaxed))
    target.work_wanted.store(true, std::memory_order_relaxed);
  if (taken == 0) {
    ++stats_.failed_steals;
    return 0;
  }
  ++stats_.steals;
  stats_.tasks_stolen += taken;
  if (trace_) [[unlikely]] trace_steal(traced_from, static_cast<int>(rank_), victim, taken);
  return taken;
}

void Worker::request_across() {
  const std::int64_t start = platform::now_ns();
  const int l = policy::index(policy::Level::machine);
  if (remote_->request(*this, *search_)) ++stats_.levels[l].attempts;
  level_ns_[l] += platform::now_ns() - start;
}

template <class Done>
void Worker::help_until(Done&& done) {
  if (done()) return;
  if (at_top_level()) enter_region();
  // With continuations, a thread's own stack runs no task: it lets a
  // scheduler loop on a fiber use the worker until that loop resumes it.
  if (conts_ && native_) {
    while (!done())
      if (!conts_->wait_pinned()) break;  // no fiber free: help here
    if (done()) return;
  }
  std::byte* buffer = exec_buffer(help_depth_);
  ++help_depth_;
  platform::Backoff backoff(search_->backoff_limits(id_ == 0 || depth_ > 0, remote_ != nullptr));
  const bool may_steal = help_depth_ <= max_help_depth_ && search_->can_steal();
  const bool may_poll_remote = help_depth_ <= max_help_depth_ && remote_ != nullptr;
  const bool was_searching = searching_;
  std::int64_t searching_since = 0;
  while (!done()) {
    if (deque_.pop(buffer)) {
      if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
      searching_since = 0;
      searching_ = false;
      execute(buffer);
      backoff.reset();
      continue;
    }
    const std::int64_t attempt_start = platform::now_ns();
    if (searching_since == 0) searching_since = attempt_start;
    searching_ = true;
    if (may_steal && try_steal() > 0) {
      const std::int64_t stolen_at = platform::now_ns();
      run_overflow();
      steal_ns_ += stolen_at - attempt_start;
      search_ns_ += attempt_start - searching_since;
      searching_since = 0;
      backoff.reset();
      continue;
    }
    // After a round of failed attempts: apply completions and deliveries
    // (they may end the wait), release, take back what nobody took.
    if (may_poll_remote && search_->failed(remote_->region_active())) {
      remote_->poll(*this);
      const std::int64_t reclaim_start = platform::now_ns();
      if (deque_.size() > 0 || remote_->reclaim(*this) > 0) {
        run_overflow();
        steal_ns_ += platform::now_ns() - reclaim_start;
        search_ns_ += reclaim_start - searching_since;
        searching_since = 0;
        backoff.reset();
        continue;
      }
    }
    backoff.pause();
    // A context parked pinned on this worker (a help loop that met a
    // stolen continuation, or the native stack) may hold what this wait
    // needs; only this worker can resume it, so take turns.
    if (conts_ != nullptr) conts_->yield_to_pinned();
  }
  if (searching_since != 0) search_ns_ += platform::now_ns() - searching_since;
  searching_ = was_searching;
  --help_depth_;
}

// ---------------------------------------------------------------- joining

void Worker::enter_region() noexcept {
  if (!sched_.active()) {
    active_since_ns_ = platform::now_ns();
    sched_.activate();
  }
}

void Worker::leave_region() {
  if (!at_top_level()) return;
  if (root_empty() && sched_.active()) {
    sched_.deactivate();
    active_ns_ += platform::now_ns() - active_since_ns_;
  }
  sched_.rethrow_task_exception();
}

void Worker::wait_frame(Frame& f) {
  help_until([&] {
    if (f.fence) flush_fence(f);
    return f.joined_drained();
  });
}

void Worker::wait_current() {
  Frame& f = current_frame();
  if (f.level == level) wait_frame(f);  // else the task queued no joined child
  leave_region();
}

void Worker::wait_root() {
  help_until([this] {
    if (root_frame_.fence) flush_fence(root_frame_);
    return root_empty();
  });
  leave_region();
}

void Worker::fence_current() {
  Frame& f = joined_frame();
  if (!f.fence) {
    f.fence = std::make_unique<FenceState>(f.join, ctx_);
    f.fenced = true;
  }
  f.fence->fence();
}

detail::FrameCore* Worker::finish_begin(int policy) {
  const SpawnPolicy outer = policy_here();
  FinishRecord& record = stack_->finishes.emplace_back(ctx_, &current_frame(), level);
  record.scope.policy = static_cast<std::int8_t>(policy >= 0 ? policy : static_cast<int>(outer));
  if (!conts_ && steals_continuations(static_cast<SpawnPolicy>(record.scope.policy))) {
    const SpawnPolicy asked = static_cast<SpawnPolicy>(record.scope.policy);
    stack_->finishes.pop_back();
    throw std::logic_error(std::string("heist: finish(") + to_string(asked) +
                           ") steals continuations: run with --continuations on (HEIST_CONTINUATIONS=on) or a "
                           "--policy that steals them (work-first, adaptive)");
  }
  set_frame(&record);
  if (room < 0) grant(0);  // the scope's policy decides from the next spawn on
  return &record;
}

void Worker::finish_end(detail::FrameCore* core) {
  auto& record = static_cast<FinishRecord&>(static_cast<Frame&>(*core));
  if (&record != &stack_->finishes.back()) throw std::logic_error("heist: finish scopes closed out of order");
  help_until([&] {
    if (record.fence) flush_fence(record);
    return record.joined_drained() && record.scope.drained_for_owner();
  });
  set_frame(record.parent);
  stack_->finishes.pop_back();
  leave_region();
}

void Worker::wait_sync(detail::SyncNode* node) {
  help_until([this, node] {
    // The task behind the handle may be held by the waiting task's own
    // fence (spawned after it): release it once its generation may start.
    if (Frame& f = current_frame(); f.fence) flush_fence(f);
    return detail::sync_done(node);
  });
  leave_region();
}

// ---------------------------------------------------------------- distributed regions

void Worker::run_region(void (*body)(void*), void* ctx, bool seed, bool pool) {
  if (!at_top_level() || !stack_->finishes.empty())
    throw std::logic_error("heist: Runtime::root/pool must be called on the runtime's thread, outside tasks and finish");
  enter_region();
  FinishRecord& record = stack_->finishes.emplace_back(ctx_, &current_frame(), level);
  set_frame(&record);
  std::exception_ptr error;
  if (seed && conts_ && !pool) {
    // Under continuation stealing the body runs as a task, on a fiber, so
    // that its continuations can be stolen too (this stack never moves). A
    // pool's seeds are queued from here, as below.
    struct Body {
      void (*run)(void*);
      void* ctx;
      void operator()() const { run(ctx); }
    } task{body, ctx};
    const detail::ClosureOps* ops = &detail::closure_ops<Body>();
    std::byte* slot = deque_.begin_push();  // the deque is empty: there is room
    if (slot == nullptr) throw std::logic_error("heist: no deque slot for the region's body");
    TaskHeader* h = task::header(slot);
    std::memcpy(task::payload(slot), &ops, sizeof ops);
    std::memcpy(task::payload(slot) + kClosureObject, &task, sizeof task);
    h->fn_id = task::kClosureFn;
    h->flags = static_cast<std::uint16_t>(task::kLocalOnly | task::kUncounted);  // not a task of the program's
    h->in_size = static_cast<std::uint16_t>(kClosureObject + sizeof task);
    h->completion = GlobalRef::local(rank_, &record.scope);
    h->ief = GlobalRef::local(rank_, &record.scope);
    h->out = GlobalRef();
    h->sync = GlobalRef();
    enroll(&record.scope);
    deque_.end_push();
  } else if (seed) {
    queue_seeds_ = pool;
    grant(0);  // no inline credits left from before: every seed spawn asks decide_spawn()
    try {
      body(ctx);
    } catch (...) {
      error = std::current_exception();
    }
    queue_seeds_ = false;
    // Offer the seeds to the other ranks before running any: otherwise the
    // first poll waits for a task boundary, and a long first task keeps
    // every seed of this process out of reach while it runs.
    if (remote_ != nullptr && queued() > 0) poll_remote();
  }
  help_until([&] {
    if (record.fence) flush_fence(record);
    return record.joined_drained() && record.scope.drained_for_owner();
  });
  set_frame(record.parent);
  stack_->finishes.pop_back();
  if (remote_ != nullptr) help_until([this] { return remote_->region_done(*this); });
  if (sched_.active()) {
    sched_.deactivate();
    active_ns_ += platform::now_ns() - active_since_ns_;
  }
  sched_.quiesce();  // the other workers parked: no RMA from this process after this
  if (error) sched_.record_exception(error);
}

// ---------------------------------------------------------------- C API steps

bool Worker::execute_one() {
  std::byte* buffer = exec_buffer(help_depth_);
  ++help_depth_;
  const bool popped = deque_.pop(buffer);
  if (popped) execute(buffer);
  --help_depth_;
  return popped;
}

std::uint32_t Worker::steal_once() {
  if (sched_.size() == 1) return 0;
  if (at_top_level()) enter_region();
  const std::uint32_t taken = try_steal();
  run_overflow();
  return taken;
}

bool Worker::root_empty() noexcept {
  if (depth_ > 0) return false;  // a task is running on this stack
  for (FinishRecord& record : stack_->finishes)
    if (!record.joined_drained() || !record.scope.drained_for_owner()) return false;
  return root_frame_.joined_drained() && root_scope_.drained_for_owner();
}

// ---------------------------------------------------------------- worker threads

void Worker::park() {
  for (;;) {
    // seq_cst: pairs with Scheduler::quiesce (see scheduler.hpp); as a
    // release it also publishes this worker's statistics.
    parked_.store(true, std::memory_order_seq_cst);
    sched_.wait_for_activity();
    // Unpark, then confirm the region is still on. A quiesce() that saw this
    // worker parked has deactivated before, so this load sees it and the
    // worker parks again without touching its statistics.
    parked_.store(false, std::memory_order_seq_cst);
    if (sched_.active_seq_cst() || sched_.stopping()) return;
  }
}

void Worker::run_until_stopped() {
  bind();
  for (;;) {
    park();
    if (sched_.stopping()) break;
    const std::int64_t since = platform::now_ns();
    help_until([this] { return !sched_.active() || sched_.stopping(); });
    active_ns_ += platform::now_ns() - since;
  }
  unbind();
}

// ---------------------------------------------------------------- trace (--trace)

std::int64_t Worker::trace_begin() {
  const std::int64_t now = platform::now_ns();
  trace_->queue(now, deque_.size());
  return now;
}

void Worker::trace_steal(std::int64_t from_ns, int victim_rank, int victim_track, std::uint32_t taken) {
  const std::int64_t now = platform::now_ns();
  trace_->steal(from_ns, now, victim_rank, victim_track, taken);
  trace_->queue(now, deque_.size() + overflow_.size() / sched_.stride());
}

// ---------------------------------------------------------------- statistics

WorkerStats Worker::stats() const {
  WorkerStats s = stats_;
  s.tasks_inlined = slow_inlined_ + fast_inlined();
  s.tasks_created = deferred_ + s.tasks_inlined;
  s.tasks_executed = stats_.tasks_executed + s.tasks_inlined;
  s.releases = deque_.releases();
  s.acquires = deque_.acquires();
  s.time_active_s = platform::ns_to_s(active_ns_);
  s.time_search_s = platform::ns_to_s(search_ns_);
  s.time_steal_s = platform::ns_to_s(steal_ns_);
  s.time_comm_s = platform::ns_to_s(comm_ns_);
  s.time_work_s = std::max(0.0, s.time_active_s - s.time_search_s - s.time_steal_s - s.time_comm_s);
  for (int l = 0; l < policy::kLevels; ++l) s.levels[l].time_s = platform::ns_to_s(level_ns_[l]);
  return s;
}

void Worker::reset_stats() noexcept {
  stats_ = WorkerStats{};
  deferred_ = slow_inlined_ = fast_inlined_ = 0;
  granted_ = -room;  // nothing spent yet of what remains
  active_ns_ = search_ns_ = steal_ns_ = comm_ns_ = 0;
  for (std::int64_t& ns : level_ns_) ns = 0;
  deque_.reset_counters();
}

}  // namespace heist::sched
