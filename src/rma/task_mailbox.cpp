#include "rma/task_mailbox.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "rma/mpi_session.hpp"

namespace heist::rma {

TaskMailbox::TaskMailbox(RmaWindow& window, const WindowLayout& layout, int rank)
    : win_(window),
      layout_(layout),
      rank_(rank),
      room_(layout.ranks, layout.mailbox_slots, layout.mail_consumed()) {}

void TaskMailbox::check_batch(std::uint64_t n) const {
  if (n == 0 || n > max_batch())
    throw DistError("heist: a batch of " + std::to_string(n) + " tasks does not fit a mailbox of " +
                    std::to_string(max_batch()) + " slots");
}

void TaskMailbox::put_entries(const MailBatch& b, const std::byte* slots, std::byte* entries, CommCounters& c) {
  const std::size_t entry = layout_.mailbox_entry;
  const std::size_t stride = layout_.stride;
  const auto n = static_cast<std::uint32_t>(b.count);
  const MailHeader header{static_cast<std::uint32_t>(rank_), n, static_cast<std::uint32_t>(b.kind), 0};
  for (std::uint32_t i = 0; i < n; ++i) {
    std::memcpy(entries + std::size_t{i} * entry, &header, sizeof header);
    std::memcpy(entries + std::size_t{i} * entry + sizeof header, slots + b.offset + std::size_t{i} * stride, stride);
  }
  // Ring runs without wrap: one put each.
  for (std::uint32_t i = 0; i < n;) {
    const std::uint64_t at = (b.ticket + i) % layout_.mailbox_slots;
    const auto run = static_cast<std::uint32_t>(std::min<std::uint64_t>(n - i, layout_.mailbox_slots - at));
    win_.put(b.target, layout_.mail_entry(b.ticket + i), entries + std::size_t{i} * entry, std::size_t{run} * entry, c);
    i += run;
  }
}

void TaskMailbox::flush_targets(std::span<const MailBatch> round, MailBatch::Step step, CommCounters& c) {
  flush_each_target(win_, round, [step](const MailBatch& b) { return b.step == step; }, c);
}

bool TaskMailbox::write_ready(std::span<MailBatch> round, const std::byte* slots, CommCounters& c) {
  using Step = MailBatch::Step;
  std::uint64_t entries = 0;
  std::size_t left = 0;
  for (MailBatch& b : round) {
    if (b.step != Step::waiting) continue;
    if (room_.has_room(win_, b.target, b.ticket + b.count, c)) {
      b.step = Step::ready;
      entries += b.count;
    } else {
      ++left;
    }
  }
  if (entries == 0) return left == 0;
  // The puts read these entries until the flush below: sized once, not grown meanwhile.
  thread_local std::vector<std::byte> buffer;
  buffer.assign(entries * layout_.mailbox_entry, std::byte{0});
  std::size_t at = 0;
  for (const MailBatch& b : round) {
    if (b.step != Step::ready) continue;
    put_entries(b, slots, buffer.data() + at, c);
    at += b.count * layout_.mailbox_entry;
  }
  flush_targets(round, Step::ready, c);  // the entries are complete at their targets before their seq words say so
  for (const MailBatch& b : round)
    if (b.step == Step::ready) win_.replace(b.target, layout_.mail_seq(b.ticket), b.ticket + 1, c);
  flush_targets(round, Step::ready, c);  // the seq words are visible before the doorbells ring (different words: no order otherwise)
  for (MailBatch& b : round) {
    if (b.step != Step::ready) continue;
    win_.add(b.target, layout_.doorbell(), 1, c);  // flushed by a wait below, or lazily by the caller
    b.step = Step::sent;
  }
  return left == 0;
}

void TaskMailbox::get_entries(std::uint64_t first, std::uint32_t n, std::byte* to, CommCounters& c) {
  const std::size_t entry = layout_.mailbox_entry;
  for (std::uint32_t i = 0; i < n;) {
    const std::uint64_t at = (first + i) % layout_.mailbox_slots;
    const auto run = static_cast<std::uint32_t>(std::min<std::uint64_t>(n - i, layout_.mailbox_slots - at));
    win_.get(rank_, layout_.mail_entry(first + i), to + std::size_t{i} * entry, std::size_t{run} * entry, c);
    i += run;
  }
  win_.flush(rank_, c);
}

std::uint32_t TaskMailbox::next_batch(CommCounters& c) {
  if (win_.read_sync(rank_, layout_.mail_seq(consumed_), c) != consumed_ + 1) return 0;
  const std::size_t entry = layout_.mailbox_entry;
  entries_.resize(entry);
  get_entries(consumed_, 1, entries_.data(), c);
  std::memcpy(&header_, entries_.data(), sizeof header_);
  const std::uint32_t n = header_.count;
  if (n == 0 || n > max_batch())
    throw DistError("heist: rank " + std::to_string(rank_) + " found a mailbox batch of " + std::to_string(n) +
                    " tasks from rank " + std::to_string(header_.from) + "; memory is corrupt");
  if (n > 1) {
    entries_.resize(std::size_t{n} * entry);
    get_entries(consumed_ + 1, n - 1, entries_.data() + entry, c);
  }
  const std::size_t stride = layout_.stride;
  slots_.resize(std::size_t{n} * stride);
  for (std::uint32_t i = 0; i < n; ++i)
    std::memcpy(slots_.data() + std::size_t{i} * stride, entries_.data() + std::size_t{i} * entry + sizeof(MailHeader),
                stride);
  return n;
}

}  // namespace heist::rma
