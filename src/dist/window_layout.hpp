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
//   inbox_reserved       senders of completions     MPI_SUM (ticket)
//   inbox_consumed       owner                      MPI_REPLACE
//   regions_done         every rank (rank 0's word) MPI_SUM (termination count)
//   inbox_seq[i]         sender of ticket t         MPI_REPLACE (t + 1)
// Everything is read with MPI_NO_OP fetches. Task slots and inbox entries are
// plain bytes written by MPI_Put and read by MPI_Get; the protocol words
// order them (a slot is read only after the word that publishes it).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

namespace heist::dist {

struct WindowLayout {
  static constexpr MPI_Aint kStealval = 0;
  static constexpr MPI_Aint kSwsCompleted = 8;  // 2 words
  static constexpr MPI_Aint kSdcLock = 24;
  static constexpr MPI_Aint kSdcTail = 32;
  static constexpr MPI_Aint kSdcSplit = 40;  // right after tail: one NO_OP fetch reads both
  static constexpr MPI_Aint kSdcItail = 48;
  static constexpr MPI_Aint kInboxReserved = 56;
  static constexpr MPI_Aint kInboxConsumed = 64;
  static constexpr MPI_Aint kRegionsDone = 72;
  static constexpr MPI_Aint kHeaderBytes = 128;

  WindowLayout(std::size_t ring_slots, std::size_t stride, std::size_t inbox_slots, std::size_t inbox_entry)
      : ring_slots(ring_slots), stride(stride), inbox_slots(inbox_slots), inbox_entry(inbox_entry) {}

  MPI_Aint inbox_seq(std::uint64_t ticket) const noexcept {
    return kHeaderBytes + static_cast<MPI_Aint>((ticket % inbox_slots) * 8);
  }
  MPI_Aint ring_slot(std::uint64_t index) const noexcept {
    return ring_base() + static_cast<MPI_Aint>((index % ring_slots) * stride);
  }
  MPI_Aint inbox_entry_at(std::uint64_t ticket) const noexcept {
    return inbox_base() + static_cast<MPI_Aint>((ticket % inbox_slots) * inbox_entry);
  }
  std::size_t bytes() const noexcept {
    return static_cast<std::size_t>(inbox_base()) + inbox_slots * inbox_entry;
  }

  std::size_t ring_slots;
  std::size_t stride;
  std::size_t inbox_slots;
  std::size_t inbox_entry;

 private:
  MPI_Aint ring_base() const noexcept { return kHeaderBytes + static_cast<MPI_Aint>(inbox_slots * 8); }
  MPI_Aint inbox_base() const noexcept { return ring_base() + static_cast<MPI_Aint>(ring_slots * stride); }
};

}  // namespace heist::dist
