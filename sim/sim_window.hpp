// SimWindow: one simulated process's public task queue — the MPI window of
// the runtime (src/rma/) as plain words — driven by the runtime's own pure
// protocol state machines: policy::SwsOwnerState / policy::SwsSteal / policy::sws_apply
// (src/policy/sws_state_machines.hpp, sws_stealval.hpp) and policy::SdcOwnerState /
// policy::SdcSteal / sdc_apply (src/policy/sdc_queue_state.hpp), whose owner states also
// decide dry, asked, room and offering. Below: the state machines' calls on
// plain words, with a count of the blocking operations each owner call does
// on its own window (charged latency(self) by the engine); the thief side is
// the engine's (one event per communication).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "policy/sws_state_machines.hpp"
#include "policy/sdc_queue_state.hpp"
#include "heist/options.hpp"
#include "sim/logical_ring.hpp"

namespace heist::sim {

// Blocking operations and bytes an owner-side call performed on its own window.
struct OwnerOps {
  int blocking = 0;
  std::uint64_t bytes = 0;
};

template <class Task>
class SimWindow {
 public:
  SimWindow(StealProtocolKind kind, std::uint32_t ring_slots) : kind_(kind), slots_(ring_slots) {
    if (kind_ == StealProtocolKind::sws) sws_.emplace(ring_slots);
    else sdc_.emplace(ring_slots);
  }

  StealProtocolKind kind() const noexcept { return kind_; }
  std::uint32_t slots() const noexcept { return slots_; }

  // ---- owner side ----
  // Is the public queue empty or exhausted, so that a release may refill it?
  // inbox_posted_read: set where the read brought the completion inbox's
  // posted count too (SWS, as SwsQueue::dry).
  bool dry(OwnerOps& ops, bool& inbox_posted_read) {
    if (sws_) {
      if (sws_->awaiting()) {
        ++ops.blocking;
        sws_->progress(completed[0], completed[1]);
        sync_ring();
      }
      ++ops.blocking;  // stealval, with the poll's other words (the inbox's count: WindowLayout::kPollWords)
      inbox_posted_read = true;
      sws_->observe(stealval);
      asked_ = policy::sws::asked(stealval);
      return sws_->refillable();
    }
    ops.blocking += 2;  // itail, then tail
    const std::uint64_t itail = sdc.itail;
    tail_seen_ = sdc.tail;
    ring.forget_below(sdc_->progress(itail, tail_seen_));
    asked_ = sdc_->drained(tail_seen_);
    return asked_;
  }
  bool asked() const noexcept { return asked_; }
  bool offering() const noexcept {
    return sws_ ? sws_->offering() : sdc_->offering(tail_seen_);
  }
  std::uint32_t room() const noexcept { return sws_ ? sws_->room() : sdc_->room(); }
  // Offers `tasks`; tasks the protocol hands straight back go to `returned`.
  void release(const std::vector<Task>& tasks, std::vector<Task>& returned, OwnerOps& ops, std::size_t task_bytes) {
    const auto n = static_cast<std::uint32_t>(tasks.size());
    ops.bytes += std::uint64_t{n} * task_bytes;
    if (sws_) {
      const std::uint64_t first = sws_->split();
      for (std::uint32_t i = 0; i < n; ++i) ring.write(first + i, tasks[i]);
      const std::uint64_t addend = sws_->release_addend(n);
      const std::uint64_t fetched = stealval;
      stealval += addend;
      ops.blocking += 2;  // flush of the puts, fetch-and-add
      const policy::TaskRange skipped = sws_->on_released(fetched);
      for (std::uint64_t i = skipped.begin; i < skipped.end; ++i) returned.push_back(ring.read(i));
      sync_ring();
      return;
    }
    for (std::uint32_t i = 0; i < n; ++i) ring.write(sdc_->push(), tasks[i]);
    sdc_->publish_all(tail_seen_);
    sdc.split = sdc_->split();
    ops.blocking += 2;  // flush of the puts; replace of split and its flush
  }
  // Takes back offered tasks that nobody claimed. nullopt: SDC's lock is held
  // by a thief (the runtime spins on it; the engine retries).
  std::optional<std::uint32_t> acquire(std::vector<Task>& out, OwnerOps& ops) {
    if (sws_) {
      if (!sws_->live()) return 0;
      const std::uint64_t addend = sws_->disable_addend();
      const std::uint64_t fetched = stealval;
      stealval += addend;
      ++ops.blocking;
      const policy::AcquireResult r = sws_->on_disabled(fetched);
      for (std::uint64_t i = r.reclaimed.begin; i < r.reclaimed.end; ++i) out.push_back(ring.read(i));
      sync_ring();
      return static_cast<std::uint32_t>(r.reclaimed.size());
    }
    if (!offering()) return 0;
    ++ops.blocking;
    if (sdc.lock != 0) return std::nullopt;
    sdc.lock = kOwnerLockId;
    tail_seen_ = sdc.tail;
    const std::uint64_t n = sdc_->acquire(tail_seen_);
    if (n > 0) {
      sdc.split = sdc_->split();
      ++ops.blocking;
    }
    sdc.lock = 0;
    ops.blocking += 2;  // read of tail, unlock
    for (std::uint64_t k = 0; k < n; ++k) {
      std::uint64_t index = 0;
      sdc_->pop(index);
      out.push_back(ring.read(index));
    }
    return static_cast<std::uint32_t>(n);
  }

  // ---- the window's words, which thieves' operations read and change ----
  std::uint64_t stealval = 0;                          // SWS
  std::uint64_t completed[policy::sws::kEpochs] = {0, 0};  // SWS completion arrays (cumulative)
  policy::SdcWindowWords sdc;                            // SDC
  LogicalRing<Task> ring;                              // task slots by logical index

  // SDC lock holder ids: thieves use worker + 1; the owner this.
  static constexpr std::uint64_t kOwnerLockId = std::uint64_t{1} << 40;

 private:
  // SWS: keep the stored live range starting at the owner's ring tail, so a
  // thief's ring slot maps to one logical index (LogicalRing::read_slot).
  void sync_ring() { ring.forget_below(sws_->ring_tail()); }

  StealProtocolKind kind_;
  std::uint32_t slots_;
  std::optional<policy::SwsOwnerState> sws_;
  std::optional<policy::SdcOwnerState> sdc_;
  bool asked_ = false;
  std::uint64_t tail_seen_ = 0;  // SDC: the tail the owner last read
};

}  // namespace heist::sim
