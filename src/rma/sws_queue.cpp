#include "rma/sws_queue.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "rma/mpi_session.hpp"
#include "rma/received_checks.hpp"

namespace heist::rma {

SwsQueue::SwsQueue(RmaWindow& window, const WindowLayout& layout, int rank, int ranks, int thieves,
                   std::uint32_t threshold)
    : win_(window),
      layout_(layout),
      rank_(rank),
      threshold_(threshold),
      owner_(static_cast<std::uint32_t>(layout.ring_slots)),
      shadow_(layout.ring_slots * layout.stride),
      modes_(static_cast<std::size_t>(thieves),
             std::vector<policy::sws::TargetMode>(static_cast<std::size_t>(ranks), policy::sws::TargetMode::full)) {}

bool SwsQueue::dry(CommCounters& c, std::optional<std::uint64_t>& inbox_posted) {
  // The completion counts are read (and flushed) before stealval: every
  // completion counted there belongs to a claim the later stealval shows.
  if (owner_.awaiting()) {
    std::uint64_t completed[policy::sws::kEpochs];
    win_.read_words_sync(rank_, WindowLayout::kSwsCompleted, completed, policy::sws::kEpochs, c);
    owner_.progress(completed[0], completed[1]);
  }
  // stealval with the poll's other words in one fetch: a NO_OP fetch of
  // eight words costs what one of a single word does (osc rdma, 2-core VM).
  std::uint64_t words[WindowLayout::kPollWords];
  win_.read_words_sync(rank_, WindowLayout::kStealval, words, WindowLayout::kPollWords, c);
  inbox_posted = words[WindowLayout::kInboxPosted / 8];
  const std::uint64_t word = words[WindowLayout::kStealval / 8];
  owner_.observe(word);
  asked_ = policy::sws::asked(word);
  return owner_.refillable();
}

void SwsQueue::release(const std::byte* slots, std::uint32_t n, std::vector<std::byte>& returned, CommCounters& c) {
  const std::uint64_t first = owner_.split();
  const std::size_t stride = layout_.stride;
  // Write the slots (ring runs without wrap: one put each), then publish.
  for (std::uint32_t i = 0; i < n;) {
    const std::uint64_t slot = (first + i) % layout_.ring_slots;
    const std::uint32_t run = static_cast<std::uint32_t>(std::min<std::uint64_t>(n - i, layout_.ring_slots - slot));
    std::memcpy(shadow_.data() + slot * stride, slots + std::size_t{i} * stride, std::size_t{run} * stride);
    win_.put(rank_, layout_.ring_slot(first + i), slots + std::size_t{i} * stride, std::size_t{run} * stride, c);
    i += run;
  }
  win_.flush(rank_, c);
  const std::uint64_t addend = owner_.release_addend(n);
  const policy::TaskRange skipped = owner_.on_released(win_.fetch_add_sync(rank_, WindowLayout::kStealval, addend, c));
  copy_out(skipped.begin, skipped.end, returned);
}

std::uint32_t SwsQueue::acquire(std::vector<std::byte>& out, CommCounters& c) {
  if (!owner_.live()) return 0;
  const std::uint64_t addend = owner_.disable_addend();
  const policy::AcquireResult r = owner_.on_disabled(win_.fetch_add_sync(rank_, WindowLayout::kStealval, addend, c));
  copy_out(r.reclaimed.begin, r.reclaimed.end, out);
  return static_cast<std::uint32_t>(r.reclaimed.size());
}

void SwsQueue::copy_out(std::uint64_t begin, std::uint64_t end, std::vector<std::byte>& out) const {
  const std::size_t stride = layout_.stride;
  for (std::uint64_t i = begin; i < end; ++i) {
    const std::byte* src = shadow_.data() + (i % layout_.ring_slots) * stride;
    out.insert(out.end(), src, src + stride);
  }
}

std::uint32_t SwsQueue::steal(int victim, int thief, policy::Level, std::vector<std::byte>& out, CommCounters& c) {
  policy::sws::TargetMode& mode = modes_[static_cast<std::size_t>(thief)][static_cast<std::size_t>(victim)];
  policy::SwsSteal s(mode);
  if (s.step() == policy::SwsSteal::Step::probe &&
      s.on_probe(win_.read_sync(victim, WindowLayout::kStealval, c)) == policy::SwsSteal::Step::aborted)
    return 0;
  const std::uint64_t fetched = win_.fetch_add_sync(victim, WindowLayout::kStealval, policy::sws::steal_addend(), c);
  if (const std::string bad = check_stealval(fetched, static_cast<std::uint32_t>(layout_.ring_slots)); !bad.empty())
    throw DistError("heist: rank " + std::to_string(rank_) + " read from rank " + std::to_string(victim) + " " + bad +
                    "; the ranks do not run the same program, or memory is corrupt");
  const policy::SwsSteal::Step step = s.on_fetch_add(fetched, threshold_);
  mode = s.mode();
  if (step == policy::SwsSteal::Step::aborted) return 0;
  const policy::sws::Claim& claim = s.claim();
  const std::size_t stride = layout_.stride;
  const std::size_t at = out.size();
  out.resize(at + std::size_t{claim.block.count} * stride);
  const std::uint64_t first = std::uint64_t{claim.start} + claim.block.offset;  // ring index (mod slots)
  for (std::uint32_t i = 0; i < claim.block.count;) {
    const std::uint64_t slot = (first + i) % layout_.ring_slots;
    const auto run =
        static_cast<std::uint32_t>(std::min<std::uint64_t>(claim.block.count - i, layout_.ring_slots - slot));
    win_.get(victim, layout_.ring_slot(slot), out.data() + at + std::size_t{i} * stride, std::size_t{run} * stride, c);
    i += run;
  }
  win_.flush(victim, c);
  s.on_copied();
  win_.add(victim, WindowLayout::kSwsCompleted + 8 * static_cast<MPI_Aint>(claim.epoch), claim.block.count, c);
  s.on_completed();
  return claim.block.count;
}

}  // namespace heist::rma
