// RingRoom: the room check of a ring that other ranks write into by ticket
// (CompletionInbox, TaskMailbox). A sender holding tickets below `end` may
// write them once end <= consumed + slots, where `consumed` is the ring
// owner's count of entries it has read, a word in the owner's window.
//
// The owner only ever raises `consumed`, so an old value of it can only say
// "full" too often, never "room" where there is none. Each process keeps,
// per target, the highest value any of its threads has read there, and
// reads the window only when that value says full: most sends skip the
// round trip. The hints are relaxed atomics: a stale value is safe, and a
// larger one always came from a read of the window.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "rma/rma_window.hpp"

namespace heist::rma {

class RingRoom {
 public:
  RingRoom(std::size_t ranks, std::uint64_t slots, MPI_Aint consumed)
      : slots_(slots), consumed_(consumed), seen_(std::make_unique<std::atomic<std::uint64_t>[]>(ranks)) {}

  bool has_room(RmaWindow& win, int target, std::uint64_t end, CommCounters& c) {
    std::atomic<std::uint64_t>& seen = seen_[static_cast<std::size_t>(target)];
    std::uint64_t known = seen.load(std::memory_order_relaxed);
    if (end <= known + slots_) return true;
    const std::uint64_t now = win.read_sync(target, consumed_, c);
    while (known < now && !seen.compare_exchange_weak(known, now, std::memory_order_relaxed)) {
    }
    return end <= now + slots_;
  }

 private:
  std::uint64_t slots_;
  MPI_Aint consumed_;  // the displacement of the owner's `consumed` word
  std::unique_ptr<std::atomic<std::uint64_t>[]> seen_;  // [target]: the highest `consumed` read there
};

}  // namespace heist::rma
