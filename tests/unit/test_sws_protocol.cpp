// Unit tests of the transport-independent steal protocols (src/policy/): the SWS
// stealval and its all-MPI_SUM addends, completion epochs and SwsSteal; the SDC
// six-step steal. Windows are plain integers, interleavings enumerated or drawn
// from a seeded RNG, and every task has an id that must be taken exactly once.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

#include "policy/sdc_queue_state.hpp"
#include "policy/sws_state_machines.hpp"
#include "policy/sws_stealval.hpp"

namespace {

using namespace heist::policy;  // the protocols' state machines
namespace policy = heist::policy;

auto steal_half = [](std::uint64_t available) { return std::max<std::uint64_t>(1, available / 2); };

// MPI_Fetch_and_op(MPI_SUM) on a plain word.
std::uint64_t fetch_add(std::uint64_t& word, std::uint64_t add) { return std::exchange(word, word + add); }

// How many times each task id was taken; each must end at exactly 1.
struct Tally {
  std::vector<int> taken;
  std::uint64_t create() { taken.push_back(0); return taken.size() - 1; }
  void take(std::uint64_t id) { ++taken.at(id); }
  bool each_once() const { return std::all_of(taken.begin(), taken.end(), [](int n) { return n == 1; }); }
};

TEST(SwsStealval, PackUnpackRoundTrips) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {  // random words: uniformly random fields
    const std::uint64_t w = rng();
    const policy::sws::Stealval v = policy::sws::unpack(w);
    ASSERT_TRUE(policy::sws::fits(v));
    ASSERT_EQ(policy::sws::pack(v), w);
    ASSERT_EQ(policy::sws::unpack(policy::sws::pack(v)), v);
  }
  EXPECT_EQ(policy::sws::pack({policy::sws::kMaxAttempts, 3, policy::sws::kMaxOffered, policy::sws::kMaxRingSlots - 1}), ~std::uint64_t{0});
  // SWS Figure 3: tail 500, 150 tasks offered, 2 steals attempted.
  EXPECT_EQ(policy::sws::pack({2, 0, 150, 500}), (std::uint64_t{2} << 40) | (std::uint64_t{150} << 19) | 500);
  EXPECT_FALSE(policy::sws::fits({0, 0, policy::sws::kMaxOffered + 1, 0}));
}

TEST(SwsStealval, StealHalfSequenceOf150) {
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t a = 0; policy::sws::steal_block(150, a).count > 0; ++a) sizes.push_back(policy::sws::steal_block(150, a).count);
  EXPECT_EQ(sizes, (std::vector<std::uint32_t>{75, 37, 19, 9, 5, 2, 1, 1, 1}));
  for (std::uint32_t a : {9u, 10u, 1000u, policy::sws::kMaxAttempts}) EXPECT_EQ(policy::sws::steal_block(150, a).count, 0u);
  const policy::sws::Claim c = policy::sws::claim_of(policy::sws::pack({2, 1, 150, 500}));  // the seed's third steal
  EXPECT_EQ(c.block, (policy::sws::Block{112, 19}));
  EXPECT_EQ(c.epoch, 1u);
  EXPECT_EQ(policy::sws::ring_slot(c.start, c.block.offset, 1024), 612u);
  EXPECT_EQ(policy::sws::ring_slot(c.start, c.block.offset, 600), 12u);  // wrapped steal
  EXPECT_FALSE(policy::sws::claim_of(policy::sws::pack({0, 2, 150, 500})).ok());  // disabled
}

TEST(SwsStealval, BlocksTileEveryOfferExactlyOnce) {
  for (std::uint32_t n = 1; n <= 5000; ++n) {
    std::uint32_t next = 0, a = 0;
    for (policy::sws::Block b; (b = policy::sws::steal_block(n, a)).count > 0; ++a) {
      ASSERT_EQ(b.offset, next) << "offer " << n << " block " << a;  // contiguous, no overlap
      ASSERT_EQ(b.count, std::max<std::uint32_t>(1, (n - next) / 2));
      next += b.count;
      ASSERT_EQ(policy::sws::claimed_tasks(n, a + 1), next);
    }
    ASSERT_EQ(next, n);  // covers [0, n)
    ASSERT_EQ(a, policy::sws::max_steals(n));
    ASSERT_EQ(a, static_cast<std::uint32_t>(std::bit_width(n - 1)) + 1);  // ceil(log2 n) + 1
    ASSERT_EQ(policy::sws::claimed_tasks(n, policy::sws::kMaxAttempts, 1), n - policy::sws::steal_block(n, 0).count);
  }
  EXPECT_EQ(policy::sws::max_steals(0), 0u);
}

// The owner reads the word at step i — with a disable ('D') or an MPI_NO_OP
// read of an exhausted offer ('O') — and republishes with a reset at step j;
// thieves add at every other step: every order of up to 5 thief adds.
TEST(SwsStealval, AddendsKeepConcurrentThiefAddsInEveryOrder) {
  const policy::sws::Offer next{1, 77, 4321};
  int orders = 0;
  for (const char first : {'D', 'O'})
    for (const auto& [a0, epoch] : {std::pair{3u, 0u}, {9u, 1u}, {5000u, 0u}, {policy::sws::kMaxAttempts - 5, 1u}})
        for (int thieves = 0; thieves <= 5; ++thieves)
          for (int i = 0; i < thieves + 2; ++i)
            for (int j = i + 1; j < thieves + 2; ++j, ++orders) {
              const std::uint32_t offered = first == 'D' ? 150 : 3;  // 'O': a0 >= 3 blocks, exhausted
              std::uint64_t w = policy::sws::pack({a0, epoch, offered, 17}), read = 0, fetched = 0;
              std::uint32_t before = 0, window = 0, after = 0;
              for (int k = 0; k < thieves + 2; ++k) {
                if (k == i) {
                  const std::uint64_t add = first == 'D' ? policy::sws::disable_addend(w) : 0;
                  read = fetch_add(w, add) + add;
                } else if (k == j) {
                  fetched = fetch_add(w, policy::sws::republish_addend(read, next) + policy::sws::reset_attempts_addend(read));
                } else {
                  const policy::sws::Claim c = policy::sws::claim_of(fetch_add(w, policy::sws::steal_addend()));
                  (k < i ? before : k < j ? window : after) += 1;
                  ASSERT_TRUE(k < i || k > j || !c.ok());  // the window claims nothing
                }
                const policy::sws::Stealval v = policy::sws::unpack(w);
                ASSERT_EQ(v.offered, k < j ? offered : next.offered);
                ASSERT_EQ(v.epoch, k < j ? (first == 'D' && k >= i ? epoch + 2 : epoch) : next.epoch);
              }
              EXPECT_EQ(policy::sws::attempts_of(read), a0 + before);
              EXPECT_EQ(policy::sws::attempts_of(fetched) - policy::sws::attempts_of(read), window);  // phantoms, known to the owner
              EXPECT_EQ(policy::sws::unpack(w), (policy::sws::Stealval{window + after, next.epoch, next.offered, next.start}));
            }
  EXPECT_EQ(orders, 2 * 4 * (1 + 3 + 6 + 10 + 15 + 21));
  // Disabling twice must add nothing: 3 + 2 would carry into the attempts.
  const std::uint64_t off = policy::sws::pack({5, 3, 7, 9});
  EXPECT_EQ(policy::sws::disable_addend(off), 0u);
  EXPECT_EQ(policy::sws::unpack(off + (std::uint64_t{2} << 38)), (policy::sws::Stealval{6, 1, 7, 9}));
}

TEST(SwsStealval, DampingModesAndBound) {
  using enum policy::sws::TargetMode;
  EXPECT_EQ(policy::sws::mode_after_fetch(policy::sws::pack({0, 0, 150, 0})), full);    // got a block
  EXPECT_EQ(policy::sws::mode_after_fetch(policy::sws::pack({9, 0, 150, 0})), full);    // exhausted, attempts < T
  EXPECT_EQ(policy::sws::mode_after_fetch(policy::sws::pack({20, 0, 150, 0})), empty);  // exhausted, attempts >= T
  EXPECT_EQ(policy::sws::mode_after_fetch(policy::sws::pack({0, 2, 150, 0})), empty);   // disabled
  EXPECT_TRUE(policy::sws::worth_stealing(policy::sws::pack({8, 1, 150, 0})));
  EXPECT_FALSE(policy::sws::worth_stealing(policy::sws::pack({9, 1, 150, 0})) || policy::sws::worth_stealing(policy::sws::pack({0, 3, 150, 0})));
  EXPECT_EQ(policy::sws::attempts_bound(3), 23u);  // max(T, 20) + thieves
  EXPECT_EQ(policy::sws::attempts_bound(3, 100), 103u);
  EXPECT_EQ(policy::SwsSteal(empty).on_probe(policy::sws::pack({9, 1, 150, 0})), policy::SwsSteal::Step::aborted);  // probe, no add
}

// The seed's example through the owner: claims, completion, phantom skip.
TEST(SwsOwnerState, AcquireCompletionAndPhantomSkip) {
  policy::SwsOwnerState o(1024);
  std::uint64_t word = 0, completion[2] = {0, 0};
  const auto thief = [&word] { return policy::sws::claim_of(fetch_add(word, policy::sws::steal_addend())).block; };
  EXPECT_TRUE(o.on_released(fetch_add(word, o.release_addend(150))).empty());
  EXPECT_EQ(policy::sws::unpack(word), (policy::sws::Stealval{0, 1, 150, 0}));
  EXPECT_EQ(thief(), (policy::sws::Block{0, 75}));
  EXPECT_EQ(thief(), (policy::sws::Block{75, 37}));
  completion[1] += 75;
  const auto acq = o.on_disabled(fetch_add(word, o.disable_addend()));
  EXPECT_EQ(acq.claimed, (policy::TaskRange{0, 112}));
  EXPECT_EQ(acq.reclaimed, (policy::TaskRange{112, 150}));  // private again: split 112
  EXPECT_EQ(thief().count, 0u);                      // disabled: a phantom attempt
  EXPECT_EQ(o.progress(completion[0], completion[1]), 0u);
  EXPECT_TRUE(o.may_write(1023) && !o.may_write(1024));  // slot 0 may still be copied
  completion[1] += 37;
  EXPECT_EQ(o.progress(completion[0], completion[1]), 112u);
  EXPECT_TRUE(o.retired(1) && o.retired(0));
  EXPECT_EQ(o.on_released(fetch_add(word, o.release_addend(19))), (policy::TaskRange{112, 121}));
  EXPECT_EQ(o.phantoms(), 1u);
  EXPECT_EQ(thief(), (policy::sws::Block{9, 5}));  // block 1: block 0 went back to the owner
  EXPECT_THROW(o.release_addend(4), std::logic_error);  // blocks left: a reset would duplicate
}

// Random interleavings of the owner and up to three thieves, some slow to copy,
// on rings of 8 to 32 slots (the owner often waits for space): exactly-once by
// id, the damping bound, no slot of an unfinished claimed block overwritten.
TEST(SwsOwnerState, RandomInterleavingsTakeEveryTaskOnce) {
  using Step = policy::SwsSteal::Step;
  std::uint64_t skips = 0, reuses = 0, stolen = 0, waits = 0;
  for (std::uint64_t seed = 1; seed <= 300; ++seed) {
    std::mt19937_64 rng(seed);
    const std::uint32_t slots = 8u << (seed % 3);
    policy::SwsOwnerState o(slots);
    Tally tally;
    std::uint64_t word = 0, completion[2] = {0, 0}, head = 0;
    std::vector<std::uint64_t> ring(slots), in_flight(slots);
    struct Thief { policy::SwsSteal steal; std::uint32_t wait = 0, slow = 0; };
    std::vector<Thief> thieves(1 + seed % 3);
    for (Thief& t : thieves) t.slow = static_cast<std::uint32_t>(rng() % 4);
    const auto thief_step = [&](Thief& t) {
      const policy::sws::Claim& c = t.steal.claim();
      const auto each = [&](auto f) { for (std::uint32_t j = 0; j < c.block.count; ++j) f(policy::sws::ring_slot(c.start, c.block.offset + j, slots)); };
      if (t.steal.step() == Step::done || t.steal.step() == Step::aborted) t.steal = policy::SwsSteal(t.steal.mode());
      if (t.steal.step() == Step::copy && (rng() % 4 < t.slow || t.wait++ < c.block.count)) return;  // copying takes a while
      if (t.steal.step() == Step::copy) each([&](std::uint32_t s) { tally.take(ring[s]), ++stolen; });
      if (t.steal.step() == Step::complete) each([&](std::uint32_t s) { --in_flight[s]; });
      if (policy::sws_apply(t.steal, word, completion) == Step::copy) each([&](std::uint32_t s) { ++in_flight[s]; }), t.wait = 0;
      ASSERT_LE(policy::sws::attempts_of(word), policy::sws::attempts_bound(thieves.size()));
    };
    const auto owner_step = [&] {
      const auto n = static_cast<std::uint32_t>((head - o.split() + 1) / 2);
      const std::uint32_t epoch = o.epoch();
      switch (rng() % 8) {
        case 0: case 1: case 2:
          if (!o.may_write(head)) { waits += o.ring_tail() < o.split(); break; }
          ASSERT_EQ(in_flight[head % slots], 0u) << "overwrote a slot of an unfinished steal";
          ring[head++ % slots] = tally.create();
          break;
        case 3: if (head > o.split()) tally.take(ring[--head % slots]); break;
        case 4: {
          if (!o.can_release(n)) break;
          const policy::TaskRange skip = o.on_released(fetch_add(word, o.release_addend(n)));
          for (std::uint64_t i = skip.begin; i < skip.end; ++i) tally.take(ring[i % slots]);  // the owner's again
          skips += skip.size(), reuses += o.epoch() == epoch;
          break;
        }
        case 5: if (o.live()) o.on_disabled(fetch_add(word, o.disable_addend())); break;
        default: o.progress(completion[0], completion[1]), o.observe(word);
      }
    };
    for (int step = 0; step < 3000 && !testing::Test::HasFatalFailure(); ++step)
      rng() % 2 == 0 ? owner_step() : thief_step(thieves[rng() % thieves.size()]);
    for (Thief& t : thieves) while (t.steal.step() == Step::copy || t.steal.step() == Step::complete) thief_step(t);
    if (o.live()) o.on_disabled(fetch_add(word, o.disable_addend()));
    while (head > o.split()) tally.take(ring[--head % slots]);
    EXPECT_EQ(o.progress(completion[0], completion[1]), o.split()) << "seed " << seed;
    EXPECT_TRUE(tally.each_once()) << "seed " << seed;
  }
  EXPECT_GT(stolen, 10000u);
  EXPECT_GT(skips, 0u);   // phantom attempts happened and were handled
  EXPECT_GT(reuses, 0u);  // a release stayed in an unretired epoch
  EXPECT_GT(waits, 0u);   // the owner waited for ring slots of unfinished steals
}

TEST(SdcProtocol, SixStepsEarlyAbortsAndSplitMoves) {
  using Step = policy::SdcSteal::Step;
  policy::SdcWindowWords w{0, 10, 20, 10};
  policy::SdcSteal s(2);
  std::vector<Step> steps;
  while (s.step() != Step::done) steps.push_back(s.step()), sdc_apply(s, w, steal_half);
  EXPECT_EQ(steps, (std::vector<Step>{Step::lock, Step::read_meta, Step::put_tail, Step::unlock, Step::copy, Step::complete}));
  EXPECT_EQ((policy::TaskRange{s.first(), s.new_tail()}), (policy::TaskRange{10, 15}));
  EXPECT_EQ(w, (policy::SdcWindowWords{0, 15, 20, 15}));
  const auto aborted_after = [](policy::SdcWindowWords v) {
    policy::SdcSteal a(2);
    while (a.step() != Step::aborted) sdc_apply(a, v, steal_half);
    EXPECT_EQ(v.lock, v.lock == 7 ? 7u : 0u);
    return a.communications();
  };
  EXPECT_EQ(aborted_after({7, 4, 4, 4}), 2u);  // locked by another, nothing public: failed lock, poll
  EXPECT_EQ(aborted_after({0, 4, 4, 4}), 3u);  // nothing public: lock, read, unlock
  policy::SdcWindowWords busy{7, 4, 9, 4};
  policy::SdcSteal c(2);
  EXPECT_EQ(sdc_apply(c, busy, steal_half), Step::poll);
  EXPECT_EQ(sdc_apply(c, busy, steal_half), Step::lock);  // work left: retry
  EXPECT_EQ(c.abort(), Step::aborted);
  EXPECT_THROW(policy::SdcSteal(0), std::invalid_argument);
  policy::SdcOwnerState o(8);  // the owner's split moves, Scioto's amounts
  for (int i = 0; i < 6; ++i) o.push();
  EXPECT_EQ(o.release(0), 3u);  // ceil(6 / 2)
  EXPECT_EQ(o.release(0), 0u);  // public part not empty
  EXPECT_EQ(o.acquire(1), 0u);  // 2 public <= 3 private
  for (std::uint64_t i = 0; o.local() > 0;) o.pop(i);
  EXPECT_EQ(o.acquire(1), 1u);  // ceil(2 / 2), the newer one: split 3 -> 2
  EXPECT_EQ(o.progress(0, 1), 0u);  // the steal of task 0 still copying
  EXPECT_EQ(o.progress(1, 1), 1u);
}

TEST(SdcOwnerState, RandomInterleavingsTakeEveryTaskOnce) {
  using Step = policy::SdcSteal::Step;
  constexpr std::uint64_t kSlots = 32;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    std::mt19937_64 rng(seed);
    policy::SdcOwnerState o(kSlots);
    policy::SdcWindowWords w;
    Tally tally;
    std::vector<std::uint64_t> ring(kSlots), in_flight(kSlots);
    std::vector<policy::SdcSteal> thieves;
    for (std::uint64_t t = 0; t < 1 + seed % 3; ++t) thieves.emplace_back(t + 2);
    const auto finished = [](const policy::SdcSteal& s) { return s.step() == Step::done || s.step() == Step::aborted; };
    const auto thief_step = [&](policy::SdcSteal& s) {
      if (finished(s)) s = policy::SdcSteal(s.id());
      for (std::uint64_t i = s.first(); i < s.new_tail(); ++i) {
        if (s.step() == Step::put_tail) ++in_flight[i % kSlots];
        if (s.step() == Step::copy) tally.take(ring[i % kSlots]);
        if (s.step() == Step::complete) --in_flight[i % kSlots];
      }
      sdc_apply(s, w, steal_half);
    };
    const auto acquire = [&] { if (w.lock == 0) w.lock = 1, o.acquire(w.tail), w.split = o.split(), w.lock = 0; };
    for (std::uint64_t step = 0, i = 0; step < 3000; ++step) {
      if (rng() % 2 == 1) { thief_step(thieves[rng() % thieves.size()]); continue; }
      switch (rng() % 6) {
        case 0: case 1:
          if (!o.may_push()) break;
          ASSERT_EQ(in_flight[o.head() % kSlots], 0u) << "overwrote a slot of an unfinished steal";
          ring[o.push() % kSlots] = tally.create();
          break;
        case 2: if (o.pop(i)) tally.take(ring[i % kSlots]); else acquire(); break;
        case 3: o.release(w.tail), w.split = o.split(); break;
        case 4: acquire(); break;
        default: { const std::uint64_t itail = w.itail; o.progress(itail, w.tail); }  // itail first
      }
    }
    while (!std::all_of(thieves.begin(), thieves.end(), finished))  // round robin: locks pass on
      for (policy::SdcSteal& s : thieves)
        if (!finished(s)) thief_step(s);
    for (std::uint64_t i = 0; o.local() > 0 || w.tail < w.split;)
      if (o.pop(i)) tally.take(ring[i % kSlots]); else acquire();
    EXPECT_EQ(o.progress(w.itail, w.tail), w.tail);
    EXPECT_TRUE(tally.each_once()) << "seed " << seed;
  }
}

}  // namespace

// The owner-side decisions the runtime's queues and the simulator's window
// share: dry (refillable / drained), asked, room, offering.
TEST(SwsOwnerState, RefillRoomOfferingAndAsked) {
  policy::SwsOwnerState o(64);
  std::uint64_t word = 0;
  EXPECT_TRUE(o.refillable());
  EXPECT_FALSE(o.offering());
  EXPECT_EQ(o.room(), 64u);
  EXPECT_FALSE(policy::sws::asked(word));
  o.on_released(fetch_add(word, o.release_addend(8)));
  EXPECT_FALSE(o.refillable());
  EXPECT_TRUE(o.offering());
  EXPECT_EQ(o.room(), 0u) << "a live offer with blocks left takes no release";
  ASSERT_EQ(policy::sws::max_steals(8), 4u);  // blocks 4, 2, 1, 1
  for (int i = 0; i < 4; ++i) fetch_add(word, policy::sws::steal_addend());
  o.observe(word);
  EXPECT_TRUE(o.refillable());
  EXPECT_FALSE(o.offering());
  EXPECT_EQ(o.room(), 56u) << "the claimed blocks' 8 slots stay busy until completed";
  EXPECT_FALSE(policy::sws::asked(word)) << "every attempt got a block";
  fetch_add(word, policy::sws::steal_addend());
  EXPECT_TRUE(policy::sws::asked(word)) << "an attempt beyond the offer's blocks";
  EXPECT_FALSE(policy::sws::asked(policy::sws::pack({0, policy::sws::kDisabledEpoch, 0, 0})));
  EXPECT_TRUE(policy::sws::asked(policy::sws::pack({1, policy::sws::kDisabledEpoch, 0, 0}))) << "any attempt while disabled";
}

TEST(SdcOwnerState, RoomDrainedAndOffering) {
  policy::SdcOwnerState o(8);
  EXPECT_EQ(o.room(), 8u);
  for (int i = 0; i < 6; ++i) o.push();
  EXPECT_EQ(o.room(), 2u);
  EXPECT_TRUE(o.drained(0)) << "nothing public yet";
  EXPECT_FALSE(o.offering(0));
  EXPECT_EQ(o.publish_all(0), 6u);
  EXPECT_FALSE(o.drained(0));
  EXPECT_TRUE(o.offering(0));
  EXPECT_TRUE(o.offering(5));
  EXPECT_TRUE(o.drained(6)) << "thieves took every public task";
  EXPECT_FALSE(o.offering(6));
  EXPECT_EQ(o.progress(6, 6), 6u);
  EXPECT_EQ(o.room(), 8u) << "every slot copied out: the ring is free again";
}
