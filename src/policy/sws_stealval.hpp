// The SWS stealval: one 64-bit word per queue through which thieves discover
// and claim work with a single fetch-and-add (SWS §4, Figure 3; §4.1
// steal volume; §4.2 epoch field; §4.3 steal damping). Pure constexpr code,
// no MPI: the MPI layer and the simulator apply the addends computed here.
//
// Layout (the rma layer of docs/architecture.md; the authors' public code):
//   bits 63..40  attempts  steals attempted on this offer (24 bits; thieves add)
//   bits 39..38  epoch     completion epoch 0 or 1; a value >= 2 means disabled
//   bits 37..19  offered   tasks offered in this epoch (19 bits)
//   bits 18..0   start     ring slot of the first offered task (ring <= 2^19 slots)
// The low 40 bits (epoch, offered, start) are the owner's; only the owner
// changes them, so the owner always knows them exactly.
//
// Steal volume: the attempt index a (the attempts value a thief's fetch-add
// returned) names block a of the steal-half sequence k = max(1, floor(rem/2)):
// 150 -> 75,37,19,9,5,2,1,1,1. max_steals(offered) <= 20 (kMaxBlocks).
//
// Departure from the SWS paper: every update is MPI_SUM (docs/architecture.md's MPI
// atomicity rule: with accumulate_ops = same_op_no_op, concurrent updates of
// one location are atomic only if they all use one op or MPI_NO_OP; the
// seed's owner swaps the word while thieves add to it). Reads are MPI_NO_OP.
// The owner's operations are expressed as addends on MPI_UINT64_T, whose
// MPI_SUM wraps mod 2^64 like C's unsigned + (the MPI tests must confirm it
// on OpenMPI and MPICH; a signed type would overflow into undefined values):
//  * steal_addend() = 2^40 (thief).
//  * disable_addend(w) = 2 << 38 while epoch(w) < 2, else 0 (owner).
//  * republish_addend(w, offer) = low40(offer) - low40(w) (owner).
//  * reset_attempts_addend(r) = -(attempts(r) << 40) (owner, two's complement).
//
// Why thieves' adds and the owner's addends never corrupt each other: the
// word is w0 + (sum of the addends applied so far) mod 2^64, in whatever order
// MPI linearises them, because addition mod 2^64 is commutative and
// associative. Thieves' addends are multiples of 2^40, so they leave the value
// mod 2^40 unchanged. The owner's low differences telescope: its i-th addend
// is L[i+1] - L[i] - A[i]*2^40, computed from L[i], the low bits it knows
// exactly (its own last write; any word it read since has the same low bits),
// so after it the word is H*2^40 + L[i+1] for the attempts H thieves left
// (minus A[i] on a reset) — never a carry out of the low 40 bits, since
// L[i+1] < 2^40, and thieves' carries out of bit 63 would need H >= 2^24,
// which the damping bound below excludes. The epoch field cannot carry into
// bit 40 either: disable_addend adds 2 only to an epoch field < 2 (result
// 2 or 3, and the epoch stays readable as field & 1); adding it to an already
// disabled word (3 + 2 = 5) would carry one into the attempts field and
// re-enable stealing, which is why it is computed from a word read since the
// owner's last write (or the owner's copy of the low bits) and is 0 then.
//
// Resetting attempts (owner, when it publishes a new offer): adding
// -(attempts read) is safe only if (1) the read was made after the owner's
// last own add (so the field stays >= 0: only thieves add in between), and
// (2) every thief add landing between that read and the reset claims nothing:
// true when the word read was disabled or its offer exhausted (attempts >=
// max_steals(offered)); both stay true until the owner changes the low bits.
// On an offer with blocks left, a reset would erase a claim and hand the same
// block out twice. The r adds of that window survive the reset as "phantom"
// attempts: the new offer starts at attempts r, so its blocks [0, r) are never
// claimed; the owner learns r exactly from its fetch result and takes those
// tasks back (sws_state_machines.hpp). Damping keeps r, and the field, small.
//
// Steal damping (§4.3): a target is in full mode (thieves fetch-add at once)
// or empty mode (thieves first read it with MPI_NO_OP and fetch-add only when
// the read shows a block to take). A fetch that took nothing puts the target
// in empty mode if the word was disabled (departure: the paper waits for the
// threshold; an owner in acquire would collect phantoms) or had attempts >=
// threshold T (the seed's rule). Invariant: every add is licensed by its
// thief's own last reading of the word (its previous fetch-add or a probe)
// showing attempts < M = max(T, 20), or is the thief's first contact; a thief
// has at most one add in flight. Let an add raise the field from M - 1 to M.
// From then until it drops below M again, every reading shows >= M and
// licenses nothing, so each thief adds at most once more (on a license it
// held then — the raising thief's own fetch showed M - 1 — or as a first
// contact), and owner resets only lower the field: with N thieves
// (concurrent stealing agents: every rank and thread that steals from this
// queue) the field never exceeds M + N. With T = 20 (default) that fits 24
// bits for N <= 16,777,195; 2^20 thieves give at most 1,048,596.
#pragma once

#include <algorithm>
#include <cstdint>

namespace heist::policy::sws {

inline constexpr unsigned kAttemptsShift = 40;
inline constexpr unsigned kAttemptsBits = 24;
inline constexpr unsigned kEpochShift = 38;
inline constexpr unsigned kEpochBits = 2;
inline constexpr unsigned kOfferedShift = 19;
inline constexpr unsigned kOfferedBits = 19;
inline constexpr unsigned kStartBits = 19;
inline constexpr std::uint64_t kOwnerMask = (std::uint64_t{1} << kAttemptsShift) - 1;
inline constexpr std::uint32_t kMaxAttempts = (std::uint32_t{1} << kAttemptsBits) - 1;
inline constexpr std::uint32_t kMaxOffered = (std::uint32_t{1} << kOfferedBits) - 1;
inline constexpr std::uint32_t kMaxRingSlots = std::uint32_t{1} << kStartBits;
inline constexpr std::uint32_t kEpochs = 2;         // completion epochs
inline constexpr std::uint32_t kDisabledEpoch = 2;  // epoch field >= this: stealing disabled
inline constexpr std::uint32_t kMaxBlocks = 20;     // max_steals(kMaxOffered)
inline constexpr std::uint32_t kDefaultEmptyThreshold = kMaxBlocks;

// A decoded stealval. Fields must fit their widths (fits()); pack() masks.
struct Stealval {
  std::uint32_t attempts = 0;
  std::uint32_t epoch = 0;
  std::uint32_t offered = 0;
  std::uint32_t start = 0;
  constexpr bool enabled() const noexcept { return epoch < kDisabledEpoch; }
  friend constexpr bool operator==(const Stealval&, const Stealval&) = default;
};

constexpr bool fits(const Stealval& v) noexcept {
  return v.attempts <= kMaxAttempts && v.epoch < (1u << kEpochBits) && v.offered <= kMaxOffered &&
         v.start < kMaxRingSlots;
}

constexpr std::uint64_t pack(const Stealval& v) noexcept {
  return (std::uint64_t{v.attempts & kMaxAttempts} << kAttemptsShift) |
         (std::uint64_t{v.epoch & 3u} << kEpochShift) | (std::uint64_t{v.offered & kMaxOffered} << kOfferedShift) |
         std::uint64_t{v.start & (kMaxRingSlots - 1)};
}

constexpr Stealval unpack(std::uint64_t w) noexcept {
  return {static_cast<std::uint32_t>(w >> kAttemptsShift), static_cast<std::uint32_t>((w >> kEpochShift) & 3u),
          static_cast<std::uint32_t>((w >> kOfferedShift) & kMaxOffered),
          static_cast<std::uint32_t>(w & (kMaxRingSlots - 1))};
}

constexpr std::uint64_t owner_bits(std::uint64_t w) noexcept { return w & kOwnerMask; }
constexpr std::uint32_t attempts_of(std::uint64_t w) noexcept { return static_cast<std::uint32_t>(w >> kAttemptsShift); }

// ---- steal-half blocks ----

// Tasks in the first `blocks` blocks of an offer of `offered` tasks.
constexpr std::uint32_t prefix_tasks(std::uint32_t offered, std::uint32_t blocks) noexcept {
  std::uint32_t done = 0;
  for (std::uint32_t i = 0; i < blocks && done < offered; ++i) done += std::max<std::uint32_t>(1, (offered - done) / 2);
  return done;
}

// Number of blocks (successful steals) an offer of `offered` tasks yields.
constexpr std::uint32_t max_steals(std::uint32_t offered) noexcept {
  std::uint32_t n = 0;
  for (std::uint32_t done = 0; done < offered; ++n) done += std::max<std::uint32_t>(1, (offered - done) / 2);
  return n;
}

static_assert(max_steals(kMaxOffered) == kMaxBlocks);
static_assert(max_steals(150) == 9 && prefix_tasks(150, 2) == 112);  // SWS §4 example

// Block `attempt` of an offer: tasks [offset, offset + count) from the offer's
// start. count == 0 once attempt >= max_steals(offered).
struct Block {
  std::uint32_t offset = 0;
  std::uint32_t count = 0;
  friend constexpr bool operator==(const Block&, const Block&) = default;
};

constexpr Block steal_block(std::uint32_t offered, std::uint32_t attempt) noexcept {
  const std::uint32_t offset = prefix_tasks(offered, attempt);
  return {offset, offset < offered ? std::max<std::uint32_t>(1, (offered - offset) / 2) : 0};
}

// Tasks claimed by thieves when `attempts` fetch-adds hit the offer and the
// first `skipped` attempts were phantoms (see the header comment).
constexpr std::uint32_t claimed_tasks(std::uint32_t offered, std::uint32_t attempts, std::uint32_t skipped = 0) noexcept {
  return prefix_tasks(offered, attempts) - prefix_tasks(offered, std::min(skipped, attempts));
}

// ---- thief ----

constexpr std::uint64_t steal_addend() noexcept { return std::uint64_t{1} << kAttemptsShift; }

// What a thief's fetch-add claimed, decoded from the value it returned.
struct Claim {
  std::uint32_t epoch = 0;  // completion array to add block.count to, after the copy
  std::uint32_t start = 0;  // ring slot of the offer's first task
  Block block;              // empty: nothing claimed (disabled or exhausted)
  constexpr bool ok() const noexcept { return block.count > 0; }
};

constexpr Claim claim_of(std::uint64_t fetched) noexcept {
  const Stealval v = unpack(fetched);
  if (!v.enabled()) return {v.epoch, v.start, {}};
  return {v.epoch, v.start, steal_block(v.offered, v.attempts)};
}

// Ring slot of task `offset` of an offer starting at slot `start`.
constexpr std::uint32_t ring_slot(std::uint32_t start, std::uint64_t offset, std::uint32_t slots) noexcept {
  return static_cast<std::uint32_t>((start + offset) % slots);
}

// The owner, reading the word at a poll: did thieves ask for more than it
// offers (an attempt beyond the offer's blocks, or any attempt while disabled)?
constexpr bool asked(std::uint64_t word) noexcept {
  const Stealval v = unpack(word);
  return v.enabled() ? v.attempts > max_steals(v.offered) : v.attempts > 0;
}

// ---- damping ----

enum class TargetMode : std::uint8_t { full, empty };

// Empty mode: does a probe (MPI_NO_OP read) show a block worth a fetch-add?
constexpr bool worth_stealing(std::uint64_t probed) noexcept {
  const Stealval v = unpack(probed);
  return v.enabled() && v.attempts < max_steals(v.offered);
}

constexpr TargetMode mode_after_fetch(std::uint64_t fetched, std::uint32_t threshold = kDefaultEmptyThreshold) noexcept {
  if (claim_of(fetched).ok()) return TargetMode::full;
  return unpack(fetched).enabled() && attempts_of(fetched) < threshold ? TargetMode::full : TargetMode::empty;
}

// Largest attempts value with `thieves` concurrent stealing agents.
constexpr std::uint64_t attempts_bound(std::uint64_t thieves, std::uint32_t threshold = kDefaultEmptyThreshold) noexcept {
  return std::max<std::uint64_t>(threshold, kMaxBlocks) + thieves;
}
static_assert(attempts_bound(16'777'195) == kMaxAttempts);
static_assert(attempts_bound(std::uint64_t{1} << 20) == 1'048'596);

// ---- owner ----

// The owner's part of a new offer (no attempts).
struct Offer {
  std::uint32_t epoch = 0;
  std::uint32_t offered = 0;
  std::uint32_t start = 0;
};

constexpr std::uint64_t owner_bits(const Offer& o) noexcept { return pack({0, o.epoch, o.offered, o.start}); }

// Disable stealing: epoch field e < 2 becomes e + 2 (no carry); 0 if the
// word (read since the owner's last add, or the owner's copy) is disabled.
constexpr std::uint64_t disable_addend(std::uint64_t word) noexcept {
  return unpack(word).enabled() ? std::uint64_t{kDisabledEpoch} << kEpochShift : 0;
}

// Turns the low 40 bits of `old_word` into `offer`, attempts untouched.
constexpr std::uint64_t republish_addend(std::uint64_t old_word, const Offer& offer) noexcept {
  return owner_bits(offer) - owner_bits(old_word);
}

// Subtracts the attempts of a word read after the owner's last add; only
// while that word is disabled or exhausted (header comment).
constexpr std::uint64_t reset_attempts_addend(std::uint64_t read_word) noexcept {
  return std::uint64_t{0} - (std::uint64_t{attempts_of(read_word)} << kAttemptsShift);
}

}  // namespace heist::policy::sws
