// The header of one completion-inbox entry (completion_inbox.hpp): what a
// rank that ran another rank's task writes into that rank's window. Plain
// data, no MPI, so that the checks of received data (received_checks.hpp)
// and the fuzz target compile without MPI.
#pragma once

#include <cstdint>

namespace heist::rma {

struct InboxEntryHeader {
  std::uint64_t completion;  // GlobalRef bits: the FinishScope to decrement
  std::uint64_t out;         // GlobalRef bits: where the output goes (or null)
  std::uint64_t sync;        // GlobalRef bits: the task handle to complete (or null)
  std::uint32_t out_size;    // output bytes that follow
  std::uint32_t error_size;  // error-message bytes that follow the output (task threw)
  // Tasks of `completion` this entry completes: 1, or a foreign proxy's
  // report of every escaping task it ran (sched/proxy_scope.hpp), which
  // carries no output and no handle.
  std::uint32_t count = 1;
  std::uint32_t unused = 0;
};
static_assert(sizeof(InboxEntryHeader) == 40);

}  // namespace heist::rma
