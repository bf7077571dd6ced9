// SwsQueue: the SWS steal protocol (SWS §4) over an RmaWindow. The
// protocol logic is policy::SwsOwnerState / policy::SwsSteal (sws_state_machines.hpp, with
// its invariants and the all-MPI_SUM argument); this file only performs
// their steps as MPI calls:
//   thief:  [probe: fetch NO_OP] -> fetch-add(stealval) -> get(block) + flush
//           -> accumulate(completed[epoch], SUM)       3 communications, 2 blocking
//   owner:  release = put(slots) + flush, then fetch-add(republish addend)
//           acquire = fetch-add(disable addend), then copy back the reclaimed
//           tasks from the owner's shadow of its ring (never read from the window)
//           progress = fetch NO_OP of completed[0..1], retire epochs.
// Ordering: the owner's put of the slots is flushed before the release add, so
// a thief whose fetch-add sees the offer reads written slots; a thief flushes
// its get before its completion add, so the owner reuses a slot only after the
// bytes left (may_write()).
#pragma once

#include <vector>

#include "policy/sws_state_machines.hpp"
#include "rma/steal_protocol.hpp"
#include "rma/window_layout.hpp"

namespace heist::rma {

class SwsQueue final : public StealProtocol {
 public:
  SwsQueue(RmaWindow& window, const WindowLayout& layout, int rank, int ranks, int thieves, std::uint32_t threshold);

  bool dry(CommCounters& c, std::optional<std::uint64_t>& inbox_posted) override;
  bool asked() const noexcept override { return asked_; }
  std::uint32_t room() const noexcept override { return owner_.room(); }
  void release(const std::byte* slots, std::uint32_t n, std::vector<std::byte>& returned, CommCounters& c) override;
  std::uint32_t acquire(std::vector<std::byte>& out, CommCounters& c) override;
  bool offering() const noexcept override { return owner_.offering(); }
  // The block is the protocol's (steal-half sequence of the offer): `level`
  // plays no part; the owner shapes its offers instead (Distributor).
  std::uint32_t steal(int victim, int thief, policy::Level level, std::vector<std::byte>& out,
                      CommCounters& c) override;

 private:
  void copy_out(std::uint64_t begin, std::uint64_t end, std::vector<std::byte>& out) const;

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  std::uint32_t threshold_;
  policy::SwsOwnerState owner_;
  std::vector<std::byte> shadow_;  // the owner's copy of its ring (process memory, not the window)
  bool asked_ = false;
  std::vector<std::vector<policy::sws::TargetMode>> modes_;  // [thief][victim], each row used by one thread
};

}  // namespace heist::rma
