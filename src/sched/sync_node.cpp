#include "sched/sync_node.hpp"

namespace heist::detail {

bool SyncNode::add_waiter(sched::DependentTask* task) {
  std::lock_guard lock(mutex);
  if (done.load(std::memory_order_relaxed)) return false;  // written under the same mutex
  waiters.push_back(task);
  return true;
}

std::vector<sched::DependentTask*> SyncNode::complete() {
  std::lock_guard lock(mutex);
  done.store(true, std::memory_order_release);  // pairs with sync_done()'s acquire
  return std::move(waiters);
}

void sync_retain(SyncNode* node) noexcept { node->refs.fetch_add(1, std::memory_order_relaxed); }

void sync_release(SyncNode* node) noexcept {
  if (node->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete node;
}

bool sync_done(const SyncNode* node) noexcept { return node->done.load(std::memory_order_acquire); }

}  // namespace heist::detail
