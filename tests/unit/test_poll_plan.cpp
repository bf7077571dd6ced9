// Unit tests of the decisions between processes that the runtime
// (rma::Distributor's parts) and the simulator share: the locality set-up
// (src/policy/locality_plan.hpp) and the decisions of a poll
// (src/policy/poll_plan.hpp). Each expectation is worked out by hand from
// the rule the header states.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "policy/locality_plan.hpp"
#include "policy/poll_plan.hpp"

namespace {

using heist::BalanceMode;
using heist::ChunkSpec;
using heist::Options;
using heist::StealProtocolKind;
using heist::VictimSpec;
using namespace heist::policy;

ChunkSpec fixed(std::uint32_t k) {
  ChunkSpec s;
  s.kind = ChunkSpec::Kind::fixed;
  s.k = k;
  return s;
}

Options options(StealProtocolKind protocol, VictimSpec::Kind victim, BalanceMode balance, ChunkSpec chunk) {
  Options o;
  o.protocol = protocol;
  o.victim.kind = victim;
  o.balance = balance;
  o.chunk = chunk;
  return o;
}

LocalityPlan plan(const Options& o, bool same_node_peers, bool other_nodes) {
  return plan_locality(o, ChunkPolicy(o.chunk), same_node_peers, other_nodes);
}

// ---------------------------------------------------------------- plan_locality

TEST(PlanLocality, RandomStealingLetsEveryOtherRankStealOneSided) {
  const Options o = options(StealProtocolKind::sdc, VictimSpec::Kind::random, BalanceMode::steal, fixed(2));
  for (const bool same : {false, true})
    for (const bool other : {false, true}) {
      const LocalityPlan p = plan(o, same, other);
      EXPECT_FALSE(p.success_only);
      EXPECT_FALSE(p.push);
      EXPECT_EQ(p.node_thieves, same);
      EXPECT_EQ(p.machine_thieves, other);
      EXPECT_EQ(p.one_sided_thieves, same || other);
      EXPECT_EQ(p.sws_offer_cap, 0u) << "SDC has no offer cap";
    }
}

TEST(PlanLocality, SuccessOnlyKeepsOtherNodesFromStealingOneSided) {
  const Options o = options(StealProtocolKind::sws, VictimSpec::Kind::success_only, BalanceMode::steal, fixed(3));
  LocalityPlan p = plan(o, false, true);
  EXPECT_TRUE(p.success_only);
  EXPECT_FALSE(p.machine_thieves);
  EXPECT_FALSE(p.one_sided_thieves);
  EXPECT_EQ(p.sws_offer_cap, 0u);
  p = plan(o, true, true);
  EXPECT_TRUE(p.node_thieves);
  EXPECT_FALSE(p.machine_thieves);
  EXPECT_TRUE(p.one_sided_thieves);
  EXPECT_EQ(p.sws_offer_cap, 6u) << "2k for the node level's k = 3";
}

TEST(PlanLocality, SuccessOnlyVictimsUnderPushArePush) {
  const Options o = options(StealProtocolKind::sws, VictimSpec::Kind::success_only, BalanceMode::push, fixed(1));
  const LocalityPlan p = plan(o, true, true);
  EXPECT_FALSE(p.success_only);
  EXPECT_TRUE(p.push);
  EXPECT_FALSE(p.node_thieves);
  EXPECT_FALSE(p.machine_thieves);
  EXPECT_FALSE(p.one_sided_thieves);
  EXPECT_EQ(p.sws_offer_cap, 0u);
}

TEST(PlanLocality, SwsOfferCapIsTwiceTheLargestRemoteChunk) {
  ChunkSpec hcs;
  hcs.kind = ChunkSpec::Kind::hcs;
  hcs.k = 2;
  hcs.levels[static_cast<std::size_t>(index(Level::node))] = 5;
  hcs.levels[static_cast<std::size_t>(index(Level::machine))] = 3;
  const Options o = options(StealProtocolKind::sws, VictimSpec::Kind::random, BalanceMode::steal, hcs);
  EXPECT_EQ(plan(o, true, false).sws_offer_cap, 10u);
  EXPECT_EQ(plan(o, false, true).sws_offer_cap, 6u);
  EXPECT_EQ(plan(o, true, true).sws_offer_cap, 10u);
  EXPECT_EQ(plan(o, false, false).sws_offer_cap, 0u) << "no remote thieves, no cap";
}

TEST(PlanLocality, StealHalfAtAnyRemoteLevelMeansNoCap) {
  const Options def = options(StealProtocolKind::sws, VictimSpec::Kind::random, BalanceMode::steal,
                              ChunkSpec::runtime_default());  // hcs:1,node=half
  EXPECT_EQ(plan(def, true, false).sws_offer_cap, 0u);
  EXPECT_EQ(plan(def, true, true).sws_offer_cap, 0u);
  EXPECT_EQ(plan(def, false, true).sws_offer_cap, 0u) << "machine level defaults to half under hcs";
  ChunkSpec hcs;
  hcs.kind = ChunkSpec::Kind::hcs;
  hcs.k = 4;  // node = 4, machine = half
  const Options o = options(StealProtocolKind::sws, VictimSpec::Kind::random, BalanceMode::steal, hcs);
  EXPECT_EQ(plan(o, true, false).sws_offer_cap, 8u);
  EXPECT_EQ(plan(o, true, true).sws_offer_cap, 0u);
}

TEST(PlanLocality, PushThresholdsComeFromTheOptions) {
  Options o = options(StealProtocolKind::sws, VictimSpec::Kind::random, BalanceMode::push, fixed(1));
  o.push.min_tasks = 7;
  o.push.min_imbalance = 9;
  o.push.min_ratio = 0.25;
  o.push.share = 0.75;
  o.push.max_tasks = 11;
  const PushThresholds t = plan(o, false, true).push_thresholds;
  EXPECT_EQ(t.min_local_tasks, 7u);
  EXPECT_EQ(t.min_imbalance, 9u);
  EXPECT_DOUBLE_EQ(t.min_imbalance_ratio, 0.25);
  EXPECT_DOUBLE_EQ(t.share, 0.75);
  EXPECT_EQ(t.max_tasks, 11u);
}

TEST(PlanLocality, RankLevel) {
  EXPECT_EQ(rank_level(true), Level::node);
  EXPECT_EQ(rank_level(false), Level::machine);
}

// Success-only answer areas (rma/answer_slots.hpp): all of a window's
// areas within kAnswerAreaBytes, at least one task each; answers and areas
// within --answer-max-tasks.
TEST(PlanLocality, AnswerAreasAreBoundedInAll) {
  EXPECT_EQ(answer_capacity(2, 128), 16384u);
  EXPECT_EQ(answer_capacity(1000, 128), 16u) << "2 MiB over 999 ranks of 128-byte slots";
  EXPECT_EQ(answer_capacity(1000, 256), 8u);
  EXPECT_EQ(answer_capacity(100000, 128), 1u) << "never none";
  EXPECT_EQ(answer_capacity(1, 128), 16384u);
  for (std::size_t ranks : {2, 3, 64, 4096})
    EXPECT_LE((ranks - 1) * answer_capacity(ranks, 128) * 128, kAnswerAreaBytes) << ranks << " ranks";
}

// --answer-max-tasks auto: 128 tasks over the answers to a process's
// requests at every other rank, at least 8 each.
TEST(PlanLocality, AutomaticAnswersShareABudgetOverTheOtherRanks) {
  EXPECT_EQ(answer_max_auto(2), 128u);
  EXPECT_EQ(answer_max_auto(3), 64u);
  EXPECT_EQ(answer_max_auto(4), 42u);
  EXPECT_EQ(answer_max_auto(16), 8u);
  EXPECT_EQ(answer_max_auto(17), 8u);
  EXPECT_EQ(answer_max_auto(1000), 8u) << "at least 8";
  EXPECT_EQ(answer_max_auto(1), 128u);
}

TEST(PlanLocality, OnlySuccessOnlyStealingHasAnswerAreas) {
  Options o = options(StealProtocolKind::sws, VictimSpec::Kind::success_only, BalanceMode::steal, fixed(1));
  EXPECT_EQ(answer_slots_for(o, 4, 128), 42u) << "auto";
  EXPECT_EQ(answer_slots_for(o, 16, 128), 8u) << "auto";
  EXPECT_EQ(answer_slots_for(o, 100000, 128), 1u) << "auto, within the area";
  o.answer_max_tasks = 64;
  EXPECT_EQ(answer_slots_for(o, 16, 128), 64u);
  EXPECT_EQ(answer_slots_for(o, 1000, 128), 16u) << "no more than the area holds";
  EXPECT_EQ(answer_slots_for(o, 1, 128), 0u) << "one rank asks nobody";
  o.balance = BalanceMode::push;
  EXPECT_EQ(answer_slots_for(o, 1000, 128), 0u) << "success-only under push is push";
  o.balance = BalanceMode::steal;
  for (const VictimSpec::Kind kind : {VictimSpec::Kind::hvs, VictimSpec::Kind::random}) {
    o.victim.kind = kind;
    EXPECT_EQ(answer_slots_for(o, 1000, 128), 0u);
  }
}

// ---------------------------------------------------------------- PollPlan

PollPlan poll_plan(BalanceMode balance, VictimSpec::Kind victim, ChunkSpec chunk, bool same, bool other,
                   std::size_t mailbox_slots = 64, std::uint32_t answer_slots = 0) {
  const Options o = options(StealProtocolKind::sws, victim, balance, chunk);
  return PollPlan(plan(o, same, other), ChunkPolicy(chunk), mailbox_slots, answer_slots);
}

TEST(PollPlan, WorkerLoadCountsTheRunningTask) {
  EXPECT_EQ(worker_load(0, false), 0u);
  EXPECT_EQ(worker_load(0, true), 1u);
  EXPECT_EQ(worker_load(5, false), 5u);
  EXPECT_EQ(worker_load(5, true), 6u);
}

TEST(PollPlan, MailboxIsDrainedUnderSuccessOnlyOrPush) {
  EXPECT_FALSE(poll_plan(BalanceMode::steal, VictimSpec::Kind::random, fixed(1), true, true).drains_mailbox());
  EXPECT_FALSE(poll_plan(BalanceMode::steal, VictimSpec::Kind::hvs, fixed(1), true, true).drains_mailbox());
  EXPECT_TRUE(poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(1), true, true).drains_mailbox());
  EXPECT_TRUE(poll_plan(BalanceMode::push, VictimSpec::Kind::random, fixed(1), true, true).drains_mailbox());
}

TEST(PollPlan, PublishAtPollWhenTheLoadTurnsZeroOrNonZero) {
  const PollPlan so = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(1), false, true);
  EXPECT_TRUE(so.publish_at_poll(0, kNothingPublished)) << "the first poll always publishes";
  EXPECT_TRUE(so.publish_at_poll(3, kNothingPublished));
  EXPECT_TRUE(so.publish_at_poll(3, 0));
  EXPECT_TRUE(so.publish_at_poll(0, 3));
  EXPECT_FALSE(so.publish_at_poll(3, 4)) << "still non-zero";
  EXPECT_FALSE(so.publish_at_poll(0, 0));
  const PollPlan random = poll_plan(BalanceMode::steal, VictimSpec::Kind::random, fixed(1), false, true);
  EXPECT_FALSE(random.publish_at_poll(3, kNothingPublished)) << "only success-only advertises at polls";
  EXPECT_TRUE(PollPlan::publish_at_push(3, 4));
  EXPECT_FALSE(PollPlan::publish_at_push(4, 4));
  EXPECT_TRUE(PollPlan::publish_at_push(0, kNothingPublished));
}

TEST(PollPlan, AnswerSizeFollowsTheChunkAndTheMailbox) {
  const PollPlan p = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(3), false, true, 8);
  EXPECT_EQ(p.answer_size(0, 0, false, Level::machine), 0u);
  EXPECT_EQ(p.answer_size(1, 0, false, Level::machine), 1u);
  EXPECT_EQ(p.answer_size(10, 0, false, Level::machine), 3u);
  const PollPlan half = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only,
                                  ChunkSpec::runtime_default(), false, true, 8);
  EXPECT_EQ(half.answer_size(6, 0, false, Level::machine), 3u);
  EXPECT_EQ(half.answer_size(100, 0, false, Level::machine), 4u) << "half the mailbox at most";
  EXPECT_EQ(half.answer_size(100, 0, false, Level::node), 4u);
  EXPECT_EQ(half.answer_size(3, 0, false, Level::process), 1u);
}

// Tasks that report back by themselves travel a few an answer; escaping
// ones as many as the chunk and the answer area allow.
TEST(PollPlan, AnswersOfTasksThatReportBackAreSmall) {
  const PollPlan big = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, ChunkSpec::runtime_default(),
                                 false, true, 1024, 64);
  EXPECT_EQ(big.answer_size(100, 0, false, Level::machine, 1, false), 50u);
  EXPECT_EQ(big.answer_size(100, 0, false, Level::machine, 1, true), PollPlan::kReportingAnswerMax);
  EXPECT_EQ(big.answer_size(5, 0, false, Level::machine, 1, true), 2u) << "never more than the chunk: half";
  const PollPlan two = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, ChunkSpec::runtime_default(),
                                 false, true, 1024, 2);
  EXPECT_EQ(two.answer_size(100, 0, false, Level::machine, 1, true), 2u) << "nor more than the answer area";
}

// Tasks an answer brings are published where they land (half the private
// part, as a thief's failed steal would have it), whatever their number:
// the process asked because its workers were idle. A poll that took none
// publishes nothing.
TEST(PollPlan, AnsweredTasksArePublishedWhereTheyLand) {
  EXPECT_TRUE(PollPlan::release_answered(1));
  EXPECT_TRUE(PollPlan::release_answered(15));
  EXPECT_FALSE(PollPlan::release_answered(0));
}

// An answer is written into the thief's area for its victim: no larger than the area.
TEST(PollPlan, AnswerSizeStopsAtTheAnswerArea) {
  const Options o = options(StealProtocolKind::sws, VictimSpec::Kind::success_only, BalanceMode::steal,
                            ChunkSpec::runtime_default());
  const PollPlan small(plan(o, false, true), ChunkPolicy(o.chunk), 1024, 6);
  EXPECT_EQ(small.answer_max(), 6u);
  EXPECT_EQ(small.answer_size(100, 0, false, Level::machine), 6u);
  EXPECT_EQ(small.answer_size(8, 0, false, Level::machine), 4u) << "half of 8 fits";
  const PollPlan none(plan(o, false, true), ChunkPolicy(o.chunk), 8);
  EXPECT_EQ(none.answer_max(), 4u) << "without areas: half a mailbox";
}

// A request is for the process: its siblings' public tasks count, and a
// searching worker's one kept task is kept from the total.
TEST(PollPlan, AnswerSizeCountsTheWholeProcess) {
  const PollPlan half = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only,
                                  ChunkSpec::runtime_default(), false, true, 64);
  EXPECT_EQ(half.answer_size(0, 0, false, Level::machine), 0u);
  EXPECT_EQ(half.answer_size(0, 6, false, Level::machine), 3u) << "an empty polling worker answers from its siblings";
  EXPECT_EQ(half.answer_size(2, 18, false, Level::machine), 10u);
  EXPECT_EQ(half.answer_size(0, 1, true, Level::machine), 0u) << "a searching worker keeps one";
  EXPECT_EQ(half.answer_size(1, 2, true, Level::machine), 1u);
}

// Requests waiting together share the process's half: answered one after
// the other with a half each, a victim with many requesters emptied itself.
TEST(PollPlan, RequestersOfOneRoundShareTheHalf) {
  const PollPlan half = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only,
                                  ChunkSpec::runtime_default(), false, true, 1024);
  EXPECT_EQ(half.answer_size(40, 0, false, Level::machine, 1), 20u);
  EXPECT_EQ(half.answer_size(40, 0, false, Level::machine, 4), 5u);
  EXPECT_EQ(half.answer_size(40, 0, false, Level::machine, 100), 1u) << "at least one while any is spare";
  EXPECT_EQ(half.answer_size(1, 0, true, Level::machine, 100), 0u) << "a searching worker still keeps one";
  // Four requesters answered in turn, each from what is left: the victim keeps more than half.
  std::size_t left = 400;
  for (int r = 0; r < 4; ++r) left -= half.answer_size(left, 0, false, Level::machine, 4);
  EXPECT_GT(left, 200u);
  // A fixed chunk is per thief, however many ask.
  const PollPlan three = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(3), false, true);
  EXPECT_EQ(three.answer_size(40, 0, false, Level::machine, 8), 3u);
}

// Tasks stay home for the process's own idle workers, one for every other
// of them: an in-process steal is far cheaper than an answer and the
// request the idle worker would send in turn.
TEST(PollPlan, AnswersKeepWorkForTheProcessIdleWorkers) {
  const PollPlan half = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only,
                                  ChunkSpec::runtime_default(), false, true, 1024);
  EXPECT_EQ(half.answer_size(20, 0, false, Level::machine, 1, false, 0), 10u);
  EXPECT_EQ(half.answer_size(20, 0, false, Level::machine, 1, false, 8), 8u) << "16 spare, half of them";
  EXPECT_EQ(half.answer_size(4, 6, true, Level::machine, 1, false, 20), 0u) << "10 tasks, 20 idle workers";
  EXPECT_EQ(half.answer_size(3, 0, true, Level::machine, 1, false, 1), 1u) << "a lone searcher keeps one";
  EXPECT_EQ(half.answer_size(3, 0, true, Level::machine, 1, false, 0), 1u)
      << "the count is a hint: a searching answerer keeps one even when it lags";
}

// Regression (the simulator's end-of-run livelock, now in the runtime too):
// a searching worker keeps one task, so tasks its own request just brought
// are not passed straight on to the next requester.
TEST(PollPlan, SearchingWorkerKeepsOneTask) {
  const PollPlan p = poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(4), false, true);
  EXPECT_EQ(p.answer_size(1, 0, true, Level::machine), 0u);
  EXPECT_EQ(p.answer_size(1, 0, false, Level::machine), 1u);
  EXPECT_EQ(p.answer_size(2, 0, true, Level::machine), 1u);
  EXPECT_EQ(p.answer_size(6, 0, true, Level::machine), 4u);
  EXPECT_EQ(p.answer_size(0, 0, true, Level::machine), 0u);
}

TEST(PollPlan, PushesFromOnlyThisRanksTransfers) {
  const PollPlan p = poll_plan(BalanceMode::push, VictimSpec::Kind::random, fixed(1), false, true, 16);
  const std::vector<std::uint64_t> board{20, 0, 10, 2};
  const std::span<const std::uint64_t> b(board);
  // Sorted: 0 (20), 2 (10), 3 (2), 1 (0): 0 -> 1 gets 10, 2 -> 3 gets 4.
  const std::vector<PushTransfer> from0 = p.pushes_from(0, 20u, b);
  ASSERT_EQ(from0.size(), 1u);
  EXPECT_EQ(from0[0], (PushTransfer{0, 1, 10}));
  const std::vector<PushTransfer> from2 = p.pushes_from(2, 10u, b);
  ASSERT_EQ(from2.size(), 1u);
  EXPECT_EQ(from2[0], (PushTransfer{2, 3, 4}));
  EXPECT_TRUE(p.pushes_from(1, 0u, b).empty());
  EXPECT_TRUE(p.pushes_from(3, 2u, b).empty());
  // The rank's own load replaces its board entry: rank 1 now holds 30,
  // the most, and pairs with rank 3 (the least): floor(28 / 2) = 14.
  const std::vector<std::uint32_t> narrow{20, 0, 10, 2};
  const std::vector<PushTransfer> from1 = p.pushes_from(1, 30u, std::span<const std::uint32_t>(narrow));
  ASSERT_EQ(from1.size(), 1u);
  EXPECT_EQ(from1[0], (PushTransfer{1, 3, 14}));
  EXPECT_EQ(p.push_size(from1[0], 100), 8u) << "half the mailbox at most";
  // Rank 0 plans with its own copy of the board, where rank 1 still holds 0.
  const std::vector<PushTransfer> from0b = p.pushes_from(0, 20u, std::span<const std::uint32_t>(narrow));
  ASSERT_EQ(from0b.size(), 1u);
  EXPECT_EQ(from0b[0], (PushTransfer{0, 1, 10}));
  EXPECT_EQ(p.push_size(from0[0], 100), 8u) << "half the mailbox at most";
  EXPECT_EQ(p.push_size(from0[0], 5), 5u) << "what is queued at most";
  EXPECT_EQ(p.push_size(from2[0], 100), 4u);
  EXPECT_EQ(p.push_size(from2[0], 0), 0u);
}

TEST(PollPlan, PublicQueueIsWatchedOnlyWithOneSidedThieves) {
  EXPECT_TRUE(poll_plan(BalanceMode::steal, VictimSpec::Kind::random, fixed(1), false, true).watches_public_queue());
  EXPECT_FALSE(poll_plan(BalanceMode::push, VictimSpec::Kind::random, fixed(1), true, true).watches_public_queue());
  EXPECT_FALSE(
      poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(1), false, true).watches_public_queue());
  EXPECT_TRUE(
      poll_plan(BalanceMode::steal, VictimSpec::Kind::success_only, fixed(1), true, true).watches_public_queue());
}

TEST(PollPlan, DryQueueReleasesOrAsksTheNextSpawn) {
  DryStep s = PollPlan::on_dry(false, 0);
  EXPECT_FALSE(s.release);
  EXPECT_FALSE(s.want_work);
  s = PollPlan::on_dry(true, 0);
  EXPECT_FALSE(s.release);
  EXPECT_TRUE(s.want_work);
  for (const bool asked : {false, true}) {
    s = PollPlan::on_dry(asked, 1);
    EXPECT_TRUE(s.release);
    EXPECT_EQ(s.want_work, asked) << "the deque may hold only small tasks: the next spawn hears of the thief too";
  }
}

TEST(PollPlan, AfterReleaseReservesForAThiefThatAsked) {
  EXPECT_FALSE(PollPlan::after_release(3, false).reserve);
  EXPECT_TRUE(PollPlan::after_release(3, true).reserve);
  EXPECT_FALSE(PollPlan::after_release(0, true).reserve) << "nothing left the process";
  EXPECT_FALSE(PollPlan::after_release(0, false).reserve);
}

TEST(PollPlan, OfferIsTheOlderHalfWithinRoomAndCap) {
  const PollPlan capped = poll_plan(BalanceMode::steal, VictimSpec::Kind::random, fixed(2), true, false);
  ASSERT_EQ(capped.locality().sws_offer_cap, 4u);
  EXPECT_EQ(capped.offer(0, 10), 0u);
  EXPECT_EQ(capped.offer(100, 1), 1u);
  EXPECT_EQ(capped.offer(100, 3), 2u);
  EXPECT_EQ(capped.offer(100, 6), 3u);
  EXPECT_EQ(capped.offer(100, 20), 4u);
  EXPECT_EQ(capped.offer(2, 20), 2u);
  const PollPlan uncapped = poll_plan(BalanceMode::steal, VictimSpec::Kind::random, ChunkSpec::runtime_default(),
                                      true, false);
  EXPECT_EQ(uncapped.offer(100, 20), 10u);
  EXPECT_EQ(uncapped.offer(100, 21), 11u);
  EXPECT_EQ(uncapped.offer(7, 21), 7u);
  EXPECT_EQ(uncapped.offer(7, 0), 0u);
}

TEST(PollPlan, ReclaimWaitsForTheReservation) {
  EXPECT_FALSE(PollPlan::may_reclaim(false, 100, 0));
  EXPECT_TRUE(PollPlan::may_reclaim(true, 100, 0));
  EXPECT_TRUE(PollPlan::may_reclaim(true, 100, 100));
  EXPECT_FALSE(PollPlan::may_reclaim(true, 99, 100));
  EXPECT_FALSE(PollPlan::may_reclaim(true, 99.5, 100.0));
  EXPECT_TRUE(PollPlan::may_reclaim(true, std::int64_t{5}, std::int64_t{5}));
}

TEST(PollPlan, RegionOverCountsEveryRankOfEveryGeneration) {
  EXPECT_FALSE(PollPlan::region_over(0, 2, 1));
  EXPECT_FALSE(PollPlan::region_over(1, 2, 1));
  EXPECT_TRUE(PollPlan::region_over(2, 2, 1));
  EXPECT_FALSE(PollPlan::region_over(5, 2, 3)) << "cumulative: the third region needs 6";
  EXPECT_TRUE(PollPlan::region_over(6, 2, 3));
  EXPECT_TRUE(PollPlan::region_over(1, 1, 1));
}

TEST(Pacer, DueOncePerPeriod) {
  Pacer<std::int64_t> p;
  EXPECT_TRUE(p.due(0, 10));
  EXPECT_FALSE(p.due(5, 10));
  EXPECT_FALSE(p.due(9, 10));
  EXPECT_TRUE(p.due(10, 10));
  EXPECT_FALSE(p.due(19, 10));
  EXPECT_TRUE(p.due(35, 10)) << "late: due at once, next period from now";
  EXPECT_FALSE(p.due(44, 10));
  EXPECT_TRUE(p.due(45, 10));
  p.reset();
  EXPECT_TRUE(p.due(0, 10));
  Pacer<double> d;
  EXPECT_TRUE(d.due(1.5, 2.0));
  EXPECT_FALSE(d.due(3.4, 2.0));
  EXPECT_TRUE(d.due(3.5, 2.0));
}

TEST(RequestBook, WaitingRequestsInRankOrder) {
  RequestBook book(4);
  EXPECT_EQ(book.next_waiting(0), -1);
  book.add_asked(2);
  book.set_asked(3, 2);
  EXPECT_FALSE(book.waiting(0));
  EXPECT_TRUE(book.waiting(2));
  EXPECT_EQ(book.next_waiting(0), 2);
  EXPECT_EQ(book.next_waiting(3), 3);
  book.answered(2);
  EXPECT_EQ(book.next_waiting(0), 3);
  book.answered(3);
  EXPECT_EQ(book.next_waiting(0), 3) << "rank 3 asked twice";
  book.answered(3);
  EXPECT_EQ(book.next_waiting(0), -1);
  book.set_asked(3, 2);
  EXPECT_EQ(book.next_waiting(0), -1) << "the runtime's counts are cumulative";
}

TEST(RequestBook, ServeRequestsOnePerRankStopsAtTheFirstRefusal) {
  RequestBook book(5);
  book.set_asked(1, 2);
  book.add_asked(3);
  book.add_asked(4);
  std::vector<int> answered;
  EXPECT_EQ(book.waiting_count(), 3u);
  EXPECT_TRUE(serve_requests(book, [&](int r, std::uint32_t waiting) {
    answered.push_back(r);
    EXPECT_EQ(waiting, 3u) << "every answer of the round is told the round's requesters";
    return true;
  }));
  EXPECT_EQ(answered, (std::vector<int>{1, 3, 4})) << "one per rank per round";
  EXPECT_EQ(book.waiting_count(), 1u) << "rank 1 asked twice";
  answered.clear();
  EXPECT_TRUE(serve_requests(book, [&](int r, std::uint32_t) {
    answered.push_back(r);
    return true;
  }));
  EXPECT_EQ(answered, (std::vector<int>{1}));
  book.add_asked(0);
  book.add_asked(2);
  answered.clear();
  EXPECT_FALSE(serve_requests(book, [&](int r, std::uint32_t) {
    answered.push_back(r);
    return r != 0;
  }));
  EXPECT_EQ(answered, (std::vector<int>{0})) << "stops at the first it cannot answer";
  EXPECT_TRUE(book.waiting(0));
  EXPECT_TRUE(book.waiting(2));
  EXPECT_TRUE(serve_requests(book, [](int, std::uint32_t) { return true; }));
  EXPECT_EQ(book.next_waiting(0), -1);
}

}  // namespace
