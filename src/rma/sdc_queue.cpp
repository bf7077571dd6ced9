#include "rma/sdc_queue.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "rma/mpi_session.hpp"
#include "rma/received_checks.hpp"

#include "platform/cpu.hpp"

namespace heist::rma {

SdcQueue::SdcQueue(RmaWindow& window, const WindowLayout& layout, int rank, ChunkSpec chunk)
    : win_(window),
      layout_(layout),
      rank_(rank),
      chunk_(chunk),
      owner_(layout.ring_slots),
      shadow_(layout.ring_slots * layout.stride) {}

bool SdcQueue::dry(CommCounters& c, std::optional<std::uint64_t>&) {
  // itail first, then tail (sdc_queue_state.hpp: that order proves the copies done).
  const std::uint64_t itail = win_.read_sync(rank_, WindowLayout::kSdcItail, c);
  tail_seen_ = win_.read_sync(rank_, WindowLayout::kSdcTail, c);
  owner_.progress(itail, tail_seen_);
  asked_ = owner_.drained(tail_seen_);
  return asked_;
}

void SdcQueue::release(const std::byte* slots, std::uint32_t n, std::vector<std::byte>&, CommCounters& c) {
  const std::size_t stride = layout_.stride;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::uint64_t index = owner_.push();
    std::memcpy(shadow_.data() + (index % layout_.ring_slots) * stride, slots + std::size_t{i} * stride, stride);
    win_.put(rank_, layout_.ring_slot(index), slots + std::size_t{i} * stride, stride, c);
  }
  win_.flush(rank_, c);
  owner_.publish_all(tail_seen_);
  win_.replace(rank_, WindowLayout::kSdcSplit, owner_.split(), c);
  win_.flush(rank_, c);
}

std::uint32_t SdcQueue::acquire(std::vector<std::byte>& out, CommCounters& c) {
  if (!offering()) return 0;
  while (win_.cas32_sync(rank_, WindowLayout::kSdcLock, 0, owner_id(), c) != 0) platform::cpu_relax();
  tail_seen_ = win_.read_sync(rank_, WindowLayout::kSdcTail, c);
  const std::uint64_t n = owner_.acquire(tail_seen_);
  if (n > 0) {
    win_.replace(rank_, WindowLayout::kSdcSplit, owner_.split(), c);
    win_.flush(rank_, c);
  }
  win_.cas32_sync(rank_, WindowLayout::kSdcLock, owner_id(), 0, c);
  const std::size_t stride = layout_.stride;
  for (std::uint64_t k = 0; k < n; ++k) {
    std::uint64_t index = 0;
    owner_.pop(index);
    const std::byte* src = shadow_.data() + (index % layout_.ring_slots) * stride;
    out.insert(out.end(), src, src + stride);
  }
  return static_cast<std::uint32_t>(n);
}

std::uint32_t SdcQueue::steal(int victim, int thief, policy::Level level, std::vector<std::byte>& out,
                              CommCounters& c) {
  policy::SdcSteal s(thief_id(thief));
  const auto take = [this, level](std::uint64_t available) {
    return chunk_.take(static_cast<std::uint32_t>(std::min<std::uint64_t>(available, 0xFFFFFFFFu)), level);
  };
  int polls = 0;
  std::uint64_t words[2];
  for (;;) {
    switch (s.step()) {
      case policy::SdcSteal::Step::lock:
        s.on_lock(win_.cas32_sync(victim, WindowLayout::kSdcLock, 0, static_cast<std::uint32_t>(s.id()), c));
        break;
      case policy::SdcSteal::Step::poll:
        if (++polls > kLockPolls) {
          s.abort();
          break;
        }
        win_.read_words_sync(victim, WindowLayout::kSdcTail, words, 2, c);
        s.on_poll(words[0], words[1]);
        break;
      case policy::SdcSteal::Step::read_meta:
        win_.read_words_sync(victim, WindowLayout::kSdcTail, words, 2, c);
        if (const std::string bad = check_sdc_meta(words[0], words[1], layout_.ring_slots); !bad.empty())
          throw DistError("heist: rank " + std::to_string(rank_) + " read from rank " + std::to_string(victim) + " " +
                          bad + "; the ranks do not run the same program, or memory is corrupt");
        s.on_meta(words[0], words[1], take);
        break;
      case policy::SdcSteal::Step::put_tail:
        win_.replace(victim, WindowLayout::kSdcTail, s.new_tail(), c);
        win_.flush(victim, c);  // the new tail lands before the lock is free
        s.on_put_tail();
        break;
      case policy::SdcSteal::Step::unlock:
        s.on_unlock(win_.cas32_sync(victim, WindowLayout::kSdcLock, static_cast<std::uint32_t>(s.id()), 0, c));
        break;
      case policy::SdcSteal::Step::copy: {
        const std::size_t stride = layout_.stride;
        const std::size_t at = out.size();
        out.resize(at + s.count() * stride);
        for (std::uint64_t i = 0; i < s.count();) {
          const std::uint64_t slot = (s.first() + i) % layout_.ring_slots;
          const std::uint64_t run = std::min<std::uint64_t>(s.count() - i, layout_.ring_slots - slot);
          win_.get(victim, layout_.ring_slot(slot), out.data() + at + i * stride, run * stride, c);
          i += run;
        }
        win_.flush(victim, c);
        s.on_copied();
        break;
      }
      case policy::SdcSteal::Step::complete:
        win_.add(victim, WindowLayout::kSdcItail, s.count(), c);  // deferred: flushed with the next call
        s.on_completed();
        break;
      case policy::SdcSteal::Step::done: return static_cast<std::uint32_t>(s.count());
      case policy::SdcSteal::Step::aborted: return 0;
    }
  }
}

}  // namespace heist::rma
