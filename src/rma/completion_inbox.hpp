// CompletionInbox: how a task that ran on another rank reports back. Each
// process has an inbox in its window with one lane per sending rank: a ring
// of fixed-size entries with a seq word per entry and the count the owner
// has consumed (inbox_consumed[r]), plus a count of completions each rank
// has sent here (inbox_lane_posted[r]) and their total (inbox_posted).
//
// Sender (any thread of rank r; many concurrently), to target p:
//   t = next[p]++                                   -- a local atomic: a ticket of lane r at p
//   wait until t < consumed[r] + slots (consumed as last read here, RingRoom;
//                                                  re-read, NO_OP, only while that says full)
//   put(entry t of lane r) + flush                  -- header, output bytes, error text
//   accumulate(seq[r][t], REPLACE, t + 1)           -- these three flushed lazily by the caller
//   accumulate(lane_posted[r], SUM, 1); accumulate(posted, SUM, 1)
// Owner (one thread at a time, under the inbox lock):
//   fetch NO_OP posted (or take the count the poll read with the public
//   queue's words); if it is no more than the entries applied so far, stop; else
//   fetch NO_OP every lane_posted word, and for each lane r with more posted
//   than applied, from its next ticket c: fetch NO_OP up to 16 seq words;
//   while seq[r][c] == c + 1: get entry + flush, apply it (output into the
//   parent's memory, finish scope and task-handle completion, exception),
//   c += 1; then accumulate(consumed[r], REPLACE, c).
// The lazy writes' flush is the caller's (DistContext keeps it pending and
// flushes it before the worker's next RMA call: its next poll, steal,
// request or completion), so a completion costs its sender one round trip:
// the ticket is local, since only rank r's threads write lane r. Nothing on
// the sender waits for the lazy writes to land; the owner reads an entry
// only after its seq, which follows the flushed put. The posted counts are
// hints of where to look, never trusted for an entry: one that landed
// before its seq makes the owner look too soon (it finds the seq not yet
// written and looks again at its next drain), and a seq that landed before
// its counts waits for them, which the sender flushes before it next
// touches MPI.
// Invariants: ticket t of lane r is the only writer of its entry until the
// owner consumes it (t < consumed[r] + slots), so entries never mix; the seq
// word is written after the entry is complete at the target (flush), and
// holds t + 1 (never 0 for a live ticket), so a stale seq from lap t - slots
// differs. Each word has one update op (seq, consumed: REPLACE by their
// single writer at a time; the posted counts: SUM).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstring>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
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
  // `posted`: inbox_posted as the caller read it just before (with the
  // public queue's words), else it is read here. Like every read of it, a
  // hint of where to look: a stale one only leaves entries to the next drain.
  template <class Apply>
  std::size_t drain(CommCounters& c, Apply&& apply, std::optional<std::uint64_t> posted = std::nullopt);

 private:
  // Throws DistError unless check_inbox_entry accepts the entry.
  void reject_if_invalid(const InboxEntryHeader& h) const;
  // Applies lane `lane`'s complete entries; returns how many.
  template <class Apply>
  std::size_t drain_lane(int lane, CommCounters& c, Apply& apply);
  void write(int target, std::uint64_t ticket, const InboxEntryHeader& header, const void* out, std::string_view error,
             CommCounters& c);

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  int lanes_;
  // [target]: the next ticket of this rank's lane there. Relaxed: the
  // tickets need only be unique; the window's flushes order the entries.
  std::unique_ptr<std::atomic<std::uint64_t>[]> next_;
  RingRoom room_;  // the targets' `consumed` of this rank's lane, as last read: most sends skip that read
  std::mutex drain_mutex_;
  // Owner state, under drain_mutex_:
  std::uint64_t applied_ = 0;            // entries applied, all lanes (the sum of consumed_: an idle poll reads one word)
  std::vector<std::uint64_t> consumed_;  // [lane]: next ticket to apply
  std::vector<std::uint64_t> posted_;    // [lane]: lane_posted as last read
  std::vector<std::byte> entry_;
};

template <class Progress>
void CompletionInbox::send(int target, const InboxEntryHeader& header, const void* out, std::string_view error,
                           CommCounters& c, Progress&& progress) {
  const std::uint64_t ticket = next_[static_cast<std::size_t>(target)].fetch_add(1, std::memory_order_relaxed);
  while (!room_.has_room(win_, target, ticket + 1, c)) progress();
  write(target, ticket, header, out, error, c);
}

template <class Apply>
std::size_t CompletionInbox::drain(CommCounters& c, Apply&& apply, std::optional<std::uint64_t> posted) {
  std::unique_lock<std::mutex> lock(drain_mutex_, std::try_to_lock);
  if (!lock.owns_lock()) return 0;
  // <=: a count read before another worker's drain may be below applied_.
  if (!posted) posted = win_.read_sync(rank_, WindowLayout::kInboxPosted, c);
  if (*posted <= applied_) return 0;
  win_.read_words_sync(rank_, layout_.inbox_lane_posted(0), posted_.data(), lanes_, c);
  std::size_t applied = 0;
  for (int lane = 0; lane < lanes_; ++lane)
    if (posted_[static_cast<std::size_t>(lane)] > consumed_[static_cast<std::size_t>(lane)])
      applied += drain_lane(lane, c, apply);
  applied_ += applied;
  return applied;
}

template <class Apply>
std::size_t CompletionInbox::drain_lane(int lane, CommCounters& c, Apply& apply) {
  constexpr int kBatch = 16;
  const std::uint64_t slots = layout_.inbox_lane_slots;
  std::uint64_t& consumed = consumed_[static_cast<std::size_t>(lane)];
  std::uint64_t seq[kBatch];
  std::size_t applied = 0;
  for (;;) {
    // Read up to kBatch seq words without wrapping around the lane.
    const int n = static_cast<int>(std::min<std::uint64_t>(kBatch, slots - consumed % slots));
    win_.read_words_sync(rank_, layout_.inbox_seq(lane, consumed), seq, n, c);
    int ready = 0;
    while (ready < n && seq[ready] == consumed + static_cast<std::uint64_t>(ready) + 1) ++ready;
    for (int i = 0; i < ready; ++i) {
      win_.get(rank_, layout_.inbox_entry_at(lane, consumed), entry_.data(), layout_.inbox_entry, c);
      win_.flush(rank_, c);
      InboxEntryHeader h;
      std::memcpy(&h, entry_.data(), sizeof h);
      reject_if_invalid(h);
      const std::byte* bytes = entry_.data() + sizeof h;
      apply(h, bytes, std::string_view(reinterpret_cast<const char*>(bytes) + h.out_size, h.error_size));
      ++consumed;
      ++applied;
    }
    if (ready < n || ready == 0) break;
  }
  if (applied > 0) win_.replace(rank_, layout_.inbox_consumed(lane), consumed, c);  // flushed by the next sync call
  return applied;
}

}  // namespace heist::rma
