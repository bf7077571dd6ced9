// TaskMailbox: tasks another rank pushes to this process (Chameleon,
// PGAS-WS §3.2; success-only answers, which need no tickets, go through
// AnswerSlots, answer_slots.hpp). It follows CompletionInbox:
// a ring of `mailbox_slots` entries in the window (a 16-byte MailHeader,
// then one task slot), a seq word per entry, a ticket counter
// (mail_reserved) and the count the owner consumed (mail_consumed).
//
// Sender of a round of batches (any thread of any rank; each batch of
// n <= slots tasks for one target; "flush" below flushes each of the
// batches' targets once):
//   t_b = fetch-add(reserved at b's target, n_b), every b; flush
//                                                    -- tickets t_b .. t_b+n_b-1
//   the batches with room (t_b + n_b <= consumed + slots, `consumed` as this
//   process last read it; NO_OP reads of it only where that says full):
//     put(entries t_b ..) every such b; flush       -- header {from, n, kind} + task slot each
//     accumulate(seq[t_b % slots], REPLACE, t_b + 1) every such b; flush
//     accumulate(doorbell, SUM, 1) every such b      -- after the seq words: the owner looks
//                                                      at its mailbox when it rings
//   the rest: flush (the doorbells land), run `progress`, and again for
//   those that have room now, until none is left.
// The last doorbells' flush is the caller's (a lazy flush, as CompletionInbox's
// seq word). A round blocks for three round trips however many batches it
// carries, where one batch at a time cost three each.
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
// The room check may use an old value of `consumed` (RingRoom), so a
// sender pays its read only when a mailbox looked full.
// Progress: a sender never holds a ticket that has room without writing its
// batch (it writes every batch as soon as it has room, also while it waits
// for others), and every waiting sender drains its own mailbox (`progress`).
// An owner's drain stops only at the first unwritten ticket, which then has
// room (t = consumed), so its sender writes it at its next check: no cycle of
// senders waiting for each other's mailboxes.
// Words: reserved SUM; consumed and seq REPLACE by their single writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <span>
#include <vector>

#include "rma/ring_room.hpp"
#include "rma/rma_window.hpp"
#include "rma/window_layout.hpp"

namespace heist::rma {

enum class MailKind : std::uint32_t { request = 1, push = 2 };

// One batch of a send round: `count` task slots for `target`, at byte
// `offset` of the round's slot buffer (stride bytes each, back to back).
struct MailBatch {
  int target = -1;
  MailKind kind = MailKind::request;
  std::size_t offset = 0;
  std::uint64_t count = 0;   // the fetch-and-add's operand: read by MPI until the flush
  std::uint64_t ticket = 0;  // send_round's
  enum class Step : std::uint8_t { waiting, ready, sent } step = Step::waiting;  // send_round's
};

struct MailHeader {
  std::uint32_t from;   // sending rank
  std::uint32_t count;  // tasks in the batch (meaningful in its first entry)
  std::uint32_t kind;   // MailKind
  std::uint32_t unused;
};
static_assert(sizeof(MailHeader) == WindowLayout::kMailHeader);

// Flushes the targets of the batches of `round` that `pick` selects, each
// once (a flush per target, not MPI_Win_flush_all: with osc pt2pt that asks
// every rank; a round has a few batches, so a quadratic look is cheap).
template <class Pick>
void flush_each_target(RmaWindow& win, std::span<const MailBatch> round, Pick&& pick, CommCounters& c) {
  for (std::size_t i = 0; i < round.size(); ++i) {
    if (!pick(round[i])) continue;
    bool earlier = false;
    for (std::size_t j = 0; j < i && !earlier; ++j) earlier = pick(round[j]) && round[j].target == round[i].target;
    if (!earlier) win.flush(round[i].target, c);
  }
}

class TaskMailbox {
 public:
  TaskMailbox(RmaWindow& window, const WindowLayout& layout, int rank);

  // Largest batch one send may carry.
  std::uint32_t max_batch() const noexcept { return static_cast<std::uint32_t>(layout_.mailbox_slots); }

  // Sends every batch of `round` (slots: the round's slot buffer); blocks,
  // running `progress`, while a target's mailbox is full. The last doorbells
  // are left unflushed: the caller flushes every target later (lazily).
  template <class Progress>
  void send_round(std::span<MailBatch> round, const std::byte* slots, CommCounters& c, Progress&& progress) {
    if (round.empty()) return;
    ++c.mailbox_rounds;
    for (MailBatch& b : round) {
      check_batch(b.count);
      b.step = MailBatch::Step::waiting;
      win_.fetch_add(b.target, layout_.mail_reserved(), &b.count, &b.ticket, c);
    }
    flush_targets(round, MailBatch::Step::waiting, c);
    if (write_ready(round, slots, c)) return;
    ++c.mailbox_full_waits;
    do {
      flush_targets(round, MailBatch::Step::sent, c);  // the doorbells rung so far land before this sender waits
      progress();
    } while (!write_ready(round, slots, c));
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
  void check_batch(std::uint64_t n) const;
  // Flushes the targets of the round's batches at `step`, each once.
  void flush_targets(std::span<const MailBatch> round, MailBatch::Step step, CommCounters& c);
  // Writes (entries, seq word, doorbell) every unwritten batch that has room;
  // true when none is left.
  bool write_ready(std::span<MailBatch> round, const std::byte* slots, CommCounters& c);
  // Puts b's entries (header + slot each), built in `entries`.
  void put_entries(const MailBatch& b, const std::byte* slots, std::byte* entries, CommCounters& c);
  // The batch at consumed_ if complete: header_ and slots_ filled, its size returned (0: none).
  std::uint32_t next_batch(CommCounters& c);
  void get_entries(std::uint64_t first, std::uint32_t n, std::byte* to, CommCounters& c);

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  RingRoom room_;  // the targets' `consumed`, as last read
  std::mutex drain_mutex_;
  std::uint64_t consumed_ = 0;    // owner: next ticket to deliver (under drain_mutex_)
  MailHeader header_{};           // owner (under drain_mutex_)
  std::vector<std::byte> entries_;  // owner's buffer of whole entries (under drain_mutex_)
  std::vector<std::byte> slots_;    // the batch's task slots, back to back (under drain_mutex_)
};

}  // namespace heist::rma
