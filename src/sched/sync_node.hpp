// SyncNode and DependentTask: task handles and dependencies (HotSLAW's
// sync_node_map and wait_task_queue, HotSLAW §3.1).
//
// A SyncNode records the completion of one task. It is reference counted:
// one reference for the task, one per TaskHandle. A DependentTask is a task
// that waits for `remaining` SyncNodes; it sits in their waiter lists (not in
// any deque) and is pushed into the deque of the worker that completes the
// last of them.
//
// Protocol: add_waiter and complete both take the node's mutex, so a waiter
// is either added before completion (and released by it) or sees `done` and
// counts itself satisfied — never lost, never released twice.
// Memory orders: done is stored with release after the task's outputs were
// written and read with acquire by sync_done()/waiters. remaining is
// decremented acq_rel: the worker that takes it to 0 pushes the task and must
// see every predecessor's effects. refs: increments relaxed (the caller
// already holds a reference), decrements acq_rel so the deleting thread sees
// all uses.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "heist/detail/abi.hpp"

namespace heist::sched {

struct DependentTask {
  explicit DependentTask(std::size_t bytes) : slot(new std::byte[bytes]) {}
  std::atomic<std::uint32_t> remaining{0};
  std::unique_ptr<std::byte[]> slot;
};

}  // namespace heist::sched

namespace heist::detail {

struct SyncNode {
  std::atomic<int> refs{1};
  std::atomic<bool> done{false};
  std::mutex mutex;
  std::vector<sched::DependentTask*> waiters;  // guarded by mutex

  // false if the node is already complete (the caller counts it satisfied).
  bool add_waiter(sched::DependentTask* task);
  // Marks the node complete and returns the waiters to decrement.
  std::vector<sched::DependentTask*> complete();
};

}  // namespace heist::detail
