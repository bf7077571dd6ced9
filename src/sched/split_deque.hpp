// SplitDeque: a worker's task queue, split into a private part used by the
// owner without atomics and a public part other workers steal from
// (HotSLAW §3.1, Figure 3: split private/public queues; the split layout
// follows Lace's packed tail/split word; thieves claim with one CAS).
//
// Layout: slots [0, capacity) of `stride` bytes. Indices only grow between
// resets; 0 <= tail <= split <= head:
//     [tail, split)  public  — thieves claim from the old end (FIFO)
//     [split, head)  private — owner pushes and pops at head (LIFO)
// `ts` packs tail (high 32 bits) and split (low 32 bits) into one atomic word,
// so a thief's claim and the owner's acquire/release are single CASes on it.
//
// Protocol and invariants
//  * Every index in [tail, split) is claimed exactly once: by a thief's CAS
//    (tail -> tail + k) or by the owner's acquire CAS (split -> lower). Both
//    CAS the same word, so exactly one of two racers wins. Private indices are
//    touched by the owner only.
//  * Claim, then copy: a thief copies its k slots after its CAS succeeded and
//    then adds k to `copied`. The owner writes only at head >= split >= tail,
//    i.e. never into a claimed slot — except when it resets or compacts the
//    indices, which it does only after withdrawing all public tasks (split :=
//    tail, so no new claim is possible) and seeing copied == claimed, i.e. no
//    thief is still copying. A thief whose CAS was delayed across a reset and
//    happens to find the same ts value again claims what is public *now*:
//    claim-then-copy makes the ABA harmless.
//  * Growth: the owner copies [0, head) into an array twice the size and
//    publishes it; old arrays stay allocated until the deque dies, so a thief
//    holding an old pointer still reads the same bytes (the owner never writes
//    an array after replacing it).
//  * Release (owner, when a thief has flagged `wanted`): split += half of the
//    private tasks (fetch_add on the low word); publish_one (owner, a
//    queue_public spawn of a queued generation) adds 1 the same way.
//    Acquire (owner, private part empty): CAS split down to tail +
//    floor((split - tail) / 2), taking the newer half back. The owner's
//    `split_` copy is exact because only the owner moves split.
//
// Memory orders
//  * owner release/publish_one fetch_add(ts, release) -> thief CAS(ts,
//    acquire): the thief sees the slot bytes the owner wrote before
//    publishing them (thieves' successful CASes continue the release
//    sequence).
//  * owner growth store(array, release)    -> thief load(array, acquire).
//  * thief fetch_add(copied, release)      -> owner load(copied, acquire)
//    before reset/compaction: the thief's reads of the slots happen before the
//    owner overwrites them.
//  * owner acquire CAS and reset store: relaxed. The owner consumes only slots
//    it wrote itself, and thieves read nothing the owner writes after them.
//  * wanted: relaxed flag, a hint; a lost update only delays a release.
//  * depths: a side array beside the slots holding each slot's TaskHeader::
//    depth, written by the owner (relaxed) when it completes a push, and
//    read by a thief under a help floor (policy/help_floor.hpp) at the
//    tail *before* its claim: a hint that lets it leave a chunk unclaimed.
//    Atomic because the owner may rewrite an index (after taking it back)
//    while a late thief peeks at it; the thief's acquire load of ts that
//    saw the slot public orders the owner's store before its read, and a
//    stale value only misjudges one attempt (the claim itself stays exact).
//    Grown and compacted with the slots (old arrays kept the same way).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "platform/cache_line.hpp"
#include "policy/chunk_policy.hpp"
#include "policy/help_floor.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

class SplitDeque {
 public:
  using Depth = std::atomic<std::uint16_t>;  // TaskHeader::depth of a slot (the depth side array)

  SplitDeque(std::size_t stride, std::size_t initial_capacity, std::size_t max_capacity);
  SplitDeque(const SplitDeque&) = delete;
  SplitDeque& operator=(const SplitDeque&) = delete;

  // ---- owner ----
  // Where to write the next slot, or nullptr if the deque is at its maximum
  // capacity. Complete with end_push().
  std::byte* begin_push() {
    if (head_ == capacity_ && !make_room()) return nullptr;
    return array_ + static_cast<std::size_t>(head_) * stride_;
  }
  // The same past the maximum capacity (up to 2^31 slots; nullptr beyond):
  // for a spawn that can neither queue nor nest on a stack that is full.
  std::byte* begin_push_past_limit() {
    if (head_ == capacity_ && !make_room(kHardCapacity)) return nullptr;
    return array_ + static_cast<std::size_t>(head_) * stride_;
  }
  void end_push() noexcept {
    note_pushed(head_);
    ++head_;
    if (wanted_.load(std::memory_order_relaxed)) release();
  }

  // Take the newest task and return its slot, or nullptr if none is left.
  // The task runs in place (Lace's SYNC): the slot is the owner's again, so
  // its bytes stay valid only until the owner's next push or pop, which
  // may reuse the index; the caller reads what it needs first (Executor::
  // execute copies the header, the task's invoke its input, before any
  // user code can spawn).
  const std::byte* pop();

  // Tasks in the queue, public and private (the tail is read relaxed: a
  // concurrent steal makes the value an over-estimate, never an under-one).
  std::size_t size() const noexcept {
    return head_ - tail_of(ts_.load(std::memory_order_relaxed));
  }
  std::size_t private_size() const noexcept { return head_ - split_; }

  // Has a thief found this deque's public part empty since the last release?
  bool wanted() const noexcept { return wanted_.load(std::memory_order_relaxed); }

  // Publish half of the private tasks (at least one, if any).
  void release() noexcept;
  // Publish the oldest private task, if any (a queue_public spawn: one
  // for a thief that may come, not half the queue); a thief's request
  // (`wanted`) stays for release() to answer.
  void publish_one() noexcept {
    if (head_ == split_) return;
    publish(1);
    ++releases_;
  }
  // Publish every private task (an exposed continuation is for thieves now).
  void release_all() noexcept {
    const std::uint32_t priv = head_ - split_;
    wanted_.store(false, std::memory_order_relaxed);
    if (priv == 0) return;
    publish(priv);
    ++releases_;
  }

  // Owner: take up to `max` of the oldest tasks (public or private), passing
  // each slot to visit(const std::byte*) before anyone may overwrite it. The
  // private part is published first, so one claim CAS from the old end (the
  // thieves' protocol) covers both; the rest stays public until pop() takes
  // it back. Returns how many were taken.
  template <class Visit>
  std::uint32_t take_oldest(std::uint32_t max, Visit&& visit) {
    if (head_ > split_) publish(head_ - split_);
    std::uint64_t v = ts_.load(std::memory_order_relaxed);
    std::uint32_t tail = 0, k = 0;
    for (;;) {
      tail = tail_of(v);
      const std::uint32_t split = split_of(v);
      if (tail >= split || max == 0) return 0;
      k = split - tail < max ? split - tail : max;
      // relaxed: the owner reads slots it wrote itself.
      if (ts_.compare_exchange_weak(v, pack(tail + k, split), std::memory_order_relaxed, std::memory_order_relaxed))
        break;
    }
    for (std::uint32_t i = 0; i < k; ++i) visit(static_cast<const std::byte*>(slot(tail + i)));
    // As a thief's: the index reset waits until copied covers every claim.
    copied_.fetch_add(k, std::memory_order_relaxed);
    return k;
  }

  // ---- thief ----
  // Claim a chunk of public tasks (chunk.take(available, level): `level` is
  // where thief and victim meet) and push copies of them into `mine` (the
  // thief's own deque, of the same stride); slots that do not fit because
  // `mine` is at its maximum capacity are appended to `overflow` (stride
  // bytes each) for the thief to run. Returns the number taken, 0 if nothing
  // was public (and flags `wanted`) or, under a help floor (`floor`, policy::
  // help_floor), if the oldest public task is not deeper than it (no flag:
  // what the owner would release is newer, and claims start at the oldest;
  // *refused, if given, says so).
  // `chunk` is a policy::ChunkPolicy or a policy::SearchDriver (whose
  // take() records the decision when a DecisionLog is attached).
  template <class Chunk>
  std::uint32_t steal_into(SplitDeque& mine, const Chunk& chunk, std::vector<std::byte>& overflow,
                           policy::Level level = policy::Level::process, std::int64_t floor = policy::kNoFloor,
                           bool* refused = nullptr) {
    return steal_with(mine, overflow, level, floor, refused, &chunk, [](const void* c, std::uint32_t available, policy::Level l) {
      return static_cast<const Chunk*>(c)->take(available, l);
    });
  }

  // Public tasks seen by a thief right now (a hint).
  std::uint32_t public_size() const noexcept {
    const std::uint64_t v = ts_.load(std::memory_order_relaxed);
    return split_of(v) - tail_of(v);
  }

  // Owner: tasks that may leave the process (task::may_migrate) pushed so
  // far, own pushes and steals into this deque alike. Unchanged since a
  // moment when the deque held none means it still holds none: the owner
  // need not look again (WorkerQueue::take_oldest).
  std::uint64_t migratable_pushed() const noexcept { return migratable_pushed_; }
  // Owner: does any task in the deque (public or private) satisfy pred?
  // Reads only: thieves may claim and copy public slots meanwhile, but
  // nobody else writes a slot.
  template <class Pred>
  bool any_of(Pred&& pred) const {
    const std::uint32_t tail = tail_of(ts_.load(std::memory_order_relaxed));
    for (std::uint32_t i = tail; i < head_; ++i)
      if (pred(static_cast<const std::byte*>(slot(i)))) return true;
    return false;
  }

  // ---- counters (owner) ----
  std::uint64_t releases() const noexcept { return releases_; }
  std::uint64_t acquires() const noexcept { return acquires_; }
  std::size_t capacity() const noexcept { return capacity_; }
  void reset_counters() noexcept { releases_ = acquires_ = 0; }

 private:
  // The oldest k (<= private) private tasks become public. release: the
  // slot bytes this owner wrote are visible to a thief whose acquire CAS
  // sees the new split. Adding to the low word never carries: split < 2^32.
  void publish(std::uint32_t k) noexcept {
    split_ += k;
    ts_.fetch_add(k, std::memory_order_release);
  }

  using TakeFn = std::uint32_t (*)(const void* chunk, std::uint32_t available, policy::Level level);
  std::uint32_t steal_with(SplitDeque& mine, std::vector<std::byte>& overflow, policy::Level level,
                           std::int64_t floor, bool* refused, const void* chunk, TakeFn take);
  static constexpr std::uint32_t tail_of(std::uint64_t v) noexcept { return static_cast<std::uint32_t>(v >> 32); }
  static constexpr std::uint32_t split_of(std::uint64_t v) noexcept { return static_cast<std::uint32_t>(v); }
  static constexpr std::uint64_t pack(std::uint32_t tail, std::uint32_t split) noexcept {
    return (std::uint64_t{tail} << 32) | split;
  }

  static constexpr std::size_t kHardCapacity = std::size_t{1} << 31;  // indices are 32 bits
  bool make_room() { return make_room(max_capacity_); }  // compact or grow; false at max capacity
  bool make_room(std::size_t limit);
  bool try_reset_indices(std::uint32_t tail) noexcept;
  void grow();
  std::byte* slot(std::uint32_t index) const noexcept { return array_ + std::size_t{index} * stride_; }
  // A push of slot `index` is complete: record its depth and whether it may leave.
  void note_pushed(std::uint32_t index) noexcept {
    const task::TaskHeader& h = *task::header(slot(index));
    depths_[index].store(h.depth, std::memory_order_relaxed);  // a thief's hint: see the header
    if (task::may_migrate(h)) ++migratable_pushed_;
  }

  // Thief-visible state. ts and array are read by every thief; copied and
  // wanted are written by thieves: separate lines so owner pushes do not miss.
  alignas(platform::kCacheLine) std::atomic<std::uint64_t> ts_{0};  // tail|split; CAS by thieves and owner
  std::atomic<std::byte*> published_array_{nullptr};                // written by owner (growth), read by thieves
  std::atomic<Depth*> published_depths_{nullptr};                   // the same for the depth side array
  alignas(platform::kCacheLine) std::atomic<std::uint64_t> copied_{0};  // slots copied out by thieves, total
  std::atomic<bool> wanted_{false};                                     // set by thieves that found nothing public

  // Owner-only state.
  alignas(platform::kCacheLine) std::byte* array_ = nullptr;  // == published_array_
  Depth* depths_ = nullptr;                                    // == published_depths_
  std::uint32_t head_ = 0;             // next index to push
  std::uint32_t split_ = 0;            // exact: only the owner moves split
  std::uint64_t claimed_before_ = 0;   // slots claimed by thieves before the last index reset
  std::size_t stride_;
  std::size_t capacity_;
  std::size_t max_capacity_;
  std::uint64_t releases_ = 0;
  std::uint64_t acquires_ = 0;
  std::uint64_t migratable_pushed_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> arrays_;  // current last; older ones kept for late thieves
  std::vector<std::unique_ptr<Depth[]>> depth_arrays_;  // the same
};

}  // namespace heist::sched
