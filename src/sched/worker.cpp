// Worker: construction, binding to a thread, the running stack's state,
// the worker threads' park/run loop, trace and statistics. Its parts live
// in worker_spawn.cpp (WorkerQueue: spawning, the rma/ hooks),
// worker_execute.cpp, worker_search.cpp and worker_loop.hpp (Dispatcher:
// running tasks, stealing, the help loop) and worker_wait.cpp (Joins:
// counters, waits, finish, fences, regions).
#include "sched/worker.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

#include "heist/heist.hpp"
#include "policy/help_floor.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker_loop.hpp"
#include "task/task_slot.hpp"

namespace heist::detail {
namespace {
constinit FrameCore outside_frame{.join = {}, .level = 0, .fenced = true};
}  // namespace
constinit WorkerCore outside_worker{
    .room = 0, .above_frame = 0, .frame_level = 0, .frame = &outside_frame, .context_self = &roaming_worker,
    .work_wanted = {}, .context_limit = {}};
constinit WorkerCore roaming_worker{.room = 0,
                                   .above_frame = 0,
                                   .frame_level = std::numeric_limits<int>::max(),
                                   .frame = &outside_frame,
                                   .context_self = &roaming_worker,
                                   .work_wanted = {},
                                   .context_limit = {}};
constinit thread_local WorkerCore* tls_worker [[gnu::tls_model("initial-exec")]] = &outside_worker;
}  // namespace heist::detail

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

Worker::Worker(Scheduler& scheduler, int id)
    : sched_(scheduler),
      id_(id),
      queue_(scheduler.options(), scheduler.stride()),
      dispatch_(scheduler.options()),
      joins_(id),
      max_help_depth_(scheduler.options().max_help_depth),
      ctx_(id),
      run_policy_(scheduler.options().policy) {
  set_frame(&joins_.root_frame_);
  if (FiberPool* pool = scheduler.fiber_pool()) conts_ = std::make_unique<ContinuationEngine>(*this, *pool);
  context_self = conts_ ? &detail::roaming_worker : this;
}

void Worker::attach_remote(RemoteWork* remote, std::uint32_t rank) noexcept {
  remote_ = remote;
  rank_ = rank;
  stats_.rank = rank;
  if (remote_ != nullptr) dispatch_.pace_clock_.calibrate();  // paced from now on
  if (conts_ && remote_ != nullptr) conts_->attach_remote();
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
  std::swap(above_frame, s.above_frame);
  std::swap(frame_level, s.frame_level);
  std::swap(frame, s.frame);
  std::swap(checked_body, s.checked_body);
  std::swap(depth_, s.depth);
  std::swap(help_depth_, s.help_depth);
  std::swap(stack_, s.containers);
  std::swap(ctx_, s.context);
  std::swap(native_, s.native);
  std::swap(no_migrate_, s.no_migrate);
  std::swap(base_level_, s.base_level);
  std::swap(stack_low_, s.stack_low);
  std::swap(stack_high_, s.stack_high);
  if (frame != nullptr && frame->fenced) drop_credits();  // credits follow the worker, not the stack: WorkerCore::room
}

void Worker::unbind() noexcept { detail::tls_worker = &detail::outside_worker; }

bool Worker::waits_by_suspending() const noexcept {
  const SpawnPolicy p = policy_here();
  const bool steals = p == SpawnPolicy::work_first || (p == SpawnPolicy::adaptive && !queue_.spawn_.slaw_help_first());
  return policy::wait_suspends(sched_.options().suspend_waits, steals);
}

Worker& Worker::await_by_suspending(detail::FinishScope& scope) {
  Worker* w = this;
  if (!steals_continuations(policy_here())) {
    // A help-first wait's children are mostly on top of its own deque: run
    // them here; a fiber switch each way for every wait costs more than it
    // saves (docs/results/journal/2026-11-29-where-fibs-waits-go-256-cores.md).
    w = &joins_.run_own_first(scope);
    if (scope.drained_for_owner() || !w->conts_->can_suspend()) return *w;
  }
  return w->conts_->suspend_until_drained(scope);
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
    dispatch_.help_until([this] { return !sched_.active() || sched_.stopping(); });
    active_ns_ += platform::now_ns() - since;
  }
  unbind();
}

// ---------------------------------------------------------------- trace (--trace)

void Worker::trace_steal(std::int64_t from_ns, int victim_rank, int victim_track, std::uint32_t taken) {
  const std::int64_t now = platform::now_ns();
  trace_->steal(from_ns, now, victim_rank, victim_track, taken);
  trace_->queue(now, queue_.deque_.size() + queue_.overflow_.size() / sched_.stride());
}

// ---------------------------------------------------------------- statistics

WorkerStats Worker::stats() const {
  WorkerStats s = stats_;
  s.tasks_inlined = queue_.slow_inlined_ + queue_.fast_inlined();
  s.tasks_created = queue_.deferred_ + s.tasks_inlined;
  s.tasks_executed = stats_.tasks_executed + s.tasks_inlined;
  s.releases = queue_.deque_.releases();
  s.acquires = queue_.deque_.acquires();
  s.time_active_s = platform::ns_to_s(active_ns_);
  s.time_search_s = platform::ns_to_s(dispatch_.search_ns_);
  s.time_steal_s = platform::ns_to_s(dispatch_.steal_ns_);
  s.time_comm_s = platform::ns_to_s(dispatch_.comm_ns_);
  s.time_work_s = std::max(0.0, s.time_active_s - s.time_search_s - s.time_steal_s - s.time_comm_s);
  for (int l = 0; l < policy::kLevels; ++l) s.levels[l].time_s = platform::ns_to_s(dispatch_.level_ns_[l]);
  return s;
}

void Worker::reset_stats() noexcept {
  stats_ = WorkerStats{};
  queue_.deferred_ = queue_.slow_inlined_ = queue_.fast_inlined_ = 0;
  queue_.granted_ = -room;  // nothing spent yet of what remains
  active_ns_ = dispatch_.search_ns_ = dispatch_.steal_ns_ = dispatch_.comm_ns_ = 0;
  for (std::int64_t& ns : dispatch_.level_ns_) ns = 0;
  queue_.deque_.reset_counters();
}

}  // namespace heist::sched
