#include "sched/fiber_pool.hpp"

#include <algorithm>

namespace heist::sched {

Fiber::Fiber(int context_id, std::size_t stack_bytes, std::size_t slot_bytes)
    : id(context_id),
      stack(stack_bytes),
      base(context_id, nullptr, nullptr, 0),
      slot(std::make_unique<std::byte[]>(slot_bytes)) {}

Fiber::~Fiber() { platform::retire(context); }

void Fiber::reset(int level) noexcept {
  base.level = level;
  state.above_frame = 0;
  state.frame_level = level;
  state.frame = &base;
  state.depth = 0;
  state.help_depth = 0;
  containers.finishes.clear();
  containers.inline_frames.clear();
  state.containers = &containers;
  state.context = id;
  state.native = false;
  state.no_migrate = 0;
  state.base_level = level;
  state.stack_low = stack.low();
  state.stack_high = stack.high();
}

FiberPool::FiberPool(int workers, std::size_t stack_bytes, std::size_t slot_bytes, int max_fibers)
    : workers_(workers),
      stack_bytes_(stack_bytes),
      slot_bytes_(slot_bytes),
      max_fibers_(max_fibers),
      caches_(static_cast<std::size_t>(workers)) {}

FiberPool::~FiberPool() = default;

Fiber* FiberPool::acquire(int worker) {
  std::vector<Fiber*>& mine = caches_[static_cast<std::size_t>(worker)].free;
  if (!mine.empty()) {
    Fiber* f = mine.back();
    mine.pop_back();
    return f;
  }
  if (shared_size_.load(std::memory_order_relaxed) > 0) {
    std::lock_guard lock(shared_mutex_);
    if (!shared_.empty()) {
      Fiber* f = shared_.back();
      shared_.pop_back();
      shared_size_.store(static_cast<int>(shared_.size()), std::memory_order_relaxed);
      return f;
    }
  }
  // relaxed: the count only bounds how many fibers exist; each fiber is
  // published to its worker by all_mutex_ (and used only by its acquirer).
  const int n = created_.fetch_add(1, std::memory_order_relaxed);
  if (n >= max_fibers_) {
    created_.fetch_sub(1, std::memory_order_relaxed);
    return nullptr;
  }
  auto made = std::make_unique<Fiber>(workers_ + n, stack_bytes_, slot_bytes_);
  Fiber* f = made.get();
  std::lock_guard lock(all_mutex_);
  all_.push_back(std::move(made));
  return f;
}

void FiberPool::release(int worker, Fiber* fiber) {
  std::vector<Fiber*>& mine = caches_[static_cast<std::size_t>(worker)].free;
  mine.push_back(fiber);
  if (mine.size() <= kCacheMax) return;
  std::lock_guard lock(shared_mutex_);
  const std::size_t keep = kCacheMax / 2;
  shared_.insert(shared_.end(), mine.begin() + static_cast<std::ptrdiff_t>(keep), mine.end());
  mine.resize(keep);
  shared_size_.store(static_cast<int>(shared_.size()), std::memory_order_relaxed);
}

bool FiberPool::available(int worker) const noexcept {
  return !caches_[static_cast<std::size_t>(worker)].free.empty() ||
         shared_size_.load(std::memory_order_relaxed) > 0 ||
         created_.load(std::memory_order_relaxed) < max_fibers_;
}

}  // namespace heist::sched
