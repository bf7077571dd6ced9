// AnswerSlots: the answers to success-only requests (HabaneroUPC++: a
// victim serves a thief's queued request), each written straight into an
// area the thief's window keeps for that victim, instead of through the
// TaskMailbox ring (tickets, entries, seq words: three blocking round
// trips). A process has at most one request open at each rank
// (MailboxBalance::requested_), so the area [v] in thief T's window is
// written by v alone and only while T's request at v is open: no tickets,
// no room check.
//
// Victim v answering a round of requests (one batch per thief, n tasks,
// 0 < n <= answer_slots):
//   put(T's area[v], {v, n, kind} header + n task slots) every batch; flush each T
//                                         -- the area is complete at T
//   replace(T's answer_seq[v], (++sent[T]) << 32 | n) every batch  -- flushed lazily
//                                         by the caller (DistContext::defer_flush), as a doorbell
// One blocking round trip per round, however many batches it carries; the
// answer is visible half a round trip after its seq word's flush.
// Owner T (under the owner lock), for the ranks v with a request open:
//   fetch NO_OP of their answer_seq words (one read of the span from the
//   lowest to the highest v when policy::answer_words_at_once, else one
//   each); for each v whose answer number is seen[v] + 1: get
//   the header and its n slots of area[v] + flush, deliver, seen[v] += 1, and
//   the request at v is closed (the caller's).
// Invariants: sent[T] at v and seen[v] at T count the same answers, one per
// request; v writes area[v] only between T's request and T's read of the
// answer (T requests v again only after that read), so an area is never
// overwritten while unread, and its seq word is written only after the
// area is complete at T (the flush), so T never reads a partial answer.
// A seq word whose number is neither seen[v] nor seen[v] + 1, or whose
// count disagrees with the area's header, is corrupt memory.
// Words: answer_seq[v] REPLACE by v alone; areas are plain bytes (MPI_Put/Get).
// Model-checked: models/answers.pml (and a mutant for each of the two rules).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "rma/rma_window.hpp"
#include "rma/task_mailbox.hpp"
#include "rma/window_layout.hpp"

namespace heist::rma {

class AnswerSlots {
 public:
  AnswerSlots(RmaWindow& window, const WindowLayout& layout, int rank, int ranks);

  // Largest answer: the tasks of one area.
  std::uint32_t max_answer() const noexcept { return static_cast<std::uint32_t>(layout_.answer_slots); }

  // Victim: writes every batch of `round` (kind request, 0 < count <=
  // max_answer(); slots: the round's slot buffer) into its thief's area
  // for this rank. Blocks for the areas' flush; the seq words are left
  // unflushed (the caller flushes each target lazily).
  void send(std::span<const MailBatch> round, const std::byte* slots, CommCounters& c);

  // Owner: delivers every answer that arrived to this process's requests
  // open at the ranks `open` (deliver(from, slots, n), the slots stride
  // bytes apart) and appends those ranks to `answered`.
  template <class Deliver>
  void take(std::span<const int> open, CommCounters& c, Deliver&& deliver, std::vector<int>& answered) {
    read_words(open, c);
    for (std::size_t i = 0; i < open.size(); ++i) {
      const std::uint32_t n = arrived(open[i], words_[i], c);
      if (n == 0) continue;
      deliver(open[i], static_cast<const std::byte*>(area_.data() + WindowLayout::kMailHeader), n);
      answered.push_back(open[i]);
    }
  }

 private:
  static std::uint64_t seq_word(std::uint32_t answer, std::uint64_t tasks) noexcept {
    return std::uint64_t{answer} << 32 | tasks;
  }
  // words_[i]: the answer word of open[i].
  void read_words(std::span<const int> open, CommCounters& c);
  // Reads the answer of `from` into area_ if its answer word says it is
  // there: its task count, else 0.
  std::uint32_t arrived(int from, std::uint64_t word, CommCounters& c);

  RmaWindow& win_;
  WindowLayout layout_;
  int rank_;
  // Answer numbers count modulo 2^32 (the seq word's upper half).
  std::vector<std::uint32_t> sent_;  // [thief]: answers this rank sent there (the victim's, under its owner lock)
  std::vector<std::uint32_t> seen_;  // [victim]: answers of that rank taken here (under the owner lock)
  std::vector<std::uint64_t> words_;  // the answer words of a take (owner)
  std::vector<std::uint64_t> span_;   // the span they were read in (owner)
  std::vector<std::byte> area_;      // one area as read: header, then the slots back to back (owner)
  std::vector<std::byte> out_;       // the areas a send puts, until its flush (the victim's, under its owner lock)
};

}  // namespace heist::rma
