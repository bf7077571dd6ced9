// Where each piece of a process's public state lives in its MPI window, and
// the one update op every word has (RmaWindow's atomicity rule).
//
//   word                 updated by                 op
//   stealval             SWS thieves and owner      MPI_SUM only (sws_stealval.hpp)
//   sws_completed[2]     SWS thieves                MPI_SUM (cumulative, never reset)
//   sdc_lock (32 bits)   SDC lock holders           compare-and-swap only
//   sdc_tail             SDC lock holder            MPI_REPLACE
//   sdc_split            SDC owner                  MPI_REPLACE
//   sdc_itail            SDC thieves                MPI_SUM
//   inbox_posted         senders of completions     MPI_SUM (completions ever sent here)
//   regions_done         every rank (rank 0's word) MPI_SUM (termination count)
//   inbox_seq[r][i]      rank r's sender of ticket t MPI_REPLACE (t + 1)
//   inbox_consumed[r]    owner                      MPI_REPLACE (entries of lane r applied)
//   inbox_lane_posted[r] rank r's senders           MPI_SUM (completions r ever sent here)
//   doorbell             requesters and senders     MPI_SUM (requests queued and mailbox batches sent here)
//   requests[r]          thief rank r               MPI_SUM (requests r ever queued here)
//   board[r]             rank r (node leaders' only) MPI_REPLACE (r's advertised load)
//   mail_reserved        senders of tasks           MPI_SUM (ticket)
//   mail_consumed        owner                      MPI_REPLACE
//   mail_seq[i]          sender of ticket t         MPI_REPLACE (t + 1, first entry of a batch)
//   answer_seq[r]        rank r (success-only)      MPI_REPLACE (answers r sent here << 32 | tasks in the last)
// Answer area [r] (a 16-byte MailHeader, then answer_slots task slots) is
// written by rank r alone, with MPI_Put, while this process's request at r
// is open (rma/answer_slots.hpp).
// Everything is read with MPI_NO_OP fetches. Task slots and inbox entries are
// plain bytes written by MPI_Put and read by MPI_Get; the protocol words
// order them (a slot is read only after the word that publishes it).
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace heist::rma {

struct WindowLayout {
  static constexpr MPI_Aint kStealval = 0;
  static constexpr MPI_Aint kSwsCompleted = 8;  // 2 words
  static constexpr MPI_Aint kSdcLock = 24;
  static constexpr MPI_Aint kSdcTail = 32;
  static constexpr MPI_Aint kSdcSplit = 40;  // right after tail: one NO_OP fetch reads both
  static constexpr MPI_Aint kSdcItail = 48;
  static constexpr MPI_Aint kInboxPosted = 56;
  // The words a poll looks at, stealval to inbox_posted: SwsQueue::dry
  // reads them with one NO_OP fetch (atomic per word) and hands the inbox's
  // count to the poll's drain, which then skips its own read.
  static constexpr int kPollWords = static_cast<int>(kInboxPosted / 8) + 1;
  static constexpr MPI_Aint kRegionsDone = 72;
  static constexpr MPI_Aint kHeaderBytes = 128;

  // inbox_lane_slots: the entries of each sender's lane (lane_slots_for).
  WindowLayout(std::size_t ring_slots, std::size_t stride, std::size_t inbox_lane_slots, std::size_t inbox_entry,
               std::size_t ranks = 0, std::size_t mailbox_slots = 0, std::size_t answer_slots = 0)
      : ring_slots(ring_slots),
        stride(stride),
        inbox_lane_slots(inbox_lane_slots),
        inbox_entry(inbox_entry),
        ranks(ranks),
        mailbox_slots(mailbox_slots),
        mailbox_entry(kMailHeader + stride),
        answer_slots(answer_slots) {}

  // Locality (success-only requests, advertised loads, the task mailbox):
  // after everything above, so the protocols' offsets do not move.
  static constexpr MPI_Aint kMailHeader = 16;  // bytes before each mailbox slot
  MPI_Aint doorbell() const noexcept { return locality_base(); }
  MPI_Aint mail_reserved() const noexcept { return locality_base() + 8; }
  MPI_Aint mail_consumed() const noexcept { return locality_base() + 16; }
  MPI_Aint requests(int rank) const noexcept { return locality_base() + 64 + 8 * static_cast<MPI_Aint>(rank); }
  MPI_Aint board(int rank) const noexcept { return requests(static_cast<int>(ranks)) + 8 * static_cast<MPI_Aint>(rank); }
  MPI_Aint mail_seq(std::uint64_t ticket) const noexcept {
    return board(static_cast<int>(ranks)) + static_cast<MPI_Aint>((ticket % mailbox_slots) * 8);
  }
  MPI_Aint mail_entry(std::uint64_t ticket) const noexcept {
    return mail_base() + static_cast<MPI_Aint>((ticket % mailbox_slots) * mailbox_entry);
  }

  // The completion inbox has one lane per sending rank (its own included,
  // unused): `inbox_slots` entries in all (--inbox-slots), shared out, but
  // never fewer than min(inbox_slots, 8) a lane.
  static std::size_t lane_slots_for(std::size_t inbox_slots, std::size_t ranks) noexcept {
    return std::max(std::min<std::size_t>(inbox_slots, 8), inbox_slots / std::max<std::size_t>(ranks, 1));
  }
  std::size_t inbox_lanes() const noexcept { return std::max<std::size_t>(ranks, 1); }
  MPI_Aint inbox_seq(int lane, std::uint64_t ticket) const noexcept {
    return kHeaderBytes + static_cast<MPI_Aint>(lane_index(lane, ticket) * 8);
  }
  MPI_Aint inbox_consumed(int lane) const noexcept {
    return kHeaderBytes + static_cast<MPI_Aint>((inbox_lanes() * inbox_lane_slots + static_cast<std::size_t>(lane)) * 8);
  }
  MPI_Aint inbox_lane_posted(int lane) const noexcept {
    return inbox_consumed(static_cast<int>(inbox_lanes())) + 8 * static_cast<MPI_Aint>(lane);
  }
  MPI_Aint ring_slot(std::uint64_t index) const noexcept {
    return ring_base() + static_cast<MPI_Aint>((index % ring_slots) * stride);
  }
  MPI_Aint inbox_entry_at(int lane, std::uint64_t ticket) const noexcept {
    return inbox_base() + static_cast<MPI_Aint>(lane_index(lane, ticket) * inbox_entry);
  }
  // Success-only answers (answer_slots > 0): rank r's answer count, and its area.
  MPI_Aint answer_seq(int rank) const noexcept { return answers_base() + 8 * static_cast<MPI_Aint>(rank); }
  MPI_Aint answer_area(int rank) const noexcept {
    return areas_base() + static_cast<MPI_Aint>(static_cast<std::size_t>(rank) * answer_area_bytes());
  }
  std::size_t answer_area_bytes() const noexcept { return (kMailHeader + answer_slots * stride + 63) / 64 * 64; }
  std::size_t bytes() const noexcept {
    if (answer_slots == 0) return static_cast<std::size_t>(answers_base());
    return static_cast<std::size_t>(areas_base()) + ranks * answer_area_bytes();
  }

  std::size_t ring_slots;
  std::size_t stride;
  std::size_t inbox_lane_slots;
  std::size_t inbox_entry;
  std::size_t ranks;
  std::size_t mailbox_slots;
  std::size_t mailbox_entry;
  std::size_t answer_slots;  // tasks per answer area; 0: none (no success-only)

 private:
  MPI_Aint locality_base() const noexcept {
    const auto end = static_cast<MPI_Aint>(static_cast<std::size_t>(inbox_base()) +
                                           inbox_lanes() * inbox_lane_slots * inbox_entry);
    return (end + 63) / 64 * 64;
  }
  MPI_Aint mail_base() const noexcept {
    return board(static_cast<int>(ranks)) + static_cast<MPI_Aint>(mailbox_slots * 8);
  }
  MPI_Aint answers_base() const noexcept {
    return mail_base() + static_cast<MPI_Aint>(mailbox_slots * mailbox_entry);
  }
  MPI_Aint areas_base() const noexcept {
    return (answers_base() + 8 * static_cast<MPI_Aint>(ranks) + 63) / 64 * 64;
  }
  std::size_t lane_index(int lane, std::uint64_t ticket) const noexcept {
    return static_cast<std::size_t>(lane) * inbox_lane_slots + static_cast<std::size_t>(ticket % inbox_lane_slots);
  }
  MPI_Aint ring_base() const noexcept { return (inbox_lane_posted(static_cast<int>(inbox_lanes())) + 63) / 64 * 64; }
  MPI_Aint inbox_base() const noexcept { return ring_base() + static_cast<MPI_Aint>(ring_slots * stride); }
};

}  // namespace heist::rma
