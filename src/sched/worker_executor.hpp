// Executor: what runs a task on a worker — its frame, its body, its
// exception (task_failure.hpp: to the scope that joins it), its implicit wait, its completion
// and dependents, its statistics; tasks of other processes (execute_foreign)
// and the completions of this process's tasks that ran elsewhere
// (finish_foreign). A part of Worker (worker.hpp); owner() is the worker it
// belongs to. Owner thread only. It has no state of its own: a task's state
// is the running stack's (Worker, StackState).
//
// Migration (worker.hpp): a task body may end on another worker (a thief
// resumed its continuation), so execute() ends the task through
// Worker::resumed()->exec_, never through `this`; end_task() that suspends
// goes on with the worker the suspension returned on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <string_view>

#include "heist/detail/abi.hpp"
#include "sched/frame.hpp"
#include "task/task_registry.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

class Worker;

class Executor {
 public:
  Executor() = default;
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Run the task in `slot` (a popped deque slot: it runs in place, see
  // SplitDeque::pop; or any other copy of a slot).
  void execute(const std::byte* slot);
  // `count` tasks of `completion` finished on another rank (more than one:
  // a foreign proxy's report, with no output and no handle).
  void finish_foreign(task::GlobalRef completion, task::GlobalRef sync, task::GlobalRef out, const void* bytes,
                      std::size_t size, std::string_view error, std::uint32_t count = 1);
  // Send the reports of the foreign proxies that drained on this worker
  // (proxy_scope.hpp); a poll or search step calls it.
  void send_reports();
  // A slot-sized buffer per help depth, per stack: where a help loop at
  // that depth copies a slot from the overflow list to run it.
  std::byte* exec_buffer(int depth);

 private:
  friend class Worker;
  void end_task(Frame& child, detail::FrameCore* saved, const task::TaskHeader& h, detail::FinishScope* completion,
                std::int64_t traced_from, std::exception_ptr failure);
  void close_task(Frame& child, detail::FrameCore* saved, const task::TaskHeader& h, detail::FinishScope* completion,
                  std::int64_t traced_from, std::exception_ptr& failure);
  void fail_task(detail::FinishScope* completion, std::exception_ptr failure);
  void execute_foreign(const std::byte* slot);
  // Calls a task's body on its input. A C++ body copies its input itself
  // (TaskInfo::copies_input): called directly, inline; a C body gets a copy
  // made out of line (invoke_copy).
  void invoke(const task::TaskInfo& entry, const std::byte* in, std::size_t in_size, void* out) {
    if (entry.copies_input) [[likely]] {
      entry.invoke(const_cast<std::byte*>(in), out);  // a C++ body: invoke_task copies `in` and takes it as const
      return;
    }
    invoke_copy(entry, in, in_size, out);
  }
  static void invoke_copy(const task::TaskInfo& entry, const std::byte* in, std::size_t in_size, void* out);
  std::int64_t trace_begin();  // a traced task starts now: sample the queue

  // The worker this part is a member of (a fixed offset from `this`).
  Worker& owner() noexcept;
  const Worker& owner() const noexcept;
};

}  // namespace heist::sched
