#include "rma/completion_inbox.hpp"

#include <algorithm>
#include <cstring>

#include "rma/mpi_session.hpp"
#include "rma/received_checks.hpp"

namespace heist::rma {

CompletionInbox::CompletionInbox(RmaWindow& window, const WindowLayout& layout, int rank, int ranks)
    : win_(window),
      layout_(layout),
      rank_(rank),
      lanes_(static_cast<int>(layout.inbox_lanes())),
      next_(std::make_unique<std::atomic<std::uint64_t>[]>(static_cast<std::size_t>(ranks))),
      room_(static_cast<std::size_t>(ranks), layout.inbox_lane_slots, layout.inbox_consumed(rank)),
      consumed_(layout.inbox_lanes(), 0),
      posted_(layout.inbox_lanes(), 0),
      entry_(layout.inbox_entry) {}

void CompletionInbox::reject_if_invalid(const InboxEntryHeader& h) const {
  const std::string bad = check_inbox_entry(h, payload_capacity(), static_cast<std::uint32_t>(rank_));
  if (!bad.empty())
    throw DistError("heist: rank " + std::to_string(rank_) + " found in its completion inbox an entry with " + bad +
                    "; the ranks do not run the same program, or memory is corrupt");
}

void CompletionInbox::write(int target, std::uint64_t ticket, const InboxEntryHeader& header, const void* out,
                            std::string_view error, CommCounters& c) {
  if (header.out_size > payload_capacity())
    throw DistError("heist: task output of " + std::to_string(header.out_size) +
                    " bytes does not fit a completion entry");
  error = error.substr(0, payload_capacity() - header.out_size);  // a long message is cut, never dropped
  thread_local std::vector<std::byte> buffer;
  buffer.resize(sizeof header + header.out_size + error.size());
  InboxEntryHeader h = header;
  h.error_size = static_cast<std::uint32_t>(error.size());
  std::memcpy(buffer.data(), &h, sizeof h);
  if (h.out_size > 0) std::memcpy(buffer.data() + sizeof h, out, h.out_size);
  if (!error.empty()) std::memcpy(buffer.data() + sizeof h + h.out_size, error.data(), error.size());
  win_.put(target, layout_.inbox_entry_at(rank_, ticket), buffer.data(), buffer.size(), c);
  win_.flush(target, c);
  // Flushed by the caller (send), like the two counts after it.
  win_.replace(target, layout_.inbox_seq(rank_, ticket), ticket + 1, c);
  win_.add(target, layout_.inbox_lane_posted(rank_), 1, c);
  win_.add(target, WindowLayout::kInboxPosted, 1, c);
}

}  // namespace heist::rma
