// Stress tests of SplitDeque with real threads: every task pushed is taken
// exactly once, whatever the number of thieves, the chunk policy and the
// queue size. Tasks carry a unique 64-bit id in the slot payload (and its low
// 32 bits in the header), so a lost, duplicated or torn task is caught.
//
// Two shapes:
//  * OwnerAndThieves: one owner pushes N tasks (bursts, interleaved with
//    pops and with full drains that reset the indices); 1..4 thieves steal
//    into their own deques (small initial capacity: growth and compaction
//    happen on both sides) and pop from them. Releases happen only because
//    thieves flag `wanted`, as in the runtime.
//  * AllToAll: as above, but every thief's deque is also a victim of the
//    other thieves (the runtime's pattern: each worker owns one deque and
//    steals from all others).
#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "heist_test.hpp"
#include "platform/rng.hpp"
#include "policy/chunk_policy.hpp"
#include "sched/split_deque.hpp"
#include "task/task_slot.hpp"

namespace {

// Stolen slots that did not fit the thief's deque (none in these tests
// unless a test says so).
thread_local std::vector<std::byte> overflow_sink;

using heist::ChunkSpec;
using heist::platform::Rng;
using heist::policy::ChunkPolicy;
using heist::sched::SplitDeque;
namespace task = heist::task;

constexpr std::size_t kStride = task::slot_stride(16);
constexpr std::size_t kInitialCapacity = 4;
constexpr std::size_t kMaxCapacity = std::size_t{1} << 22;

enum class Chunk { one, three, half };

ChunkPolicy make_chunk(Chunk c) {
  switch (c) {
    case Chunk::one: return ChunkPolicy(ChunkSpec{ChunkSpec::Kind::fixed, 1});
    case Chunk::three: return ChunkPolicy(ChunkSpec{ChunkSpec::Kind::fixed, 3});
    case Chunk::half: return ChunkPolicy(ChunkSpec{ChunkSpec::Kind::half, 0});
  }
  return ChunkPolicy();
}

struct Ledger {
  explicit Ledger(std::size_t n) : seen(n) {
    for (auto& s : seen) s.store(0, std::memory_order_relaxed);
  }
  std::vector<std::atomic<std::uint8_t>> seen;
  std::atomic<std::uint64_t> taken{0};
  std::atomic<std::uint64_t> corrupt{0};
  std::atomic<std::uint64_t> stolen{0};  // tasks moved by steals (reported, not asserted: it depends on timing)

  void record(const std::byte* slot) {
    std::uint64_t id;
    std::memcpy(&id, task::payload(slot), sizeof id);
    const task::TaskHeader* h = task::header(slot);
    if (id >= seen.size() || h->fn_id != static_cast<std::uint32_t>(id ^ 0x5A5A5A5Au) ||
        h->in_size != sizeof id || h->flags != static_cast<std::uint16_t>(id)) {
      corrupt.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    seen[id].fetch_add(1, std::memory_order_relaxed);
    taken.fetch_add(1, std::memory_order_release);
  }

  bool all_taken() const { return taken.load(std::memory_order_acquire) >= seen.size(); }

  void verify() const {
    EXPECT_EQ(corrupt.load(), 0u);
    EXPECT_EQ(taken.load(), seen.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < seen.size(); ++i) {
      const unsigned s = seen[i].load();
      if (s != 1 && ++bad <= 10) ADD_FAILURE() << "task " << i << " taken " << s << " times";
    }
    EXPECT_EQ(bad, 0u);
  }
};

void push_task(SplitDeque& d, std::uint64_t id) {
  std::byte* s = d.begin_push();
  ASSERT_NE(s, nullptr);
  task::TaskHeader* h = task::header(s);
  h->fn_id = static_cast<std::uint32_t>(id ^ 0x5A5A5A5Au);
  h->flags = static_cast<std::uint16_t>(id);
  h->in_size = sizeof id;
  std::memcpy(task::payload(s), &id, sizeof id);
  d.end_push();
}

// The owner: pushes bursts of 1..8 tasks, pops 0..5 after each, and every
// ~reset_every tasks drains its deque completely (index reset while thieves
// may still be copying). Ends by draining what is left.
void run_owner(SplitDeque& d, Ledger& ledger, std::uint64_t seed) {
  const std::byte* slot = nullptr;  // popped: read in place before the next push
  Rng rng(seed);
  const std::uint64_t n = ledger.seen.size();
  const std::uint64_t reset_every = 64 + rng.below(512);
  std::uint64_t next = 0, since_reset = 0;
  while (next < n) {
    const std::uint32_t burst = 1 + rng.below(8);
    for (std::uint32_t i = 0; i < burst && next < n; ++i) push_task(d, next++);
    since_reset += burst;
    const std::uint32_t pops = rng.below(6);
    for (std::uint32_t i = 0; i < pops && (slot = d.pop()) != nullptr; ++i) ledger.record(slot);
    if (since_reset >= reset_every) {
      since_reset = 0;
      while ((slot = d.pop()) != nullptr) ledger.record(slot);
    }
  }
  while ((slot = d.pop()) != nullptr) ledger.record(slot);
}

// A thief: pops its own deque, else steals from a victim, until all tasks
// have been taken.
void run_thief(SplitDeque& mine, const std::vector<SplitDeque*>& victims, Ledger& ledger, const ChunkPolicy& chunk,
               std::uint64_t seed) {
  Rng rng(seed);
  unsigned failures = 0;
  while (true) {
    if (const std::byte* slot = mine.pop()) {
      ledger.record(slot);
      continue;
    }
    if (ledger.all_taken()) break;
    SplitDeque* victim = victims[rng.below(static_cast<std::uint32_t>(victims.size()))];
    if (const std::uint32_t k = victim->steal_into(mine, chunk, overflow_sink); k > 0) {
      ledger.stolen.fetch_add(k, std::memory_order_relaxed);
      failures = 0;
      continue;
    }
    if (++failures > 16) std::this_thread::yield();
  }
}

using Case = std::tuple<int /*thieves*/, std::size_t /*tasks*/, Chunk, bool /*all_to_all*/>;

class DequeStress : public ::testing::TestWithParam<Case> {};

void run_case(const Case& c, std::uint64_t seed);

TEST_P(DequeStress, EveryTaskTakenExactlyOnce) {
  for (std::uint64_t rep = 0; rep < 8; ++rep) run_case(GetParam(), rep);
}

void run_case(const Case& c, std::uint64_t seed) {
  const auto [thieves, tasks, chunk_kind, all_to_all] = c;
  const std::size_t n = heist_test::scaled(tasks, 100);
  const ChunkPolicy chunk = make_chunk(chunk_kind);
  Ledger ledger(n);
  SplitDeque owner_deque(kStride, kInitialCapacity, kMaxCapacity);
  std::vector<std::unique_ptr<SplitDeque>> thief_deques;
  for (int t = 0; t < thieves; ++t)
    thief_deques.push_back(std::make_unique<SplitDeque>(kStride, kInitialCapacity, kMaxCapacity));

  std::vector<std::thread> threads;
  std::atomic<int> started{0};  // the owner starts when every thief is running
  for (int t = 0; t < thieves; ++t) {
    std::vector<SplitDeque*> victims{&owner_deque};
    if (all_to_all)
      for (int u = 0; u < thieves; ++u)
        if (u != t) victims.push_back(thief_deques[static_cast<std::size_t>(u)].get());
    threads.emplace_back([&, t, victims] {
      started.fetch_add(1);
      run_thief(*thief_deques[static_cast<std::size_t>(t)], victims, ledger, chunk,
                seed * 1000 + static_cast<std::uint64_t>(t));
    });
  }
  while (started.load() < thieves) std::this_thread::yield();
  run_owner(owner_deque, ledger, seed * 77 + n);
  // The owner keeps serving: tasks may sit in thieves' deques, and with
  // all-to-all the owner is done only when everything has been taken.
  for (auto& th : threads) th.join();
  ledger.verify();
  ::testing::Test::RecordProperty("stolen" + std::to_string(seed), std::to_string(ledger.stolen.load()));
  EXPECT_EQ(owner_deque.size(), 0u);
  for (auto& d : thief_deques) EXPECT_EQ(d->size(), 0u);
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  const auto [thieves, tasks, chunk, all_to_all] = info.param;
  const char* c = chunk == Chunk::one ? "k1" : chunk == Chunk::three ? "k3" : "half";
  return std::string(all_to_all ? "all_" : "owner_") + std::to_string(thieves) + "thieves_" + std::to_string(tasks) +
         "_" + c;
}

INSTANTIATE_TEST_SUITE_P(OwnerAndThieves, DequeStress,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4),
                                            ::testing::Values(std::size_t{1000}, std::size_t{10000},
                                                              std::size_t{100000}),
                                            ::testing::Values(Chunk::one, Chunk::three, Chunk::half),
                                            ::testing::Values(false)),
                         case_name);

INSTANTIATE_TEST_SUITE_P(AllToAll, DequeStress,
                         ::testing::Combine(::testing::Values(2, 4), ::testing::Values(std::size_t{100000}),
                                            ::testing::Values(Chunk::one, Chunk::half), ::testing::Values(true)),
                         case_name);

}  // namespace
