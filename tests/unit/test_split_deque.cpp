// White-box tests of SplitDeque (src/sched/split_deque.hpp), single-threaded:
// owner LIFO order, release/acquire of the split point, growth, index reset
// and compaction, and how many tasks a thief takes under each ChunkPolicy.
// Every slot carries a unique 64-bit id in its payload (and the low 32 bits
// in the header's fn_id), so a test sees exactly which tasks moved where.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <vector>

#include "policy/chunk_policy.hpp"
#include "sched/split_deque.hpp"
#include "task/task_slot.hpp"

namespace {

// Stolen slots that did not fit the thief's deque (none in these tests
// unless a test says so).
thread_local std::vector<std::byte> overflow_sink;

using heist::ChunkSpec;
using heist::policy::ChunkPolicy;
using heist::sched::SplitDeque;
namespace task = heist::task;

constexpr std::size_t kStride = task::slot_stride(16);  // 64 bytes

SplitDeque make_deque(std::size_t initial, std::size_t max = std::size_t{1} << 20) {
  return SplitDeque(kStride, initial, max);
}

bool push(SplitDeque& d, std::uint64_t id, std::uint16_t flags = 0, std::uint16_t depth = 0) {
  std::byte* s = d.begin_push();
  if (s == nullptr) return false;
  std::memset(s, 0, kStride);
  task::TaskHeader* h = task::header(s);
  h->fn_id = static_cast<std::uint32_t>(id);
  h->flags = flags;
  h->depth = depth;
  h->in_size = sizeof id;
  std::memcpy(task::payload(s), &id, sizeof id);
  d.end_push();
  return true;
}

// The id of the popped slot; nullopt when pop() found nothing. Fails the test
// if the slot's header and payload disagree (torn or misplaced slot).
std::optional<std::uint64_t> pop(SplitDeque& d) {
  const std::byte* slot = d.pop();
  if (slot == nullptr) return std::nullopt;
  std::uint64_t id;
  std::memcpy(&id, task::payload(slot), sizeof id);
  EXPECT_EQ(task::header(slot)->in_size, sizeof id);
  EXPECT_EQ(task::header(slot)->fn_id, static_cast<std::uint32_t>(id));
  return id;
}

std::vector<std::uint64_t> drain(SplitDeque& d) {
  std::vector<std::uint64_t> out;
  while (auto id = pop(d)) out.push_back(*id);
  return out;
}

ChunkPolicy fixed(std::uint32_t k) { return ChunkPolicy(ChunkSpec{ChunkSpec::Kind::fixed, k}); }
ChunkPolicy half() { return ChunkPolicy(ChunkSpec{ChunkSpec::Kind::half, 0}); }

TEST(SplitDeque, OwnerPushPopIsLifo) {
  SplitDeque d = make_deque(64);
  EXPECT_EQ(d.size(), 0u);
  EXPECT_FALSE(pop(d).has_value());
  for (std::uint64_t i = 0; i < 10; ++i) ASSERT_TRUE(push(d, 1000 + i));
  EXPECT_EQ(d.size(), 10u);
  EXPECT_EQ(d.private_size(), 10u);
  EXPECT_EQ(d.public_size(), 0u);
  for (std::uint64_t i = 10; i-- > 0;) {
    auto id = pop(d);
    ASSERT_TRUE(id.has_value());
    EXPECT_EQ(*id, 1000 + i);
  }
  EXPECT_FALSE(pop(d).has_value());
  EXPECT_EQ(d.size(), 0u);
  EXPECT_EQ(d.releases(), 0u);
  EXPECT_EQ(d.acquires(), 0u);
}

// migratable_pushed() counts the pushes of tasks that may leave the
// process, own pushes and steals into the deque alike, and nothing else;
// any_of() sees public and private tasks. WorkerQueue::take_oldest relies on
// both to look at a deque of local-only tasks once, not at every poll.
TEST(SplitDeque, CountsPushesOfTasksThatMayLeave) {
  SplitDeque d = make_deque(64);
  const auto local_only = [](const std::byte* s) { return (task::header(s)->flags & task::kLocalOnly) != 0; };
  for (std::uint64_t i = 0; i < 6; ++i) ASSERT_TRUE(push(d, i, i % 2 == 1 ? task::kLocalOnly : 0));
  EXPECT_EQ(d.migratable_pushed(), 3u);  // ids 0, 2, 4
  EXPECT_TRUE(d.any_of(local_only));

  SplitDeque locals = make_deque(64);
  for (std::uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(push(locals, i, task::kLocalOnly));
  EXPECT_EQ(locals.migratable_pushed(), 0u);
  EXPECT_FALSE(locals.any_of([](const std::byte* s) { return task::may_migrate(*task::header(s)); }));
  locals.release();
  EXPECT_EQ(locals.public_size(), 2u);
  EXPECT_TRUE(locals.any_of(local_only));  // public and private alike

  // Steals into a deque count what they bring: of d's 3 oldest (ids 0, 1,
  // 2) the two that may leave; of locals' tasks, none.
  SplitDeque thief = make_deque(64);
  d.release();
  ASSERT_EQ(d.steal_into(thief, fixed(3), overflow_sink), 3u);
  EXPECT_EQ(thief.migratable_pushed(), 2u);
  ASSERT_EQ(locals.steal_into(thief, fixed(2), overflow_sink), 2u);
  EXPECT_EQ(thief.migratable_pushed(), 2u);
}

TEST(SplitDeque, InterleavedPushPopKeepsLifo) {
  SplitDeque d = make_deque(4);
  std::vector<std::uint64_t> model;  // a stack
  std::uint64_t next = 0;
  for (int round = 0; round < 200; ++round) {
    for (int i = 0; i < round % 7 + 1; ++i) {
      ASSERT_TRUE(push(d, next));
      model.push_back(next++);
    }
    for (int i = 0; i < round % 5; ++i) {
      auto id = pop(d);
      if (model.empty()) {
        EXPECT_FALSE(id.has_value());
        continue;
      }
      ASSERT_TRUE(id.has_value());
      EXPECT_EQ(*id, model.back());
      model.pop_back();
    }
    ASSERT_EQ(d.size(), model.size());
  }
  while (!model.empty()) {
    EXPECT_EQ(pop(d), model.back());
    model.pop_back();
  }
  EXPECT_FALSE(pop(d).has_value());
}

TEST(SplitDeque, ReleasePublishesOlderHalfOfPrivatePart) {
  SplitDeque d = make_deque(64);
  d.release();  // nothing private: no-op
  EXPECT_EQ(d.releases(), 0u);
  for (std::uint64_t i = 0; i < 10; ++i) push(d, i);
  d.release();  // (10 + 1) / 2 = 5
  EXPECT_EQ(d.public_size(), 5u);
  EXPECT_EQ(d.private_size(), 5u);
  EXPECT_EQ(d.size(), 10u);
  EXPECT_EQ(d.releases(), 1u);
  d.release();  // (5 + 1) / 2 = 3
  EXPECT_EQ(d.public_size(), 8u);
  EXPECT_EQ(d.private_size(), 2u);
  EXPECT_EQ(d.releases(), 2u);
  // The public part is the old end: a thief taking one gets id 0.
  SplitDeque thief = make_deque(64);
  EXPECT_EQ(d.steal_into(thief, fixed(1), overflow_sink), 1u);
  EXPECT_EQ(pop(thief), 0u);
}

TEST(SplitDeque, AcquireTakesBackNewerHalfOfPublicPart) {
  SplitDeque d = make_deque(64);
  for (std::uint64_t i = 0; i < 10; ++i) push(d, i);
  d.release();  // public [0, 5), private [5, 10)
  ASSERT_EQ(d.public_size(), 5u);
  // Private first, newest first.
  for (std::uint64_t i = 10; i-- > 5;) EXPECT_EQ(pop(d), i);
  EXPECT_EQ(d.acquires(), 0u);
  // Private empty: acquire keeps floor(5 / 2) = 2 public, takes back [2, 5).
  EXPECT_EQ(pop(d), 4u);
  EXPECT_EQ(d.acquires(), 1u);
  EXPECT_EQ(d.public_size(), 2u);
  EXPECT_EQ(pop(d), 3u);
  EXPECT_EQ(pop(d), 2u);
  // [0, 2): keeps 1, takes back [1, 2).
  EXPECT_EQ(pop(d), 1u);
  EXPECT_EQ(d.acquires(), 2u);
  EXPECT_EQ(d.public_size(), 1u);
  // [0, 1): keeps 0, takes back the last one.
  EXPECT_EQ(pop(d), 0u);
  EXPECT_EQ(d.acquires(), 3u);
  EXPECT_EQ(d.public_size(), 0u);
  EXPECT_FALSE(pop(d).has_value());
}

TEST(SplitDeque, StealTakesOldestTasksFirst) {
  SplitDeque d = make_deque(64);
  SplitDeque thief = make_deque(64);
  for (std::uint64_t i = 0; i < 10; ++i) push(d, i);
  d.release();  // public: ids 0..4
  EXPECT_EQ(d.steal_into(thief, fixed(2), overflow_sink), 2u);  // ids 0, 1
  EXPECT_EQ(d.public_size(), 3u);
  EXPECT_EQ(d.size(), 8u);
  EXPECT_EQ(thief.size(), 2u);
  EXPECT_EQ(d.steal_into(thief, fixed(100), overflow_sink), 3u);  // capped: ids 2, 3, 4
  EXPECT_EQ(d.public_size(), 0u);
  EXPECT_EQ(thief.size(), 5u);
  // The thief's deque received them in order, so it pops them newest first.
  EXPECT_EQ(drain(thief), (std::vector<std::uint64_t>{4, 3, 2, 1, 0}));
  // The owner still has its private part.
  EXPECT_EQ(drain(d), (std::vector<std::uint64_t>{9, 8, 7, 6, 5}));
}

// Take counts from a queue whose 150 tasks are all public.
std::vector<std::uint32_t> steal_counts(const ChunkPolicy& chunk, std::vector<std::uint64_t>* stolen_ids) {
  SplitDeque d = make_deque(16);
  for (std::uint64_t i = 0; i < 300; ++i) push(d, i);
  d.release();  // (300 + 1) / 2 = 150 public: ids 0..149
  EXPECT_EQ(d.public_size(), 150u);
  std::vector<std::uint32_t> counts;
  for (;;) {
    SplitDeque thief = make_deque(4);
    const std::uint32_t k = d.steal_into(thief, chunk, overflow_sink);
    if (k == 0) break;
    counts.push_back(k);
    EXPECT_EQ(thief.size(), k);
    std::vector<std::uint64_t> ids = drain(thief);
    for (auto it = ids.rbegin(); it != ids.rend(); ++it) stolen_ids->push_back(*it);
  }
  EXPECT_EQ(d.public_size(), 0u);
  EXPECT_EQ(d.size(), 150u);  // the private half is untouched
  return counts;
}

TEST(SplitDeque, StealHalfTakesHalfOfWhatIsPublic) {
  std::vector<std::uint64_t> ids;
  const auto counts = steal_counts(half(), &ids);
  // 150 -> 75, 37, 19, 9, 5, 2, 1, 1, 1 (the SWS paper's steal-half sequence).
  EXPECT_EQ(counts, (std::vector<std::uint32_t>{75, 37, 19, 9, 5, 2, 1, 1, 1}));
  ASSERT_EQ(ids.size(), 150u);
  for (std::uint64_t i = 0; i < 150; ++i) EXPECT_EQ(ids[i], i);  // FIFO from the old end
}

TEST(SplitDeque, StealFixedTakesKCapped) {
  std::vector<std::uint64_t> ids;
  const auto counts = steal_counts(fixed(4), &ids);
  std::vector<std::uint32_t> expected(37, 4);
  expected.push_back(2);
  EXPECT_EQ(counts, expected);
  ASSERT_EQ(ids.size(), 150u);
  for (std::uint64_t i = 0; i < 150; ++i) EXPECT_EQ(ids[i], i);

  ids.clear();
  EXPECT_EQ(steal_counts(fixed(1), &ids), std::vector<std::uint32_t>(150, 1));
  ids.clear();
  EXPECT_EQ(steal_counts(fixed(1000), &ids), std::vector<std::uint32_t>{150});
}

TEST(SplitDeque, ChunkPolicyTake) {
  EXPECT_EQ(half().take(1), 1u);
  EXPECT_EQ(half().take(2), 1u);
  EXPECT_EQ(half().take(3), 1u);
  EXPECT_EQ(half().take(150), 75u);
  EXPECT_EQ(half().take(151), 75u);
  EXPECT_EQ(fixed(3).take(2), 2u);
  EXPECT_EQ(fixed(3).take(7), 3u);
}

TEST(SplitDeque, FailedStealAsksOwnerToRelease) {
  SplitDeque d = make_deque(64);
  SplitDeque thief = make_deque(64);
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 0u);  // empty: flags `wanted`
  push(d, 0);  // end_push sees the flag: releases (1 + 1) / 2 = 1
  EXPECT_EQ(d.releases(), 1u);
  EXPECT_EQ(d.public_size(), 1u);
  push(d, 1);  // flag cleared by the release: stays private
  push(d, 2);
  EXPECT_EQ(d.releases(), 1u);
  EXPECT_EQ(d.public_size(), 1u);
  EXPECT_EQ(d.private_size(), 2u);
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 1u);
  EXPECT_EQ(pop(thief), 0u);
  // Nothing public again: the flag is set, and the owner's next pop releases.
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 0u);
  EXPECT_EQ(pop(d), 2u);  // after popping 2, one private task (id 1) is left: released
  EXPECT_EQ(d.releases(), 2u);
  EXPECT_EQ(d.public_size(), 1u);
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 1u);
  EXPECT_EQ(pop(thief), 1u);
  EXPECT_FALSE(pop(d).has_value());
}

// A queue_public spawn publishes one task, the oldest private one, and
// leaves a thief's request for release() to answer with half.
TEST(SplitDeque, PublishOneMakesTheOldestPrivateTaskPublic) {
  SplitDeque d = make_deque(64);
  SplitDeque thief = make_deque(64);
  d.publish_one();  // nothing private: nothing happens
  EXPECT_EQ(d.releases(), 0u);
  for (std::uint64_t i = 0; i < 6; ++i) push(d, i);
  d.publish_one();
  EXPECT_EQ(d.public_size(), 1u);
  EXPECT_EQ(d.private_size(), 5u);
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 1u);
  EXPECT_EQ(pop(thief), 0u) << "the oldest";
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 0u);  // flags `wanted`
  d.publish_one();
  EXPECT_TRUE(d.wanted()) << "the request stays for release()";
  EXPECT_EQ(d.public_size(), 1u);
  EXPECT_EQ(pop(d), 5u);  // the pop answers the request: half of the 3 private left
  EXPECT_FALSE(d.wanted());
  EXPECT_EQ(d.public_size(), 3u);
  EXPECT_EQ(d.private_size(), 1u);
}

TEST(SplitDeque, GrowsPastInitialCapacity) {
  SplitDeque d = make_deque(4);
  EXPECT_EQ(d.capacity(), 4u);
  for (std::uint64_t i = 0; i < 1000; ++i) ASSERT_TRUE(push(d, i));
  EXPECT_EQ(d.capacity(), 1024u);
  EXPECT_EQ(d.size(), 1000u);
  for (std::uint64_t i = 1000; i-- > 0;) ASSERT_EQ(pop(d), i);
  EXPECT_FALSE(pop(d).has_value());
}

TEST(SplitDeque, GrowthWithdrawsPublicTasksAndKeepsThemAll) {
  SplitDeque d = make_deque(4);
  SplitDeque thief = make_deque(4);
  for (std::uint64_t i = 0; i < 4; ++i) push(d, i);
  d.release();  // public: 0, 1
  ASSERT_EQ(d.public_size(), 2u);
  push(d, 4);  // full, nothing claimed: withdraw the public part and grow
  EXPECT_EQ(d.capacity(), 8u);
  EXPECT_EQ(d.public_size(), 0u);
  EXPECT_EQ(d.steal_into(thief, half(), overflow_sink), 0u);
  EXPECT_EQ(drain(d), (std::vector<std::uint64_t>{4, 3, 2, 1, 0}));
}

TEST(SplitDeque, StopsAtMaximumCapacity) {
  SplitDeque d = make_deque(4, 8);
  for (std::uint64_t i = 0; i < 8; ++i) ASSERT_TRUE(push(d, i));
  EXPECT_EQ(d.begin_push(), nullptr);
  EXPECT_EQ(d.capacity(), 8u);
  EXPECT_EQ(pop(d), 7u);
  EXPECT_TRUE(push(d, 8));  // room again
  EXPECT_EQ(d.begin_push(), nullptr);
  EXPECT_EQ(drain(d), (std::vector<std::uint64_t>{8, 6, 5, 4, 3, 2, 1, 0}));
}

TEST(SplitDeque, IndicesResetWhenEmpty) {
  // Without a reset, 100 rounds of 4 pushes would need a capacity of 400.
  SplitDeque d = make_deque(4);
  for (std::uint64_t round = 0; round < 100; ++round) {
    for (std::uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(push(d, round * 4 + i));
    for (std::uint64_t i = 4; i-- > 0;) ASSERT_EQ(pop(d), round * 4 + i);
    EXPECT_FALSE(pop(d).has_value());  // the empty pop resets the indices
  }
  EXPECT_EQ(d.capacity(), 4u);
}

TEST(SplitDeque, IndicesResetAfterStealsOnceCopied) {
  SplitDeque d = make_deque(4);
  SplitDeque thief = make_deque(4);
  std::uint64_t next = 0;
  for (int round = 0; round < 100; ++round) {
    const std::uint64_t base = next;
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(push(d, next++));
    d.release();  // public: base, base + 1
    ASSERT_EQ(d.steal_into(thief, fixed(2), overflow_sink), 2u);
    EXPECT_EQ(pop(d), base + 3);
    EXPECT_EQ(pop(d), base + 2);
    EXPECT_FALSE(pop(d).has_value());  // tail == split == head == 2, all copied: reset
    EXPECT_EQ(pop(thief), base + 1);
    EXPECT_EQ(pop(thief), base);
    EXPECT_FALSE(pop(thief).has_value());
  }
  EXPECT_EQ(d.capacity(), 4u);
  EXPECT_EQ(thief.capacity(), 4u);
}

TEST(SplitDeque, CompactsInsteadOfGrowingWhenThievesLeftRoom) {
  SplitDeque d = make_deque(8);
  SplitDeque thief = make_deque(8);
  for (std::uint64_t i = 0; i < 8; ++i) push(d, i);
  d.release();  // public: 0..3
  ASSERT_EQ(d.steal_into(thief, fixed(4), overflow_sink), 4u);
  // Full (head == 8) with tail == 4: four live tasks fit in half the array,
  // so the next push slides them down instead of growing.
  ASSERT_TRUE(push(d, 8));
  EXPECT_EQ(d.capacity(), 8u);
  EXPECT_EQ(d.size(), 5u);
  for (std::uint64_t i = 9; i < 12; ++i) ASSERT_TRUE(push(d, i));
  EXPECT_EQ(d.capacity(), 8u);
  EXPECT_EQ(drain(d), (std::vector<std::uint64_t>{11, 10, 9, 8, 7, 6, 5, 4}));
  EXPECT_EQ(drain(thief), (std::vector<std::uint64_t>{3, 2, 1, 0}));
}

TEST(SplitDeque, PublicTasksSurviveCompactionAndCanBeStolen) {
  SplitDeque d = make_deque(8);
  SplitDeque thief = make_deque(8);
  std::vector<int> seen(64, 0);
  std::uint64_t next = 0;
  for (int round = 0; round < 6; ++round) {
    while (d.size() < 8 && next < 64) ASSERT_TRUE(push(d, next++));
    d.release();
    while (d.steal_into(thief, half(), overflow_sink) > 0) {
    }
    while (auto id = pop(thief)) ++seen[*id];
  }
  while (auto id = pop(d)) ++seen[*id];
  while (next < 64) {
    push(d, next++);
    ++seen[*pop(d)];
  }
  for (int i = 0; i < 64; ++i) EXPECT_EQ(seen[i], 1) << "id " << i;
}

// A waiter's help floor (policy/help_floor.hpp): it claims a chunk only if
// the oldest public task is deeper than its floor, and otherwise leaves the
// deque as it was — no claim, no `wanted` flag (what a release would add is
// newer, and claims start at the oldest).
TEST(SplitDeque, AFloorLeavesAChunkWhoseOldestTaskIsNotDeeper) {
  SplitDeque d = make_deque(64);
  SplitDeque thief = make_deque(64);
  for (std::uint64_t i = 0; i < 10; ++i) push(d, i, 0, static_cast<std::uint16_t>(i / 2));  // depths 0 0 1 1 2 ...
  d.release();  // public: ids 0..4, depths 0 0 1 1 2
  bool refused = false;
  EXPECT_EQ(d.steal_into(thief, fixed(2), overflow_sink, heist::policy::Level::process, 0, &refused), 0u);
  EXPECT_TRUE(refused);
  EXPECT_EQ(d.public_size(), 5u);
  EXPECT_FALSE(d.wanted());
  refused = false;
  EXPECT_EQ(d.steal_into(thief, fixed(2), overflow_sink, heist::policy::Level::process, heist::policy::kNoFloor,
                         &refused), 2u);  // ids 0, 1
  EXPECT_FALSE(refused);
  EXPECT_EQ(d.steal_into(thief, fixed(1), overflow_sink, heist::policy::Level::process, 1, &refused), 0u);
  EXPECT_TRUE(refused);  // oldest is id 2, depth 1
  refused = false;
  EXPECT_EQ(d.steal_into(thief, fixed(1), overflow_sink, heist::policy::Level::process, 0, &refused), 1u);  // id 2
  EXPECT_FALSE(refused);
  // The thief's deque keeps the depths of what it copied: ids 0, 1 (depth 0), 2 (depth 1).
  thief.release_all();
  SplitDeque third = make_deque(64);
  EXPECT_EQ(thief.steal_into(third, fixed(1), overflow_sink, heist::policy::Level::process, 0), 0u);
  EXPECT_EQ(thief.steal_into(third, fixed(2), overflow_sink), 2u);
  EXPECT_EQ(thief.steal_into(third, fixed(1), overflow_sink, heist::policy::Level::process, 0), 1u);
  EXPECT_EQ(drain(third), (std::vector<std::uint64_t>{2, 1, 0}));
}

// The depths move with their slots when the owner compacts or grows.
TEST(SplitDeque, DepthsFollowTheirSlotsThroughCompactionAndGrowth) {
  SplitDeque d = make_deque(8);
  SplitDeque thief = make_deque(64);
  for (std::uint64_t i = 0; i < 8; ++i) push(d, i, 0, static_cast<std::uint16_t>(10 + i));
  d.release();  // public: 0..3
  ASSERT_EQ(d.steal_into(thief, fixed(4), overflow_sink), 4u);
  ASSERT_TRUE(push(d, 8, 0, 18));  // compacts: ids 4..8 at indices 0..4
  ASSERT_EQ(d.capacity(), 8u);
  for (std::uint64_t i = 9; i < 20; ++i) ASSERT_TRUE(push(d, i, 0, static_cast<std::uint16_t>(10 + i)));  // grows
  ASSERT_GT(d.capacity(), 8u);
  d.release_all();
  for (std::uint64_t id = 4; id < 20; ++id) {
    const auto depth = static_cast<std::int64_t>(10 + id);
    EXPECT_EQ(d.steal_into(thief, fixed(1), overflow_sink, heist::policy::Level::process, depth), 0u) << id;
    ASSERT_EQ(d.steal_into(thief, fixed(1), overflow_sink, heist::policy::Level::process, depth - 1), 1u) << id;
  }
  EXPECT_EQ(d.size(), 0u);
}

TEST(SplitDeque, PopReturnsTheSlotInPlaceUntilTheNextPush) {
  // pop() copies nothing: the task's bytes are read where they were pushed,
  // and the owner's next push may reuse that index (Executor::execute
  // copies what it needs before a body can spawn).
  SplitDeque d = make_deque(4);
  push(d, 76);
  push(d, 77);
  const std::byte* first = d.pop();
  ASSERT_NE(first, nullptr);
  std::uint64_t id;
  std::memcpy(&id, task::payload(first), sizeof id);
  EXPECT_EQ(id, 77u);
  push(d, 78);  // the index just popped
  std::memcpy(&id, task::payload(first), sizeof id);
  EXPECT_EQ(id, 78u);
  EXPECT_EQ(d.pop(), first);
  EXPECT_EQ(pop(d), 76u);
  EXPECT_EQ(d.pop(), nullptr);
}

TEST(SplitDeque, RejectsBadStride) {
  EXPECT_THROW(SplitDeque(40, 4, 8), std::invalid_argument);
  EXPECT_THROW(SplitDeque(kStride, 4, std::size_t{1} << 33), std::invalid_argument);
}

}  // namespace

namespace {

TEST(SplitDequeTest, StealIntoAFullThiefDequeKeepsEveryClaimedTask) {
  SplitDeque d = make_deque(8);
  for (std::uint64_t id = 0; id < 6; ++id) ASSERT_TRUE(push(d, id));
  d.release();  // 3 public
  d.release();  // 2 more
  SplitDeque thief(kStride, 2, 2);  // holds at most 2
  overflow_sink.clear();
  ASSERT_EQ(d.steal_into(thief, ChunkPolicy(ChunkSpec{ChunkSpec::Kind::fixed, 4}), overflow_sink), 4u);
  EXPECT_EQ(thief.size(), 2u);
  ASSERT_EQ(overflow_sink.size(), 2 * kStride);  // the other two, whole slots
  std::vector<std::uint64_t> ids;
  for (std::size_t at = 0; at < overflow_sink.size(); at += kStride) {
    std::uint64_t id;
    std::memcpy(&id, task::payload(overflow_sink.data() + at), sizeof id);
    ids.push_back(id);
  }
  EXPECT_EQ(ids, (std::vector<std::uint64_t>{2, 3}));
  overflow_sink.clear();
}

}  // namespace
