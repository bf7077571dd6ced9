// Worker, executing: running a task from a slot (its frame, its implicit
// wait, its completion), tasks of other processes (execute_foreign,
// finish_foreign), the hooks rma/ uses to move tasks in and out of this
// worker (take_oldest, accept_stolen) and the remote poll.
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

}  // namespace heist::sched
