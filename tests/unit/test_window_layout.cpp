// The window layout (src/rma/window_layout.hpp): every word and entry has a
// place of its own, so no two protocols (or two lanes of the completion
// inbox) ever write the same bytes, and the inbox lanes are sized as
// --inbox-slots promises.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "rma/window_layout.hpp"

namespace {

using heist::rma::WindowLayout;
using Span = std::pair<MPI_Aint, MPI_Aint>;  // [begin, end) bytes

TEST(WindowLayout, LanesShareTheInboxButKeepAFloor) {
  EXPECT_EQ(WindowLayout::lane_slots_for(1024, 2), 512u);
  EXPECT_EQ(WindowLayout::lane_slots_for(1024, 64), 16u);
  EXPECT_EQ(WindowLayout::lane_slots_for(1024, 1024), 8u);  // the floor
  EXPECT_EQ(WindowLayout::lane_slots_for(4, 2), 4u);        // a small inbox: every lane gets it all
  EXPECT_EQ(WindowLayout::lane_slots_for(1, 3), 1u);
  EXPECT_EQ(WindowLayout::lane_slots_for(100, 0), 100u);  // no ranks given: one lane
}

TEST(WindowLayout, EveryWordAndEntryHasItsOwnBytes) {
  const std::size_t ranks = 3, lane_slots = 4, entry = 48, ring = 8, stride = 64, mail = 16, answers = 2;
  const WindowLayout l(ring, stride, lane_slots, entry, ranks, mail, answers);
  std::vector<Span> spans;
  auto word = [&](MPI_Aint at) { spans.emplace_back(at, at + 8); };
  for (MPI_Aint w : {WindowLayout::kStealval, WindowLayout::kSwsCompleted, WindowLayout::kSwsCompleted + 8,
                     WindowLayout::kSdcTail, WindowLayout::kSdcSplit, WindowLayout::kSdcItail,
                     WindowLayout::kInboxPosted, WindowLayout::kRegionsDone})
    word(w);
  spans.emplace_back(WindowLayout::kSdcLock, WindowLayout::kSdcLock + 4);
  for (int lane = 0; lane < static_cast<int>(ranks); ++lane) {
    for (std::uint64_t t = 0; t < lane_slots; ++t) {
      word(l.inbox_seq(lane, t));
      spans.emplace_back(l.inbox_entry_at(lane, t), l.inbox_entry_at(lane, t) + static_cast<MPI_Aint>(entry));
      // A ticket one lap on reuses its slot, in its own lane only.
      EXPECT_EQ(l.inbox_seq(lane, t + lane_slots), l.inbox_seq(lane, t));
      EXPECT_EQ(l.inbox_entry_at(lane, t + lane_slots), l.inbox_entry_at(lane, t));
    }
    word(l.inbox_consumed(lane));
    word(l.inbox_lane_posted(lane));
    word(l.requests(lane));
    word(l.board(lane));
    word(l.answer_seq(lane));
    spans.emplace_back(l.answer_area(lane), l.answer_area(lane) + static_cast<MPI_Aint>(l.answer_area_bytes()));
  }
  for (std::uint64_t i = 0; i < ring; ++i) spans.emplace_back(l.ring_slot(i), l.ring_slot(i) + static_cast<MPI_Aint>(stride));
  word(l.doorbell());
  word(l.mail_reserved());
  word(l.mail_consumed());
  for (std::uint64_t t = 0; t < mail; ++t) {
    word(l.mail_seq(t));
    spans.emplace_back(l.mail_entry(t), l.mail_entry(t) + static_cast<MPI_Aint>(l.mailbox_entry));
  }
  std::sort(spans.begin(), spans.end());
  for (std::size_t i = 1; i < spans.size(); ++i)
    EXPECT_LE(spans[i - 1].second, spans[i].first) << "bytes " << spans[i].first << " are used twice";
  EXPECT_LE(spans.back().second, static_cast<MPI_Aint>(l.bytes()));
  EXPECT_EQ(l.ring_slot(0) % 64, 0);  // the public queue starts on a cache line
}

}  // namespace

// SwsQueue::dry reads stealval and the words after it with one NO_OP fetch
// and hands the last of them to the poll's drain as the inbox's posted count.
TEST(WindowLayout, PollWordsRunFromStealvalToTheInboxCount) {
  EXPECT_EQ(WindowLayout::kStealval, 0);
  EXPECT_EQ(MPI_Aint{8} * WindowLayout::kPollWords, WindowLayout::kInboxPosted + 8);
  EXPECT_LT(WindowLayout::kSwsCompleted, WindowLayout::kInboxPosted);
  EXPECT_LE(MPI_Aint{8} * WindowLayout::kPollWords, WindowLayout::kRegionsDone);  // rank 0's vote is not read
  EXPECT_LE(MPI_Aint{8} * WindowLayout::kPollWords, WindowLayout::kHeaderBytes);
}
