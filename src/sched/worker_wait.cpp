// Worker, waiting: wait(), finish, fence, handles, the distributed region
// (Runtime::root / Runtime::pool) and the C API's single steps; every wait
// helps (worker_loop.hpp) until its condition holds.
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

}  // namespace heist::sched
