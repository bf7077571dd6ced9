// TaskMailbox: tasks another rank sends to this process — the answer to a
// success-only request (HabaneroUPC++: the victim serves the thief's queued
// request) or a push (Chameleon, PGAS-WS §3.2). It follows CompletionInbox:
// a ring of `mailbox_slots` entries in the window (a 16-byte MailHeader,
// then one task slot), a seq word per entry, a ticket counter
// (mail_reserved) and the count the owner consumed (mail_consumed).
//
// Sender of a batch of n tasks (any thread of any rank; n <= slots):
//   t = fetch-add(reserved, n)                       -- tickets t .. t+n-1
//   wait until t + n <= consumed + slots             -- `consumed` as this process last
//                                                      read it; NO_OP reads of it only
//                                                      while that says full (`progress`
//                                                      runs meanwhile)
//   put(entries t .. t+n-1) + flush                  -- header {from, n, kind} + task slot each
//   accumulate(seq[t % slots], REPLACE, t + 1) + flush
//   accumulate(doorbell, SUM, 1)                     -- after the seq word: the owner looks
//                                                      at the mailbox when it rings; its
//                                                      flush is the caller's (a lazy flush,
//                                                      as CompletionInbox's seq word)
// Owner (one thread at a time, under the mailbox lock), next ticket c:
//   fetch NO_OP of seq[c % slots]; while it is c + 1: get entries c .. c+n-1
//   (n from the header) + flush, deliver them, c += n; then
//   accumulate(consumed, REPLACE, c).
// Invariants: tickets are unique, and entries t .. t+n-1 are written only
// by their sender until the owner consumed them (t + n <= consumed + slots),
// so batches never mix. Only a batch's first seq word is written, after its
// entries are complete at the target (flush), and it holds t + 1: the owner
// reads seq words only where a batch starts, and an older value there (an
// earlier lap's first ticket t' = t - k * slots, or nothing) is never
// t + 1, so a batch is delivered exactly once and never before it is whole.
// The room check may use an old value of `consumed`: the owner only ever
// raises it, so an old value can only say "full" too often, never "room"
// where there is none. Each process keeps the highest value it read per
// target (relaxed atomics: a hint, read and raised by any sending thread),
// so a sender pays the read only when a mailbox looked full: one blocking
// round trip fewer per batch.
// Words: reserved SUM; consumed and seq REPLACE by their single writer.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "rma/rma_window.hpp"
#include "rma/window_layout.hpp"

namespace heist::rma {

enum class MailKind : std::uint32_t { request = 1, push = 2 };

struct MailHeader {
  std::uint32_t from;   // sending rank
  std::uint32_t count;  // tasks in the batch (meaningful in its first entry)
  std::uint32_t kind;   // MailKind
  std::uint32_t unused;
};
static_assert(sizeof(MailHeader) == WindowLayout::kMailHeader);

class TaskMailbox {
 public:
  TaskMailbox(RmaWindow& window, const WindowLayout& layout, int rank);

  // Largest batch one send may carry.
  std::uint32_t max_batch() const noexcept { return static_cast<std::uint32_t>(layout_.mailbox_slots); }

  // Sends n task slots (stride bytes each, back to back) to `target`;
  // blocks, running `progress`, while its mailbox is full. The doorbell's
  // add is left unflushed: the caller flushes `target` later (lazily).
  template <class Progress>
  void send(int target, MailKind kind, const std::byte* slots, std::uint32_t n, CommCounters& c,
            Progress&& progress) {
    const std::uint64_t ticket = win_.fetch_add_sync(target, layout_.mail_reserved(), n, c);
    if (!has_room(target, ticket + n, c)) {
      ++c.mailbox_full_waits;
      do progress();
      while (!has_room(target, ticket + n, c));
    }
    write(target, ticket, kind, slots, n, c);
  }

  // Delivers every complete batch (deliver(header, slots, n), the slots
  // stride bytes apart); returns the tasks delivered. One thread at a time:
  // a false-returning try-lock, since the caller has other work.
  template <class Deliver>
  std::size_t drain(CommCounters& c, Deliver&& deliver) {
    std::unique_lock<std::mutex> lock(drain_mutex_, std::try_to_lock);
    if (!lock.owns_lock()) return 0;
    std::size_t delivered = 0;
    while (const std::uint32_t n = next_batch(c)) {
      deliver(header_, slots_.data(), n);
      consumed_ += n;
      delivered += n;
    }
    if (delivered > 0) win_.replace(rank_, layout_.mail_consumed(), consumed_, c);  // flushed by the next sync call
    return delivered;
  }

 private:
  bool has_room(int target, std::uint64_t end, CommCounters& c);
  void write(int target, std::uint64_t ticket, MailKind kind, const std::byte* slots, std::uint32_t n,
             CommCounters& c);
  // The batch at consumed_ if complete: header_ and slots_ filled, its size returned (0: none).
  std::uint32_t next_batch(CommCounters& c);
  void get_entries(std::uint64_t first, std::uint32_t n, std::byte* to, CommCounters& c);

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  std::unique_ptr<std::atomic<std::uint64_t>[]> known_consumed_;  // [target]: highest `consumed` read there
  std::mutex drain_mutex_;
  std::uint64_t consumed_ = 0;    // owner: next ticket to deliver (under drain_mutex_)
  MailHeader header_{};           // owner (under drain_mutex_)
  std::vector<std::byte> entries_;  // owner's buffer of whole entries (under drain_mutex_)
  std::vector<std::byte> slots_;    // the batch's task slots, back to back (under drain_mutex_)
};

}  // namespace heist::rma
