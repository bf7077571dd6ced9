// SwsOwnerState: the owner's side of an SWS queue — which offered tasks
// thieves claimed, which of those claims finished (the completion arrays,
// one per epoch), which tasks the owner takes back, and which ring slots it
// may reuse (SWS §4.1 release/acquire, §4.2 completion epochs, Figure 5).
// Pure state machine, no MPI: each owner operation on the stealval is a
// two-step transition — *_addend() gives the MPI_SUM operand, the MPI layer
// does one MPI_Fetch_and_op(MPI_SUM) on its own window, and on_*(fetched)
// takes the value it returned. SwsSteal (at the end) is the thief's side.
//
// Guarantees (given a transport that applies the addends atomically):
//  * every offered task is taken exactly once: by one thief (one block of
//    the steal-half sequence), or back by the owner (acquire's reclaimed
//    range, or a phantom-skipped range returned by on_released);
//  * may_write(i) is false for every ring slot of a block claimed in a not
//    yet retired epoch: the owner never overwrites tasks a thief may still be
//    copying, even when the completion of that block lags by several epochs.
//
// Ring: logical task indices grow forever; task i lives in slot i % slots.
//   [ring_tail, split)  public: claimed blocks of open or unretired epochs,
//                       the live offer, phantom-skipped ranges (owner's)
//   [split, head)       private (the caller owns head)
// The owner writes index i only if may_write(i): i >= split and
// i < ring_tail + slots.
//
// Phases: live (an offer is enabled) -disable-> disabled -release-> live;
// live and exhausted() (every block claimed, as observe() saw) -release->
// live. While an add is in flight: disabling, releasing.
//
// Completion epochs: a thief that claimed a block from a word of epoch e
// copies it, then adds block.count to completion[e] (MPI_Accumulate, SUM).
// The owner knows claimed_total(e), the tasks thieves claimed under e, once
// the claims are closed (it disabled the offer, or saw it exhausted and
// replaced it); progress() retires e when completion[e] == claimed_total(e)
// and e has no live offer, which frees the ring slots of all its blocks.
// Orders the MPI layer must keep: task slots written (MPI_Win_sync) before
// the release add that offers them; a thief's get flushed before its
// completion add; completion read before the freed slots are rewritten.
//
// Departures from the SWS paper:
//  * All-SUM (docs/architecture.md's MPI atomicity rule; sws_stealval.hpp has the proof):
//    disable and republish are additions; the completion counters are
//    cumulative and never reset (a reset would be an MPI_REPLACE racing the
//    thieves' MPI_SUM), so an epoch is finished when its counter reaches the
//    cumulative number of tasks claimed under it.
//  * Phantom attempts: adds that land between the owner's read and its reset
//    remain; the owner learns their number r from its fetch and takes blocks
//    [0, r) of the new offer back at once (on_released). Damping bounds r.
//  * Acquire takes back every unclaimed task; republishing part of them is a
//    separate release() (the paper republishes inside acquire: the same two
//    atomics). A release uses the other epoch if it is retired and otherwise
//    stays in the current one (its count keeps accumulating), so the owner
//    never polls for an epoch to finish (the paper polls when both are busy).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <utility>

#include "policy/sws_stealval.hpp"

namespace heist::policy {

// Logical task indices [begin, end).
struct TaskRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
  constexpr std::uint64_t size() const noexcept { return end - begin; }
  constexpr bool empty() const noexcept { return begin == end; }
  friend constexpr bool operator==(const TaskRange&, const TaskRange&) = default;
};

struct AcquireResult {
  TaskRange claimed;    // claimed by thieves in this offer (beyond the phantom skip)
  TaskRange reclaimed;  // unclaimed: private again (split moved down to reclaimed.begin)
};

// Owner-only state: one per queue, touched by the owner thread only.
class SwsOwnerState {
 public:
  explicit SwsOwnerState(std::uint32_t ring_slots) : slots_(ring_slots) {
    if (ring_slots == 0 || ring_slots > sws::kMaxRingSlots)
      throw std::invalid_argument("SwsOwnerState: ring slots must be in [1, 2^19]");
  }

  // ---- queries ----
  std::uint32_t ring_slots() const noexcept { return slots_; }
  std::uint64_t split() const noexcept { return split_; }
  bool live() const noexcept { return phase_ == Phase::live; }
  bool disabled() const noexcept { return phase_ == Phase::disabled; }
  std::uint32_t epoch() const noexcept { return offer_.epoch; }
  std::uint32_t offered() const noexcept { return offer_.offered; }
  std::uint32_t phantoms() const noexcept { return offer_.skip; }
  std::uint64_t claimed_total(std::uint32_t e) const noexcept { return claimed_[e]; }
  bool retired(std::uint32_t e) const noexcept { return retired_[e]; }
  // Some closed epoch still waits for thieves' completions (progress() has work).
  bool awaiting() const noexcept {
    for (std::uint32_t e = 0; e < sws::kEpochs; ++e)
      if (!open_[e] && !retired_[e]) return true;
    return false;
  }
  // Low 40 bits of the word as the owner last wrote them; exact.
  std::uint64_t owner_bits() const noexcept { return sws::owner_bits(read_); }
  // Live offer with no block left, as of the owner's last read.
  bool exhausted() const noexcept {
    return live() && sws::attempts_of(read_) >= sws::max_steals(offer_.offered);
  }
  // The public queue may take a release (its offer is used up or withdrawn).
  bool refillable() const noexcept { return exhausted() || disabled(); }
  // Some offered task is still to be claimed.
  bool offering() const noexcept { return live() && !exhausted(); }
  // Tasks a release may offer now: free ring slots, within an offer's limit.
  std::uint32_t room() const noexcept {
    if (!refillable()) return 0;
    const std::uint64_t free_slots = ring_tail() + slots_ - split_;
    return static_cast<std::uint32_t>(std::min<std::uint64_t>({free_slots, sws::kMaxOffered, slots_}));
  }
  // First index a thief may still read; slots below it (mod slots) are free.
  std::uint64_t ring_tail() const noexcept {
    for (const Region& r : regions_)
      if (r.epoch != kFree) return r.begin;
    const bool offer_public = phase_ == Phase::live || phase_ == Phase::disabling;
    return offer_public ? offer_.start + skipped_tasks() : split_;
  }
  bool may_write(std::uint64_t index) const noexcept { return index >= split_ && index < ring_tail() + slots_; }
  bool can_release(std::uint32_t n) const noexcept {
    return (exhausted() || disabled()) && n >= 1 && n <= std::min(sws::kMaxOffered, slots_);
  }

  // ---- release: offer the n oldest private tasks [split, split + n) ----
  // Pre: can_release(n). Resets attempts by the value last read, which is
  // safe because the word read is disabled or exhausted (sws_stealval.hpp).
  std::uint64_t release_addend(std::uint32_t n) {
    if (!can_release(n)) throw std::logic_error("SwsOwnerState: release needs a disabled or exhausted offer");
    if (live()) close_claims(sws::attempts_of(read_));
    const std::uint32_t other = 1 - offer_.epoch;
    const std::uint32_t e = retired_[other] ? other : offer_.epoch;
    next_ = {e, n, static_cast<std::uint32_t>(split_ % slots_)};
    open_[e] = true;
    retired_[e] = false;
    pending_ = sws::republish_addend(read_, next_) + sws::reset_attempts_addend(read_);
    phase_ = Phase::releasing;
    return pending_;
  }
  // Returns the phantom-skipped tasks (usually none): no thief will ever
  // claim them; the owner copies them out before it writes another slot.
  TaskRange on_released(std::uint64_t fetched) {
    settle(Phase::releasing, fetched);
    offer_ = {split_, next_.offered, next_.epoch, sws::attempts_of(read_)};
    split_ += next_.offered;
    phase_ = Phase::live;
    const TaskRange skipped{offer_.start, offer_.start + skipped_tasks()};
    add_region(skipped, kFree);
    return skipped;
  }

  // The owner read its word (MPI_NO_OP), e.g. to see whether it is exhausted.
  void observe(std::uint64_t read) {
    if (phase_ != Phase::live && phase_ != Phase::disabled) throw std::logic_error("SwsOwnerState: observe mid-update");
    check(read);
    read_ = read;
  }

  // ---- acquire: disable stealing, close the claims, take the rest back ----
  std::uint64_t disable_addend() {
    if (!live()) throw std::logic_error("SwsOwnerState: acquire needs a live offer");
    pending_ = sws::disable_addend(read_);
    phase_ = Phase::disabling;
    return pending_;
  }
  AcquireResult on_disabled(std::uint64_t fetched) {
    settle(Phase::disabling, fetched);
    const TaskRange claimed = close_claims(sws::attempts_of(fetched));
    split_ = claimed.end;
    phase_ = Phase::disabled;
    return {claimed, {claimed.end, offer_.start + offer_.offered}};
  }

  // ---- progress: retire finished epochs (completion values read NO_OP) ----
  std::uint64_t progress(std::uint64_t completed0, std::uint64_t completed1) {
    const std::array<std::uint64_t, sws::kEpochs> completed{completed0, completed1};
    for (std::uint32_t e = 0; e < sws::kEpochs; ++e) {
      if (open_[e] || retired_[e] || completed[e] < claimed_[e]) continue;
      if (completed[e] > claimed_[e]) throw std::logic_error("SwsOwnerState: completions exceed claims");
      retired_[e] = true;
      for (Region& r : regions_)
        if (r.epoch == e) r.epoch = kFree;
    }
    while (!regions_.empty() && regions_.front().epoch == kFree) regions_.pop_front();
    return ring_tail();
  }

 private:
  enum class Phase : std::uint8_t { live, disabling, disabled, releasing };
  static constexpr std::uint32_t kFree = sws::kEpochs;  // region tag: no thief will read it
  struct Region {
    std::uint64_t begin;
    std::uint64_t end;
    std::uint32_t epoch;  // epoch whose completion frees it, or kFree
  };
  struct LiveOffer {
    std::uint64_t start = 0;  // logical index of the first offered task
    std::uint32_t offered = 0;
    std::uint32_t epoch = 0;
    std::uint32_t skip = 0;  // phantom attempts the offer started with
  };

  std::uint32_t skipped_tasks() const noexcept { return sws::prefix_tasks(offer_.offered, offer_.skip); }

  // Only the owner changes the low bits, and attempts only grow between the
  // owner's own adds: anything else is a transport bug.
  void check(std::uint64_t word) const {
    if (sws::owner_bits(word) != sws::owner_bits(read_) || sws::attempts_of(word) < sws::attempts_of(read_))
      throw std::logic_error("SwsOwnerState: stealval changed behind the owner's back");
  }
  void settle(Phase expected, std::uint64_t fetched) {
    if (phase_ != expected) throw std::logic_error("SwsOwnerState: fetched value for an operation not started");
    check(fetched);
    read_ = fetched + pending_;  // the word right after the owner's add
  }

  // Thieves claimed blocks [skip, attempts) (capped); no more claims after.
  TaskRange close_claims(std::uint32_t attempts) {
    const TaskRange claimed{offer_.start + skipped_tasks(),
                            offer_.start + sws::prefix_tasks(offer_.offered, attempts)};
    add_region(claimed, offer_.epoch);
    claimed_[offer_.epoch] += claimed.size();
    open_[offer_.epoch] = false;
    return claimed;
  }
  void add_region(const TaskRange& r, std::uint32_t tag) {
    if (!r.empty()) regions_.push_back({r.begin, r.end, tag});
  }

  std::uint32_t slots_;
  Phase phase_ = Phase::live;  // starts with an empty offer (word 0) live in epoch 0
  LiveOffer offer_;
  sws::Offer next_;                 // offer being released
  std::uint64_t pending_ = 0;       // addend in flight
  std::uint64_t read_ = 0;          // the word at some instant after the owner's last add
  std::uint64_t split_ = 0;         // end of the public part
  std::array<std::uint64_t, sws::kEpochs> claimed_{};  // cumulative tasks claimed per epoch
  std::array<bool, sws::kEpochs> open_{true, false};   // epoch carries the live offer
  std::array<bool, sws::kEpochs> retired_{false, true};
  std::deque<Region> regions_;  // public ranges below the live offer, in index order
};

// One SWS steal attempt by a thief (SWS §4.1, Figure 2: three
// communications; §4.3: a probe first when the target is in empty mode).
// Each step names the one communication the caller performs next.
class SwsSteal {
 public:
  enum class Step : std::uint8_t {
    probe,      // MPI_Fetch_and_op(MPI_NO_OP) of the stealval  -> on_probe(read)
    fetch_add,  // MPI_Fetch_and_op(steal_addend(), MPI_SUM)   -> on_fetch_add(fetched)
    copy,       // MPI_Get of the block's tasks, ring_slot(claim().start, offset + j), then flush
    complete,   // MPI_Accumulate(claim().block.count, MPI_SUM) into completion[claim().epoch]
    done,
    aborted,
  };

  explicit SwsSteal(sws::TargetMode mode = sws::TargetMode::full)
      : step_(mode == sws::TargetMode::empty ? Step::probe : Step::fetch_add), mode_(mode) {}

  Step step() const noexcept { return step_; }
  const sws::Claim& claim() const noexcept { return claim_; }
  sws::TargetMode mode() const noexcept { return mode_; }  // the target's mode for the next attempt

  Step on_probe(std::uint64_t read) {
    expect(Step::probe);
    return step_ = sws::worth_stealing(read) ? Step::fetch_add : Step::aborted;
  }
  Step on_fetch_add(std::uint64_t fetched, std::uint32_t threshold = sws::kDefaultEmptyThreshold) {
    expect(Step::fetch_add);
    mode_ = sws::mode_after_fetch(fetched, threshold);
    claim_ = sws::claim_of(fetched);
    return step_ = claim_.ok() ? Step::copy : Step::aborted;
  }
  Step on_copied() {
    expect(Step::copy);
    return step_ = Step::complete;
  }
  Step on_completed() {
    expect(Step::complete);
    return step_ = Step::done;
  }

 private:
  void expect(Step s) const {
    if (step_ != s) throw std::logic_error("SwsSteal: result for a step not current");
  }

  Step step_;
  sws::TargetMode mode_;
  sws::Claim claim_;
};

// Performs the current step of `s` on plain words standing in for the window
// (tests, simulator). Step copy: the caller copies the tasks first.
inline SwsSteal::Step sws_apply(SwsSteal& s, std::uint64_t& stealval, std::uint64_t (&completion)[sws::kEpochs]) {
  switch (s.step()) {
    case SwsSteal::Step::probe: return s.on_probe(stealval);
    case SwsSteal::Step::fetch_add: return s.on_fetch_add(std::exchange(stealval, stealval + sws::steal_addend()));
    case SwsSteal::Step::copy: return s.on_copied();
    case SwsSteal::Step::complete: completion[s.claim().epoch] += s.claim().block.count; return s.on_completed();
    case SwsSteal::Step::done:
    case SwsSteal::Step::aborted: break;
  }
  return s.step();
}

}  // namespace heist::policy
