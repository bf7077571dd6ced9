// LogicalRing: the task slots of a simulated process's public queue (its MPI
// window ring), addressed by the protocols' logical task indices, which grow
// forever (slot = index % ring size in the runtime). Only the live range —
// from the lowest index a thief may still read (the owner's ring tail) to the
// highest written — is stored, in a power-of-two buffer that doubles when the
// live range outgrows it: memory follows the largest offer, not the ring
// size the protocol is configured with (10^5 simulated ranks x 4096 slots
// would not fit).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

namespace heist::sim {

template <class Task>
class LogicalRing {
 public:
  void write(std::uint64_t index, const Task& t) {
    if (index < low_) throw std::logic_error("LogicalRing: write below the ring tail");
    if (index >= high_) {
      if (index + 1 - low_ > buffer_.size()) grow(index + 1 - low_);
      high_ = index + 1;
    }
    buffer_[index & mask_] = t;
  }
  const Task& read(std::uint64_t index) const {
    if (index < low_ || index >= high_) throw std::logic_error("LogicalRing: read outside the live range");
    return buffer_[index & mask_];
  }
  // The task in ring slot `slot` of a ring of `slots` slots: the one live
  // index congruent to it (the live range never spans more than `slots`).
  const Task& read_slot(std::uint64_t slot, std::uint64_t slots) const {
    return read(low_ + (slot % slots + slots - low_ % slots) % slots);
  }
  // Slots below `index` will not be read again.
  void forget_below(std::uint64_t index) noexcept {
    if (index > low_) low_ = index < high_ ? index : high_;
  }

 private:
  void grow(std::uint64_t live) {
    std::size_t size = buffer_.empty() ? 64 : buffer_.size();
    while (size < live) size *= 2;
    std::vector<Task> bigger(size);
    const std::uint64_t mask = size - 1;
    for (std::uint64_t i = low_; i < high_; ++i) bigger[i & mask] = buffer_[i & mask_];
    buffer_.swap(bigger);
    mask_ = mask;
  }

  std::vector<Task> buffer_;
  std::uint64_t mask_ = 0;
  std::uint64_t low_ = 0, high_ = 0;
};

}  // namespace heist::sim
