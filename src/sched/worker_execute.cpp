// Executor (worker_executor.hpp): running a task from a slot (its frame,
// its implicit wait, its completion, its exception), tasks of other
// processes (execute_foreign, finish_foreign).
#include "sched/worker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "heist/heist.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/task_failure.hpp"
#include "sched/worker_loop.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

// ---------------------------------------------------------------- executing

void Executor::invoke_copy(const task::TaskInfo& entry, const std::byte* in, std::size_t in_size, void* out) {
  // A C body may read (or write) its input at any time: it gets a copy.
  alignas(task::kSlotAlign) std::byte local[256];
  std::vector<std::byte> large;  // operator new: 16-aligned
  std::byte* copy = local;
  if (in_size > sizeof local) {
    large.resize(in_size);
    copy = large.data();
  }
  std::memcpy(copy, in, in_size);
  entry.invoke(copy, out);
}

std::byte* Executor::exec_buffer(int depth) {
  const auto d = static_cast<std::size_t>(depth);
  auto& buffers = owner().stack_->exec_buffers;
  while (buffers.size() <= d) buffers.push_back(std::make_unique<std::byte[]>(owner().sched_.stride()));
  return buffers[d].get();
}

std::int64_t Executor::trace_begin() {
  const std::int64_t now = platform::now_ns();
  owner().trace_->queue(now, owner().queue_.deque_.size());
  return now;
}

// `slot` may be the deque slot the task was popped from (it runs in place):
// the body's first spawn may reuse it, so the header is copied here and the
// payload by the body's invoke (TaskInfo::copies_input; a C body's input
// and a closure are copied before the call) before any user code runs.
void Executor::execute(const std::byte* slot) {
  Worker& w = owner();
  const TaskHeader h = *task::header(slot);
  if (h.fn_id == task::kContinuationFn) {  // a help loop met a stolen continuation
    w.conts_->resume_from_help(slot);
    return;
  }
  if (h.completion.rank() != w.rank_) {  // stolen from another process
    execute_foreign(slot);
    return;
  }
  if (w.queue_.spawn_.task_edge(policy::TaskEdge::start)) w.drop_credits();  // maybe under another policy
  const std::int64_t traced_from = w.trace_ ? trace_begin() : 0;
  ++w.above_frame;  // the task's level
  // An async whose IEF this worker does not count locally (it was stolen,
  // or its spawner ran elsewhere) runs under a proxy of that scope, which
  // also counts the task itself (proxy_scope.hpp). Joined children keep
  // their parent's IEF: they are waited for one by one.
  FinishScope* ief = h.ief.local<FinishScope>();
  FinishScope* completion = h.completion.local<FinishScope>();
  if (ief != nullptr && ief == completion && !w.joins_.counts_locally(ief))
    ief = completion = w.joins_.open_proxy(ief);
  Frame child(w.ctx_, &w.current_frame(), ief, w.level());
  child.levels = h.spawner == static_cast<std::uint32_t>(w.id_) ? h.levels : 0;  // else it moved: a new top
  child.depth = h.depth;  // not the depth of the stack it runs on (a waiter's)
  detail::FrameCore* const saved = w.frame;
  w.set_frame(&child);
  ++w.depth_;
  std::exception_ptr failure;
  try {
    const std::byte* p = task::payload(slot);
    if (h.fn_id == task::kClosureFn) {
      const detail::ClosureOps* ops;
      std::memcpy(&ops, p, sizeof ops);
      if (h.flags & task::kBoxed) {
        void* box;
        std::memcpy(&box, p + kClosureObject, sizeof box);
        ops->run_boxed(box);
      } else {
        ops->run_copy(p + kClosureObject);
      }
    } else {
      invoke(w.sched_.registry()[h.fn_id], p, h.in_size, h.out.local<void>());
    }
  } catch (...) {
    failure = std::current_exception();  // raised by the join that waits for this task (task_failure.hpp)
  }
  // Under continuation stealing the body may have ended on another worker
  // (a thief resumed its continuation): the task ends there.
  if (w.conts_) {
    Worker::resumed()->exec_.end_task(child, saved, h, completion, traced_from, std::move(failure));
    return;
  }
  if (!child.joined_drained()) w.joins_.wait_frame(child);  // the implicit wait at the end of a task
  close_task(child, saved, h, completion, traced_from, failure);
}

void Executor::end_task(Frame& child, detail::FrameCore* saved, const TaskHeader& h, FinishScope* completion,
                        std::int64_t traced_from, std::exception_ptr failure) {
  Worker& w = owner();
  if (!child.joined_drained()) {  // the implicit wait at the end of a task
    if (w.conts_ && !child.fence && w.waits_by_suspending() && w.conts_->can_suspend()) {
      Worker& now = w.await_by_suspending(child.join);
      if (&now != &w) return now.exec_.end_task(child, saved, h, completion, traced_from, std::move(failure));
    }
    w.joins_.wait_frame(child);
  }
  close_task(child, saved, h, completion, traced_from, failure);
}

// The task failed (its body threw, or a joined child failed and it did not
// catch that at a wait): its exception goes to the scope its completion
// counts in, before the completion publishes it (task_failure.hpp). The
// completion goes by `remote`, so a join's inline test never sees the
// scope drained through it.
void Executor::fail_task(FinishScope* completion, std::exception_ptr failure) {
  Worker& w = owner();
  if (g_misroute_failures.load(std::memory_order_relaxed)) [[unlikely]] {
    w.sched_.record_exception(std::move(failure));  // the differential test's planted fault
    w.joins_.complete(completion);
    return;
  }
  record_failure(*completion, std::move(failure));
  w.joins_.complete_shared(completion, 1);
}

// The task's frame is done (its joined children drained): back to the
// spawner's frame, and the task counts as complete. Inline in execute.
[[gnu::always_inline]] inline void Executor::close_task(Frame& child, detail::FrameCore* saved, const TaskHeader& h,
                                                        FinishScope* completion, std::int64_t traced_from,
                                                        std::exception_ptr& failure) {
  Worker& w = owner();
  // A joined child's failure is the task's own unless the body failed first.
  if (std::exception_ptr joined = child.take_failure(); joined && !failure) failure = std::move(joined);
  // The runtime's own task (a region's body on a fiber) is no task span, as
  // it is in no statistic: a trace's spans are the program's tasks.
  if (w.trace_ && (h.flags & task::kUncounted) == 0) [[unlikely]]
    w.trace_->task(traced_from, platform::now_ns(), h.fn_id, w.rank_);
  --w.depth_;
  --w.above_frame;
  w.set_frame(saved);
  if (w.queue_.spawn_.task_edge(policy::TaskEdge::end)) w.drop_credits();  // granted under the task's policy
  if ((h.flags & task::kUncounted) == 0) ++w.stats_.tasks_executed;
  if (!h.sync.null()) w.queue_.release_dependents(h.sync.local<detail::SyncNode>());
  if (failure) [[unlikely]] fail_task(completion, std::move(failure));
  else w.joins_.complete(completion);
  if (w.remote_ != nullptr) w.dispatch_.poll_between_tasks();
}

// A task of another rank: its completion scope, output and task handle live
// there. It runs with a proxy finish as its IEF, so its escaping asyncs (and
// theirs) register here; its completion goes back only when they are done,
// which keeps the origin's finish from draining early (distributor.hpp,
// termination). Its output lands in a local buffer that travels back.
// An escaping task with nothing else to send back (no output, no handle)
// runs under this worker's foreign proxy of its scope instead, which
// reports it together with the others it counts (proxy_scope.hpp); the task
// then waits only for its joined children.
void Executor::execute_foreign(const std::byte* slot) {
  Worker& w = owner();
  const TaskHeader h = *task::header(slot);  // copied: the slot may be reused (execute)
  const task::TaskInfo& entry = w.sched_.registry()[h.fn_id];  // validated when it arrived
  if (w.queue_.spawn_.task_edge(policy::TaskEdge::start)) w.drop_credits();
  ++w.no_migrate_;  // a foreign task's ending below uses this worker: its continuations stay here
  const std::int64_t traced_from = w.trace_ ? trace_begin() : 0;
  ++w.above_frame;  // the task's level
  ForeignProxy* const reporter =
      !task::reports_back(h) ? w.joins_.adopt_foreign(h.completion) : nullptr;
  FinishScope proxy;
  proxy.owner = w.ctx_;
  Frame child(w.ctx_, &w.current_frame(), reporter != nullptr ? reporter : &proxy, w.level());
  child.levels = 0;  // it moved here: a new top
  child.depth = h.depth;
  detail::FrameCore* const saved = w.frame;
  w.set_frame(&child);
  ++w.depth_;
  std::vector<std::byte> out(entry.out_size);
  std::string error;
  const std::string threw_here = "task '" + entry.name + "' threw on rank " + std::to_string(w.rank_) + ": ";
  try {
    invoke(entry, task::payload(slot), h.in_size, out.empty() ? nullptr : out.data());
  } catch (...) {
    error = report_text(threw_here, std::current_exception());
  }
  // Its joined children, as Joins::wait_frame, under the help floor; its
  // escaping asyncs alone (the proxy), as a finish, without one.
  const std::int64_t floor = child.joined_drained()
                                 ? policy::kNoFloor
                                 : policy::help_floor(w.sched_.options().waiter_steals, true, child.depth);
  w.dispatch_.help_until(
      [&] {
        if (child.fence) w.queue_.flush_fence(child);
        return child.joined_drained() && (reporter != nullptr || proxy.drained_for_owner());
      },
      floor);
  // A joined child's failure is the task's unless its body failed first.
  if (std::exception_ptr joined = child.take_failure(); joined && error.empty()) error = report_text(threw_here, joined);
  // Its escaping asyncs belong to the finish that governs the task, on its
  // rank: their failure goes there as a note of its own (no task
  // completes with it), before the task's completion.
  std::exception_ptr escaped = reporter == nullptr ? take_failure(proxy) : nullptr;
  if (w.trace_) [[unlikely]] w.trace_->task(traced_from, platform::now_ns(), h.fn_id, h.completion.rank());
  --w.depth_;
  --w.above_frame;
  --w.no_migrate_;
  w.set_frame(saved);
  if (w.queue_.spawn_.task_edge(policy::TaskEdge::end)) w.drop_credits();
  ++w.stats_.tasks_executed;
  if (reporter != nullptr) {
    if (!error.empty() && reporter->error.empty()) reporter->error = std::move(error);
    w.joins_.complete(reporter);  // drains it only if it was sealed meanwhile (a help loop above ran dry)
    send_reports();
  } else {
    const std::int64_t sending = platform::now_ns();
    if (escaped)
      w.remote_->send_report(w, h.ief, 0,
                             report_text("task '" + entry.name + "' spawned an async that threw on rank " +
                                             std::to_string(w.rank_) + ": ",
                                         escaped));
    w.remote_->send_completion(w, h, out.data(), out.size(), error);
    w.dispatch_.comm_ns_ += platform::now_ns() - sending;
  }
  w.dispatch_.poll_between_tasks();
}

void Executor::finish_foreign(GlobalRef completion, GlobalRef sync, GlobalRef out, const void* bytes,
                                std::size_t size, std::string_view error, std::uint32_t count) {
  if (size > 0 && !out.null()) std::memcpy(out.local<void>(), bytes, size);
  FinishScope* scope = completion.local<FinishScope>();
  const bool failed = !error.empty();
  if (failed) {
    std::exception_ptr failure = std::make_exception_ptr(std::runtime_error("heist: " + std::string(error)));
    if (g_misroute_failures.load(std::memory_order_relaxed)) owner().sched_.record_exception(std::move(failure));
    else record_failure(*scope, std::move(failure));
  }
  // Called while the completion inbox is drained, under its lock: a task
  // released here must not run here. It could wait for another completion
  // that only a drain applies, and every drain would skip this locked inbox
  // (2 ranks, --deque-max-tasks 4: mpi.dependents hung 5 runs in 6; the
  // soak's master seed 202, 1 in ~50). When the deque is full it waits in
  // the overflow list, which the help loop runs before it steals.
  if (!sync.null()) owner().queue_.release_dependents(sync.local<detail::SyncNode>(), WorkerQueue::WhenFull::overflow);
  if (count == 0) return;  // a failure note alone (execute_foreign): its scope's tasks count elsewhere
  if (failed) owner().joins_.complete_shared(scope, count);  // by `remote`, as fail_task
  else owner().joins_.complete(scope, count);
}

void Executor::send_reports() {
  Worker& w = owner();
  std::vector<ForeignProxy*>& reports = w.joins_.reports();
  while (!reports.empty()) {
    ForeignProxy* p = reports.back();
    reports.pop_back();  // first: sending drains this rank's inbox, which may add reports
    if (std::exception_ptr failure = take_failure(*p); failure && p->error.empty())
      p->error = report_text("an async threw on rank " + std::to_string(w.rank_) + ": ", failure);
    const std::int64_t sending = platform::now_ns();
    w.remote_->send_report(w, p->origin, p->adopted, p->error);
    w.dispatch_.comm_ns_ += platform::now_ns() - sending;
    delete p;
  }
}

}  // namespace heist::sched
