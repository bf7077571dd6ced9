// FiberPool: the fibers of one process — the bounded, reused stack memory of
// continuation stealing. A fiber is made on demand, up to
// Options::max_fibers, and never unmapped before the runtime ends; a free
// fiber goes to the releasing worker's cache (owner-only, no atomics) and,
// past kCacheMax there, half of that cache moves to a shared list (a mutex;
// a worker with an empty cache looks there before making a new fiber). A
// fiber is free only when nothing runs on it: the pool never hands out a
// stack that code is using, so a stolen continuation never runs on a stack
// another worker is using (docs/design/continuations.md).
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "platform/cache_line.hpp"
#include "platform/fiber.hpp"
#include "sched/frame.hpp"
#include "sched/stack_state.hpp"

namespace heist::sched {

struct Fiber {
  Fiber(int context_id, std::size_t stack_bytes, std::size_t slot_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Ready to start afresh with task bodies at level `level` (the fiber's
  // previous frames, if any, were abandoned at a point holding nothing).
  void reset(int level) noexcept;

  const int id;  // context id: FinishScope::owner of scopes opened on it
  platform::FiberStack stack;
  platform::Context context;
  StackContainers containers;
  StackState state;  // the worker's stack state while this fiber is not running
  Frame base;        // bottom of the frame chain of the code running on it
  std::unique_ptr<std::byte[]> slot;  // a task slot: the child an exposure starts here
  bool started = false;  // prepared and run once: it now waits at its idle point when free
};

class FiberPool {
 public:
  FiberPool(int workers, std::size_t stack_bytes, std::size_t slot_bytes, int max_fibers);
  ~FiberPool();
  FiberPool(const FiberPool&) = delete;
  FiberPool& operator=(const FiberPool&) = delete;

  // A free fiber for `worker` (the calling worker), or nullptr when
  // max_fibers exist and none is free.
  Fiber* acquire(int worker);
  void release(int worker, Fiber* fiber);
  // Could acquire() succeed now? (A hint: another worker may take the last one.)
  bool available(int worker) const noexcept;
  int created() const noexcept { return created_.load(std::memory_order_relaxed); }

 private:
  static constexpr std::size_t kCacheMax = 16;
  struct alignas(platform::kCacheLine) Cache {
    std::vector<Fiber*> free;
  };

  const int workers_;
  const std::size_t stack_bytes_;
  const std::size_t slot_bytes_;
  const int max_fibers_;
  std::vector<Cache> caches_;
  std::mutex shared_mutex_;
  std::vector<Fiber*> shared_;                 // guarded by shared_mutex_
  std::atomic<int> shared_size_{0};            // relaxed hint of shared_.size()
  std::atomic<int> created_{0};                // relaxed: a count; the fibers themselves go through all_mutex_
  std::mutex all_mutex_;
  std::vector<std::unique_ptr<Fiber>> all_;    // guarded by all_mutex_
};

}  // namespace heist::sched
