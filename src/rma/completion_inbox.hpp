// CompletionInbox: how a task that ran on another rank reports back. Each
// process has an inbox in its window: a ring of fixed-size entries, a seq
// word per entry, a ticket counter (inbox_reserved) and the count the owner
// has consumed (inbox_consumed).
//
// Sender (any thread of any rank; many concurrently):
//   t = fetch-add(reserved, 1)                      -- a unique ticket
//   wait until t < consumed + slots (consumed as last read here, RingRoom;
//                                                  re-read, NO_OP, only while that says full)
//   put(entry t % slots) + flush                    -- header, output bytes, error text
//   accumulate(seq[t % slots], REPLACE, t + 1)      -- flushed lazily by the caller
// Owner (one thread at a time, under the inbox lock), next ticket c:
//   fetch NO_OP of up to 16 seq words from c; while seq[c % slots] == c + 1:
//   get entry + flush, apply it (output into the parent's memory, finish scope
//   and task-handle completion, exception), c += 1; then
//   accumulate(consumed, REPLACE, c).
// The seq write's flush is the caller's (DistContext keeps it pending and
// flushes it before the worker's next RMA call: its next poll, steal,
// request or completion), so a completion costs its sender two round trips
// instead of three; nothing on the sender waits for the write to land, and
// the owner reads an entry only after its seq, which follows the flushed put.
// Invariants: ticket t is the only writer of entry t % slots until the owner
// consumes it (t < consumed + slots), so entries never mix; the seq word is
// written after the entry is complete at the target (flush), and holds t + 1
// (never 0 for a live ticket), so a stale seq from lap t - slots differs.
// Each word has one update op (seq, consumed: REPLACE by its single writer at
// a time; reserved: SUM).
#pragma once

#include <cstddef>
#include <cstring>
#include <cstdint>
#include <mutex>
#include <string_view>
#include <vector>

#include "rma/inbox_entry.hpp"
#include "rma/ring_room.hpp"
#include "rma/rma_window.hpp"
#include "rma/window_layout.hpp"

namespace heist::rma {

class CompletionInbox {
 public:
  CompletionInbox(RmaWindow& window, const WindowLayout& layout, int rank, int ranks);

  // Largest output + error text an entry carries.
  std::size_t payload_capacity() const noexcept { return layout_.inbox_entry - sizeof(InboxEntryHeader); }

  // Blocks (spinning with back-off, running `progress` meanwhile) while the
  // target's inbox is full. Returns with the seq write issued, not flushed:
  // the caller flushes `target` before it next depends on the write.
  template <class Progress>
  void send(int target, const InboxEntryHeader& header, const void* out, std::string_view error, CommCounters& c,
            Progress&& progress);

  // Applies every complete entry (apply(header, output bytes, error text));
  // returns how many. Only one thread drains at a time: false-returning
  // try-lock, since the caller has other work. `apply` must not run tasks
  // or otherwise wait: while it runs, every other drain of this inbox
  // returns 0, so a wait inside it for another completion never ends (a
  // released dependent once ran here: Executor::finish_foreign).
  template <class Apply>
  std::size_t drain(CommCounters& c, Apply&& apply);

 private:
  // Throws DistError unless check_inbox_entry accepts the entry.
  void reject_if_invalid(const InboxEntryHeader& h) const;
  std::uint64_t reserve(int target, CommCounters& c);
  void write(int target, std::uint64_t ticket, const InboxEntryHeader& header, const void* out, std::string_view error,
             CommCounters& c);

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  RingRoom room_;  // the targets' `consumed`, as last read: most sends skip that read
  std::mutex drain_mutex_;
  std::uint64_t consumed_ = 0;  // owner: next ticket to apply (under drain_mutex_)
  std::vector<std::byte> entry_;  // owner's buffer (under drain_mutex_)
};

template <class Progress>
void CompletionInbox::send(int target, const InboxEntryHeader& header, const void* out, std::string_view error,
                           CommCounters& c, Progress&& progress) {
  const std::uint64_t ticket = reserve(target, c);
  while (!room_.has_room(win_, target, ticket + 1, c)) progress();
  write(target, ticket, header, out, error, c);
}

template <class Apply>
std::size_t CompletionInbox::drain(CommCounters& c, Apply&& apply) {
  std::unique_lock<std::mutex> lock(drain_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return 0;
  constexpr int kBatch = 16;
  std::uint64_t seq[kBatch];
  std::size_t applied = 0;
  for (;;) {
    // Read up to kBatch seq words without wrapping around the seq array.
    const std::uint64_t first = consumed_ % layout_.inbox_slots;
    const int n = static_cast<int>(std::min<std::uint64_t>(kBatch, layout_.inbox_slots - first));
    win_.read_words_sync(rank_, layout_.inbox_seq(consumed_), seq, n, c);
    int ready = 0;
    while (ready < n && seq[ready] == consumed_ + static_cast<std::uint64_t>(ready) + 1) ++ready;
    for (int i = 0; i < ready; ++i) {
      win_.get(rank_, layout_.inbox_entry_at(consumed_), entry_.data(), layout_.inbox_entry, c);
      win_.flush(rank_, c);
      InboxEntryHeader h;
      std::memcpy(&h, entry_.data(), sizeof h);
      reject_if_invalid(h);
      const std::byte* bytes = entry_.data() + sizeof h;
      apply(h, bytes, std::string_view(reinterpret_cast<const char*>(bytes) + h.out_size, h.error_size));
      ++consumed_;
      ++applied;
    }
    if (ready < n || ready == 0) break;
  }
  if (applied > 0) win_.replace(rank_, WindowLayout::kInboxConsumed, consumed_, c);  // flushed by the next sync call
  return applied;
}

}  // namespace heist::rma
