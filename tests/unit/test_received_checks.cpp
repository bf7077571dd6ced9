// Checks of data received from another rank (src/rma/received_checks.hpp):
// each kind of corruption of a task descriptor, an inbox entry, a stealval
// or SDC metadata is rejected with a message saying what is wrong, and what
// the runtime itself produces is accepted.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "rma/received_checks.hpp"
#include "policy/sws_stealval.hpp"
#include "task/task_slot.hpp"

namespace {

using heist::rma::check_inbox_entry;
using heist::rma::check_sdc_meta;
using heist::rma::check_stealval;
using heist::rma::check_task_descriptor;
using heist::rma::InboxEntryHeader;
using heist::rma::TaskShape;
using heist::rma::TaskShapeSpan;
using heist::task::GlobalRef;
using heist::task::TaskHeader;

constexpr std::size_t kStride = heist::task::slot_stride(80);
constexpr std::uint32_t kRanks = 4;
constexpr std::size_t kMaxOutput = 256;

const std::vector<TaskShape> kShapes = {{8, 8, false}, {16, 0, false}, {8, 0, true}, {4, 512, false}};

int g_object;  // some address

// A descriptor as sched::WorkerQueue::end_queue writes it: task 0, spawned on rank 2.
std::vector<std::byte> good_slot() {
  std::vector<std::byte> slot(kStride);
  TaskHeader h{};
  h.fn_id = 0;
  h.flags = heist::task::kJoined;
  h.in_size = 8;
  h.completion = GlobalRef::local(2, &g_object);
  h.ief = GlobalRef::local(2, &g_object);
  h.out = GlobalRef::local(2, &g_object);
  std::memcpy(slot.data(), &h, sizeof h);
  return slot;
}

template <class Edit>
std::string check_edited(Edit&& edit) {
  std::vector<std::byte> slot = good_slot();
  TaskHeader h;
  std::memcpy(&h, slot.data(), sizeof h);
  edit(h);
  std::memcpy(slot.data(), &h, sizeof h);
  return check_task_descriptor(slot, TaskShapeSpan(kShapes), kRanks, kMaxOutput);
}

TEST(ReceivedChecks, AcceptsWhatTheRuntimeWrites) {
  EXPECT_EQ(check_edited([](TaskHeader&) {}), "");
  EXPECT_EQ(check_edited([](TaskHeader& h) {
              h.fn_id = 1;
              h.in_size = 16;
              h.flags = 0;
              h.out = GlobalRef();  // an escaping async: no output
            }),
            "");
}

TEST(ReceivedChecks, RejectsEachCorruptionOfADescriptor) {
  const auto expect_reason = [](const std::string& got, const std::string& part) {
    EXPECT_NE(got.find(part), std::string::npos) << "got: '" << got << "', expected it to mention '" << part << "'";
  };
  expect_reason(check_edited([](TaskHeader& h) { h.fn_id = 77; }), "unknown function id 77 (this program registers 4");
  expect_reason(check_edited([](TaskHeader& h) { h.fn_id = heist::task::kClosureFn; }), "local-only closure");
  expect_reason(check_edited([](TaskHeader& h) { h.flags |= heist::task::kLocalOnly; }), "flags 0x5");
  expect_reason(check_edited([](TaskHeader& h) { h.flags = 0x80; }), "flags 0x80");
  expect_reason(check_edited([](TaskHeader& h) { h.fn_id = 2; }), "registered as process-local");
  expect_reason(check_edited([](TaskHeader& h) { h.in_size = 9; }), "9 input bytes (registered: 8)");
  expect_reason(check_edited([](TaskHeader& h) {
                  h.fn_id = 3;
                  h.in_size = 4;
                }),
                "output of 512 bytes cannot travel back");
  expect_reason(check_edited([](TaskHeader& h) { h.completion = GlobalRef(); }), "invalid completion reference");
  expect_reason(check_edited([](TaskHeader& h) { h.completion = GlobalRef::local(4, &g_object); }),
                "invalid completion reference (rank 4 of 4)");
  expect_reason(check_edited([](TaskHeader& h) { h.out = GlobalRef::local(1, &g_object); }),
                "outside the spawning rank 2");
  expect_reason(check_edited([](TaskHeader& h) { h.sync = GlobalRef::local(3, &g_object); }),
                "outside the spawning rank 2");
  // A slot too small for its header, and an input larger than the slot.
  const std::vector<std::byte> tiny(16);
  expect_reason(check_task_descriptor(tiny, TaskShapeSpan(kShapes), kRanks, kMaxOutput), "smaller than a task header");
  const std::vector<TaskShape> wide = {{200, 0, false}};
  std::vector<std::byte> slot = good_slot();
  TaskHeader h;
  std::memcpy(&h, slot.data(), sizeof h);
  h.in_size = 200;
  std::memcpy(slot.data(), &h, sizeof h);
  expect_reason(check_task_descriptor(slot, TaskShapeSpan(wide), kRanks, kMaxOutput), "larger than the slot's");
}

TEST(ReceivedChecks, InboxEntries) {
  const std::uint64_t here = GlobalRef::local(1, &g_object).bits();
  const std::uint64_t there = GlobalRef::local(2, &g_object).bits();
  EXPECT_EQ(check_inbox_entry({here, here, 0, 8, 0}, 256, 1), "");
  EXPECT_EQ(check_inbox_entry({here, 0, here, 0, 256}, 256, 1), "");
  EXPECT_NE(check_inbox_entry({0, here, 0, 8, 0}, 256, 1), "");       // null completion
  EXPECT_NE(check_inbox_entry({there, 0, 0, 0, 0}, 256, 1), "");      // another rank's scope
  EXPECT_NE(check_inbox_entry({here, there, 0, 8, 0}, 256, 1), "");   // output elsewhere
  EXPECT_NE(check_inbox_entry({here, 0, there, 0, 0}, 256, 1), "");   // handle elsewhere
  EXPECT_NE(check_inbox_entry({here, here, 0, 257, 0}, 256, 1), "");  // output too long
  EXPECT_NE(check_inbox_entry({here, here, 0, 200, 57}, 256, 1), ""); // output + error too long
  EXPECT_NE(check_inbox_entry({here, here, 0, 0xFFFFFFFFu, 2}, 256, 1), "");  // no wrap-around
  // A foreign proxy's report: many tasks, no output, no handle, maybe an error.
  EXPECT_EQ(check_inbox_entry({here, 0, 0, 0, 0, 1000}, 256, 1), "");
  EXPECT_EQ(check_inbox_entry({here, 0, 0, 0, 40, 7}, 256, 1), "");
  EXPECT_NE(check_inbox_entry({here, 0, 0, 0, 0, 0}, 256, 1), "");     // completes nothing
  EXPECT_NE(check_inbox_entry({here, here, 0, 8, 0, 2}, 256, 1), "");  // one output for two tasks
  EXPECT_NE(check_inbox_entry({here, 0, here, 0, 0, 2}, 256, 1), "");  // one handle for two tasks
}

TEST(ReceivedChecks, StealvalMustDescribeTheVictimsRing) {
  namespace sws = heist::policy::sws;
  EXPECT_EQ(check_stealval(0, 64), "");
  EXPECT_EQ(check_stealval(sws::pack({5, 1, 64, 63}), 64), "");
  EXPECT_EQ(check_stealval(sws::pack({0, 3, 10, 60}), 64), "");  // disabled: the owner's bits still describe the ring
  EXPECT_NE(check_stealval(sws::pack({0, 0, 65, 0}), 64), "");   // more tasks than slots
  EXPECT_NE(check_stealval(sws::pack({0, 0, 1, 64}), 64), "");   // start outside the ring
  EXPECT_NE(check_stealval(~std::uint64_t{0}, 4096), "");
}

TEST(ReceivedChecks, SdcMetadata) {
  EXPECT_EQ(check_sdc_meta(10, 10, 8), "");
  EXPECT_EQ(check_sdc_meta(10, 18, 8), "");
  EXPECT_NE(check_sdc_meta(11, 10, 8), "");  // tail beyond split
  EXPECT_NE(check_sdc_meta(10, 19, 8), "");  // more public tasks than slots
  EXPECT_NE(check_sdc_meta(0, ~std::uint64_t{0}, 8), "");
}

}  // namespace
