// SdcQueue: the SDC steal protocol (Scioto, SWS §3.1) over an RmaWindow.
// Protocol logic and invariants: sdc_queue_state.hpp. The MPI calls:
//   thief:  lock = CAS(lock, 0 -> id) + flush; [busy: poll tail+split, NO_OP,
//           abort if empty]; read_meta = fetch NO_OP (tail, split) + flush;
//           put_tail = accumulate(tail, REPLACE) + flush; unlock = CAS(id -> 0)
//           + flush; copy = get(tasks) + flush; complete = accumulate(itail, SUM)
//           6 communications, 5 blocking (SWS §3.1)
//   owner:  release = put(slots) + flush, then accumulate(split, REPLACE) + flush
//           acquire = lock own queue, read tail, lower split, unlock; the
//           reclaimed tasks come from the owner's shadow of its ring
//           progress = read itail, then tail (NO_OP): vtail frees ring slots.
// Thief ids are unique per (rank, worker); the owner's id is another value.
#pragma once

#include <vector>

#include "policy/sdc_queue_state.hpp"
#include "rma/steal_protocol.hpp"
#include "rma/window_layout.hpp"
#include "heist/options.hpp"
#include "policy/chunk_policy.hpp"

namespace heist::rma {

class SdcQueue final : public StealProtocol {
 public:
  // A thief takes chunk.take(public tasks, level) under the victim's lock.
  SdcQueue(RmaWindow& window, const WindowLayout& layout, int rank, ChunkSpec chunk);

  bool dry(CommCounters& c, std::optional<std::uint64_t>& inbox_posted) override;
  bool asked() const noexcept override { return asked_; }
  std::uint32_t room() const noexcept override { return owner_.room(); }
  void release(const std::byte* slots, std::uint32_t n, std::vector<std::byte>& returned, CommCounters& c) override;
  std::uint32_t acquire(std::vector<std::byte>& out, CommCounters& c) override;
  bool offering() const noexcept override { return owner_.offering(tail_seen_); }
  std::uint32_t steal(int victim, int thief, policy::Level level, std::vector<std::byte>& out,
                      CommCounters& c) override;

  static constexpr int kLockPolls = policy::kSdcLockPolls;  // polls of a busy lock before a thief gives up

 private:
  // Lock holder ids fit the 32-bit lock word: rank < 2^16, worker < 4096.
  std::uint32_t thief_id(int thief) const noexcept {
    return (static_cast<std::uint32_t>(rank_) << 13 | static_cast<std::uint32_t>(thief)) + 1;
  }
  std::uint32_t owner_id() const noexcept { return thief_id(4096); }

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  policy::ChunkPolicy chunk_;
  policy::SdcOwnerState owner_;
  std::vector<std::byte> shadow_;
  std::uint64_t tail_seen_ = 0;
  bool asked_ = false;
};

}  // namespace heist::rma
