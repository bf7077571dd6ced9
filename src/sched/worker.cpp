// Worker: construction, binding to a thread, the running stack's state,
// finish-scope counters, the worker threads' park/run loop, trace and
// statistics. The rest of Worker lives by responsibility in
// worker_spawn.cpp (spawning), worker_execute.cpp (running tasks, tasks of
// other processes), worker_search.cpp and worker_loop.hpp (stealing, the
// help loop) and worker_wait.cpp (waits, finish, fences, regions).
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

namespace heist::detail {
constinit thread_local WorkerCore* tls_worker [[gnu::tls_model("initial-exec")]] = nullptr;
}  // namespace heist::detail

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

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
