#include "sched/split_deque.hpp"

#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>

#include "task/task_slot.hpp"

namespace heist::sched {

namespace {
std::unique_ptr<std::byte[]> allocate_slots(std::size_t bytes) {
  // operator new[] of std::byte aligns to __STDCPP_DEFAULT_NEW_ALIGNMENT__
  // (16), which is the slot alignment.
  static_assert(__STDCPP_DEFAULT_NEW_ALIGNMENT__ >= task::kSlotAlign);
  return std::make_unique<std::byte[]>(bytes);
}
}  // namespace

// Moves `n` depths from `from` to `to` (the owner's; thieves may peek
// meanwhile, so each is an atomic load and store, not a memmove). Ranges
// may overlap only with to <= from (compaction slides them down).
static void move_depths(SplitDeque::Depth* to, const SplitDeque::Depth* from, std::size_t n) noexcept {
  for (std::size_t i = 0; i < n; ++i) to[i].store(from[i].load(std::memory_order_relaxed), std::memory_order_relaxed);
}

SplitDeque::SplitDeque(std::size_t stride, std::size_t initial_capacity, std::size_t max_capacity)
    : stride_(stride), capacity_(std::max<std::size_t>(initial_capacity, 2)), max_capacity_(max_capacity) {
  if (stride_ % task::kSlotAlign != 0) throw std::invalid_argument("SplitDeque: stride not 16-aligned");
  if (max_capacity_ > 0xFFFFFFFFu) throw std::invalid_argument("SplitDeque: capacity above 2^32");
  max_capacity_ = std::max(max_capacity_, capacity_);
  arrays_.push_back(allocate_slots(capacity_ * stride_));
  array_ = arrays_.back().get();
  depth_arrays_.push_back(std::make_unique<Depth[]>(capacity_));
  depths_ = depth_arrays_.back().get();
  published_array_.store(array_, std::memory_order_relaxed);  // before any thief exists
  published_depths_.store(depths_, std::memory_order_relaxed);
}

const std::byte* SplitDeque::pop() {
  if (head_ == split_) {
    // Private part empty: take back the newer half of the public part.
    std::uint64_t v = ts_.load(std::memory_order_relaxed);
    for (;;) {
      const std::uint32_t tail = tail_of(v);
      const std::uint32_t split = split_of(v);  // == split_ == head_
      if (tail == split) {
        try_reset_indices(tail);
        return nullptr;
      }
      const std::uint32_t keep_public = (split - tail) / 2;
      const std::uint32_t new_split = tail + keep_public;
      // relaxed: see the header — the owner takes back slots it wrote itself.
      if (ts_.compare_exchange_weak(v, pack(tail, new_split), std::memory_order_relaxed,
                                    std::memory_order_relaxed)) {
        split_ = new_split;
        ++acquires_;
        break;
      }
    }
  }
  --head_;
  if (wanted_.load(std::memory_order_relaxed)) release();
  return slot(head_);  // release() publishes only slots below head_: this one stays the owner's
}

void SplitDeque::release() noexcept {
  const std::uint32_t priv = head_ - split_;
  wanted_.store(false, std::memory_order_relaxed);
  if (priv == 0) return;
  publish((priv + 1) / 2);
  ++releases_;
}

std::uint32_t SplitDeque::steal_with(SplitDeque& mine, std::vector<std::byte>& overflow, policy::Level level,
                                     std::int64_t floor, bool* refused, const void* chunk, TakeFn take) {
  std::uint64_t v = ts_.load(std::memory_order_acquire);
  std::uint32_t tail, k;
  for (;;) {
    tail = tail_of(v);
    const std::uint32_t split = split_of(v);
    if (tail >= split) {
      if (!wanted_.load(std::memory_order_relaxed)) wanted_.store(true, std::memory_order_relaxed);
      return 0;
    }
    if (floor != policy::kNoFloor) {
      // After the acquire load of ts that saw `tail` public: the depth
      // array covers it (grow() published it before the slot).
      const Depth* depths = published_depths_.load(std::memory_order_acquire);
      if (!policy::may_claim(floor, depths[tail].load(std::memory_order_relaxed))) {
        if (refused != nullptr) *refused = true;
        return 0;
      }
    }
    k = take(chunk, split - tail, level);
    // acquire on success: pairs with the owner's release that published these slots.
    if (ts_.compare_exchange_weak(v, pack(tail + k, split), std::memory_order_acquire,
                                  std::memory_order_acquire))
      break;
  }
  const std::byte* array = published_array_.load(std::memory_order_acquire);  // pairs with grow()
  for (std::uint32_t i = 0; i < k; ++i) {
    const std::byte* src = array + std::size_t{tail + i} * stride_;
    std::byte* dst = mine.begin_push();
    if (dst == nullptr) {  // claimed tasks are never dropped: the thief runs these itself
      const std::size_t at = overflow.size();
      overflow.resize(at + stride_);
      std::memcpy(overflow.data() + at, src, task::used_bytes(src));
      continue;
    }
    std::memcpy(dst, src, task::used_bytes(src));
    mine.note_pushed(mine.head_);
    ++mine.head_;  // not end_push(): releasing to other thieves mid-copy is pointless
  }
  // release: our reads of the victim's slots happen before the owner reuses them.
  copied_.fetch_add(k, std::memory_order_release);
  if (mine.wanted_.load(std::memory_order_relaxed)) mine.release();
  return k;
}

bool SplitDeque::try_reset_indices(std::uint32_t tail) noexcept {
  // Precondition: tail == split == head (nothing public, nothing private).
  if (tail == 0) return true;
  // acquire: pairs with the thieves' release increments; all claimed slots
  // have been copied, so nobody reads the array any more.
  if (copied_.load(std::memory_order_acquire) != claimed_before_ + tail) return false;
  claimed_before_ += tail;
  head_ = split_ = 0;
  // relaxed: no thief claims while tail == split, and slot bytes written
  // later are published by the release that makes them public.
  ts_.store(pack(0, 0), std::memory_order_relaxed);
  return true;
}

bool SplitDeque::make_room(std::size_t limit) {
  // Withdraw the public part so no new claim can start, then either slide the
  // live tasks down to index 0 (if claims left room below and no thief is
  // still copying) or grow.
  std::uint64_t v = ts_.load(std::memory_order_relaxed);
  std::uint32_t tail;
  for (;;) {
    tail = tail_of(v);
    if (ts_.compare_exchange_weak(v, pack(tail, tail), std::memory_order_relaxed, std::memory_order_relaxed)) break;
  }
  split_ = tail;
  const std::uint32_t live = head_ - tail;
  if (tail > 0 && live <= capacity_ / 2 &&
      copied_.load(std::memory_order_acquire) == claimed_before_ + tail) {
    std::memmove(array_, slot(tail), std::size_t{live} * stride_);
    move_depths(depths_, depths_ + tail, live);
    claimed_before_ += tail;
    head_ = live;
    split_ = 0;
    ts_.store(pack(0, 0), std::memory_order_relaxed);
    return true;
  }
  if (capacity_ * 2 > limit) return false;
  grow();
  return true;
}

void SplitDeque::grow() {
  const std::size_t new_capacity = capacity_ * 2;
  auto bigger = allocate_slots(new_capacity * stride_);
  // Copy everything below head, claimed slots included: a thief that claimed
  // them may read either array.
  std::memcpy(bigger.get(), array_, std::size_t{head_} * stride_);
  auto deeper = std::make_unique<Depth[]>(new_capacity);
  move_depths(deeper.get(), depths_, head_);
  array_ = bigger.get();
  depths_ = deeper.get();
  arrays_.push_back(std::move(bigger));
  depth_arrays_.push_back(std::move(deeper));
  capacity_ = new_capacity;
  // release: pair with the thieves' acquire loads (steal_with's copy, its
  // depth peek); both precede the publication of any slot they cover.
  published_depths_.store(depths_, std::memory_order_release);
  published_array_.store(array_, std::memory_order_release);
}

}  // namespace heist::sched
