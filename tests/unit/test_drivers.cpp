// policy::SpawnDriver and policy::SearchDriver: the decisions the
// runtime and the simulator share — where a victim step goes, when a poll
// round is due, success-only requests without knowing the policy's type,
// inline-credit pacing, the policy that decides a spawn, and the last
// victim that had tasks tried first.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>

#include "policy/help_floor.hpp"
#include "policy/search_driver.hpp"
#include "policy/spawn_driver.hpp"
#include "policy/topology.hpp"

namespace {

using heist::Options;
using heist::SpawnPolicy;
using heist::policy::SearchDriver;
using heist::policy::SearchSetup;
using heist::policy::SearchStep;
using heist::policy::SpawnAction;
using heist::policy::SpawnDriver;
using heist::policy::SpawnFacts;
using heist::policy::SpawnStep;
using heist::policy::Topology;

// 16 places: 2 per core, 2 cores per socket... 4 per rank, 2 ranks per node, 2 nodes.
Topology machine16() { return Topology::uniform({2, 1, 1, 2, 2, 2}); }

TEST(SearchDriver, StepsGoToAWorkerHereOrToTheRankOfThePlace) {
  const Topology t = machine16();
  Options o;
  o.victim.kind = heist::VictimSpec::Kind::random;
  SearchDriver d(o, t, SearchSetup{6, 4, 4});  // place 6: rank 1 (places 4..7)
  ASSERT_TRUE(d.can_steal());
  int here = 0, away = 0;
  for (int i = 0; i < 300; ++i) {
    const SearchStep s = d.next(true);
    ASSERT_NE(s.choice.place, 6);
    if (s.choice.place >= 4 && s.choice.place < 8) {
      ASSERT_EQ(s.kind, SearchStep::Kind::steal_here);
      EXPECT_EQ(s.target, s.choice.place - 4);
      ++here;
    } else {
      ASSERT_EQ(s.kind, SearchStep::Kind::steal_rank);
      EXPECT_EQ(s.target, t.rank_of(s.choice.place));
      ++away;
    }
    d.on_result(s, 0);
  }
  EXPECT_GT(here, 0);
  EXPECT_GT(away, 0);
  // Outside a distributed region a place of another process is no step.
  for (int i = 0; i < 100; ++i) {
    const SearchStep s = d.next(false);
    EXPECT_EQ(s.kind, s.choice.place >= 4 && s.choice.place < 8 ? SearchStep::Kind::steal_here : SearchStep::Kind::none);
  }
}

// After a steal that took tasks the next search tries the same victim
// first, once (a worker of this process or another rank), then goes on with
// its victim policy.
TEST(SearchDriver, TriesTheLastVictimThatHadTasksFirstOnce) {
  const Topology t = machine16();
  for (const auto victim : {heist::VictimSpec::Kind::random, heist::VictimSpec::Kind::hvs}) {
    Options o;
    o.victim.kind = victim;
    SearchDriver d(o, t, SearchSetup{6, 4, 4});
    int retried = 0;
    for (int i = 0; i < 200; ++i) {
      const SearchStep s = d.next(true);
      if (s.kind == SearchStep::Kind::none) continue;
      d.on_result(s, 2);  // a success: the next step is the same victim
      const SearchStep again = d.next(true);
      EXPECT_EQ(again.kind, s.kind);
      EXPECT_EQ(again.target, s.target);
      EXPECT_EQ(again.choice.place, s.choice.place);
      d.on_result(again, 0);  // the retry failed: back to the policy's own steps
      int same = 0;
      for (int k = 0; k < 8; ++k) {
        const SearchStep next = d.next(true);
        same += next.choice.place == s.choice.place ? 1 : 0;
        d.on_result(next, 0);
      }
      EXPECT_LT(same, 8);
      ++retried;
    }
    EXPECT_EQ(retried, 200);
  }
}

TEST(SearchDriver, OnePlaceNoSearch) {
  const Topology t = Topology::uniform({1, 1, 1, 1, 1, 1});
  SearchDriver d(Options{}, t, SearchSetup{0, 0, 1});
  EXPECT_FALSE(d.can_steal());
}

TEST(SearchDriver, PollRoundAfterWorkersMinusOneFailuresBetweenProcesses) {
  const Topology t = machine16();
  SearchDriver d(Options{}, t, SearchSetup{0, 0, 4});
  for (int round = 0; round < 3; ++round) {
    EXPECT_FALSE(d.failed(true, false));
    EXPECT_FALSE(d.failed(false, false));  // not counted: no other process to poll
    EXPECT_FALSE(d.failed(true, false));
    EXPECT_TRUE(d.failed(true, false));
  }
}

TEST(SearchDriver, PollsAfterEveryFailureWhileItsAnswerIsAwaited) {
  const Topology t = machine16();
  SearchDriver d(Options{}, t, SearchSetup{0, 0, 4});
  EXPECT_FALSE(d.failed(true, false));
  EXPECT_TRUE(d.failed(true, true));  // its request is open: poll now, not after 3
  EXPECT_TRUE(d.failed(true, true));
  EXPECT_FALSE(d.failed(false, true));  // no region across processes: nothing to poll
  // The answer came: the round starts over (a poll just took place).
  EXPECT_FALSE(d.failed(true, false));
  EXPECT_FALSE(d.failed(true, false));
  EXPECT_TRUE(d.failed(true, false));
}

TEST(SearchDriver, BacksOffOncePerFailedSweepOfTheVictims) {
  const Topology t = machine16();
  SearchDriver d(Options{}, t, SearchSetup{0, 0, 4});  // HVS: a walk of 2 + 4 + 8 + 16 attempts
  for (int sweep = 0; sweep < 3; ++sweep) {
    for (int i = 1; i < 30; ++i) EXPECT_FALSE(d.backs_off()) << "failure " << i << " of sweep " << sweep;
    EXPECT_TRUE(d.backs_off());
  }
  // A success starts a new sweep.
  for (int i = 0; i < 20; ++i) EXPECT_FALSE(d.backs_off());
  SearchStep s = d.next(true);
  d.on_result(s, 1);
  for (int i = 1; i < 30; ++i) EXPECT_FALSE(d.backs_off());
  EXPECT_TRUE(d.backs_off());
  // Two workers: HVS's one phase is the machine's top, 4 log2 2 = 4 attempts.
  const Topology two = Topology::uniform({2, 1, 1, 1, 1, 1});
  SearchDriver pair(Options{}, two, SearchSetup{0, 0, 2});
  ASSERT_TRUE(pair.can_steal());
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 3; ++j) EXPECT_FALSE(pair.backs_off());
    EXPECT_TRUE(pair.backs_off());
  }
  // Random victims: one other place, so every failure is a failed sweep.
  Options random;
  random.victim.kind = heist::VictimSpec::Kind::random;
  SearchDriver random_pair(random, two, SearchSetup{0, 0, 2});
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(random_pair.backs_off());
}

TEST(SearchDriver, SuccessOnlyRequestsAcrossNodesOnceTheInsideWalkIsDone) {
  const Topology t = machine16();
  Options o;
  o.victim.kind = heist::VictimSpec::Kind::success_only;
  SearchDriver d(o, t, SearchSetup{2, 0, 4});
  int steps = 0;
  SearchStep s = d.next(true);
  while (s.kind != SearchStep::Kind::request && steps < 100) {
    ASSERT_TRUE(s.kind == SearchStep::Kind::steal_here || s.kind == SearchStep::Kind::steal_rank);
    EXPECT_LT(s.choice.place, 8);  // inside node 0 only
    d.on_result(s, 0);
    s = d.next(true);
    ++steps;
  }
  ASSERT_EQ(s.kind, SearchStep::Kind::request);
  EXPECT_EQ(steps, 14);  // the inside walk: cache 2, process 4, node 8
  const std::uint32_t adverts[4] = {0, 9, 0, 5};  // rank 1 is on this node: never asked
  heist::platform::Rng rng(3);
  EXPECT_EQ(d.next_rank(rng, adverts), std::optional<int>(3));
  // Without requests (no region), the walk goes on inside the node.
  EXPECT_NE(d.next(false).kind, SearchStep::Kind::request);
}

// The help floor (policy/help_floor.hpp): by default only between
// processes; under it a waiter claims only deeper tasks, and steps to other
// processes only from a root's wait.
TEST(HelpFloor, DeeperTasksOnlyAndOtherProcessesOnlyFromTheRoot) {
  using heist::WaiterSteals;
  using heist::policy::help_floor;
  using heist::policy::kNoFloor;
  using heist::policy::may_claim;
  using heist::policy::may_leave_process;
  EXPECT_EQ(help_floor(WaiterSteals::automatic, false, 5), kNoFloor);
  EXPECT_EQ(help_floor(WaiterSteals::automatic, true, 5), 5);
  EXPECT_EQ(help_floor(WaiterSteals::deeper, false, 5), 5);
  EXPECT_EQ(help_floor(WaiterSteals::any, true, 5), kNoFloor);
  EXPECT_TRUE(may_claim(kNoFloor, 0));
  EXPECT_FALSE(may_claim(5, 4));
  EXPECT_FALSE(may_claim(5, 5));
  EXPECT_TRUE(may_claim(5, 6));
  EXPECT_TRUE(may_leave_process(kNoFloor, 8));
  EXPECT_TRUE(may_leave_process(help_floor(WaiterSteals::deeper, true, 0), 8));  // the root's wait
  EXPECT_FALSE(may_leave_process(help_floor(WaiterSteals::deeper, true, 1), 8));
  EXPECT_TRUE(may_leave_process(help_floor(WaiterSteals::deeper, true, 1), 1));  // nobody else could go
}

// Whether a wait suspends instead of helping (policy::wait_suspends): the
// continuation-stealing policies' waits always do, the others' only with
// --suspend-waits on.
TEST(HelpFloor, WaitsSuspendUnderContinuationStealingOrWhenAsked) {
  using heist::SuspendWaits;
  using heist::policy::wait_suspends;
  EXPECT_FALSE(wait_suspends(SuspendWaits::automatic, false));
  EXPECT_TRUE(wait_suspends(SuspendWaits::automatic, true));
  EXPECT_TRUE(wait_suspends(SuspendWaits::on, false));
  EXPECT_TRUE(wait_suspends(SuspendWaits::on, true));
}

TEST(HelpFloor, AutoSuspendsWaitsAcrossProcessesWhereFibersMayRun) {
  using heist::SuspendWaits;
  using heist::policy::resolve_suspend_waits;
  EXPECT_EQ(resolve_suspend_waits(SuspendWaits::automatic, false, true), SuspendWaits::automatic);
  EXPECT_EQ(resolve_suspend_waits(SuspendWaits::automatic, true, true), SuspendWaits::on);
  EXPECT_EQ(resolve_suspend_waits(SuspendWaits::automatic, true, false), SuspendWaits::automatic);  // --continuations off
  EXPECT_EQ(resolve_suspend_waits(SuspendWaits::on, false, true), SuspendWaits::on);
}

TEST(SpawnDriver, PacesInlineCreditsToThePollPeriod) {
  Options o;
  o.policy = SpawnPolicy::bounded;
  o.queue_bound = 1;
  o.poll_period_us = 100;  // 100,000 ns
  SpawnDriver d(o, 2);
  SpawnFacts f;
  f.held = 5;     // past the bound: inline
  f.levels = 10;  // deep below the stolen task, not a queued generation
  double now = 1e6;
  EXPECT_EQ(d.decide(SpawnPolicy::bounded, f, true, now).credits, 0);  // long since the last grant: 1 halved to 0
  std::int64_t last = 0;
  for (int i = 0; i < 10; ++i) {  // grants close together: 0 to 1, then doubled up to a paced bounded's 256
    now += 10;
    const auto step = d.decide(SpawnPolicy::bounded, f, true, now);
    ASSERT_EQ(step.action, SpawnAction::run_inline);
    EXPECT_EQ(step.credits, std::min<std::int64_t>(256, std::max<std::int64_t>(1, last * 2)));
    last = step.credits;
  }
  EXPECT_EQ(last, 256);
  now += 1e6;
  EXPECT_EQ(d.decide(SpawnPolicy::bounded, f, true, now).credits, 128);  // far apart: halved
  EXPECT_EQ(d.decide(SpawnPolicy::bounded, f, false, now).credits, 1024);  // not paced: the policy's
  for (int i = 0; i < 12; ++i) now += 10, last = d.decide(SpawnPolicy::bounded, f, true, now).credits;
  EXPECT_EQ(last, 256);  // paced again: never past 256, where bounded's looks are its polls
  f.inline_budget = 100;
  EXPECT_EQ(d.decide(SpawnPolicy::bounded, f, false, now).credits, 100);  // never past the stack's room
  EXPECT_TRUE(d.poll_due(100'000));
  EXPECT_FALSE(d.poll_due(99'999));
}

// Past 256 credits a paced bounded grant grows only while its spawns run
// so fast that the pace's worth of them takes under an eighth of the poll
// period, timed by the worker's count of inline spawns: fib's 2.5 ns
// spawns, not a grant cut short after a few (a pop or a thief's request
// drops the credits), nor UTS's 80 ns ones.
TEST(SpawnDriver, PacedGrantsGrowPast256OnlyForSpawnsThatRunFast) {
  Options o;
  o.policy = SpawnPolicy::bounded;
  o.queue_bound = 1;
  o.poll_period_us = 20;  // an eighth: 2,500 ns
  SpawnFacts f;
  f.held = 5;     // past the bound: inline
  f.levels = 10;  // not a queued generation
  // `grants` slow paths, each after the last grant's credits ran inline
  // (at most `cut` of them: a pop or a request drops the rest) at
  // `ns_per_spawn`, plus 100 ns of slow path; returns the last grant.
  double now = 0;
  std::int64_t last = 0;
  const auto run = [&](SpawnDriver& d, double ns_per_spawn, std::int64_t cut, int grants) {
    for (int i = 0; i < grants; ++i) {
      const std::int64_t ran = std::min(last, cut);
      now += static_cast<double>(ran) * ns_per_spawn + 100;
      f.inlined += static_cast<std::uint64_t>(ran);
      const auto step = d.decide(SpawnPolicy::bounded, f, true, now);
      EXPECT_EQ(step.action, SpawnAction::run_inline);
      last = step.credits;
    }
    return last;
  };
  const std::int64_t all = std::int64_t{1} << 40;
  SpawnDriver fine(o, 2);
  EXPECT_EQ(run(fine, 2.5, all, 20), 1024);  // fib: 1,024 spawns take 2.6 us (the policy's 1,024 at most)
  EXPECT_EQ(run(fine, 2.5, all, 20), 1024);  // and it stays there
  EXPECT_EQ(run(fine, 80, all, 1), 512);     // UTS-like spawns: 1,024 took 82 us, past the period: halved
  EXPECT_EQ(run(fine, 80, all, 1), 256);     // 41 us: halved again
  last = 0;
  SpawnDriver cut_short(o, 2);
  EXPECT_EQ(run(cut_short, 2.5, 8, 20), 256);  // cut short after 8 spawns: 256 at 15 ns a spawn
  last = 0;
  SpawnDriver coarse(o, 2);
  EXPECT_EQ(run(coarse, 35, all, 20), 256);  // 256 in 9 us, under half the period: as far as 35 ns spawns go
}

// matmul's shape: a loop spawning 6 ms tasks with a 20 us poll period. Every grant
// comes long after the last one, so no credit is granted: each spawn takes
// the slow path, which polls (a credit would run the next 6 ms task inline
// unpolled, and with one task queued per two spawns the loop kept two of
// every three tasks: 267 of 400 on the spawning rank).
TEST(SpawnDriver, SpawnsFurtherApartThanThePollPeriodGetNoCredits) {
  Options o;
  o.policy = SpawnPolicy::bounded;
  o.poll_period_us = 20;
  SpawnDriver d(o, 2);
  SpawnFacts f;
  f.queued = 1;
  f.held = 1;
  f.public_tasks = 1;  // a task is public: lazy creation inlines the rest
  f.levels = 10;       // deep below the stolen task, not a queued generation
  double now = 0;
  for (int i = 0; i < 5; ++i) {
    now += 6e6;
    const auto step = d.decide(SpawnPolicy::bounded, f, true, now);
    ASSERT_EQ(step.action, SpawnAction::run_inline);
    EXPECT_EQ(step.credits, 0) << "spawn " << i;
  }
  // The spawns come close together again: credits come back (0, 1, 2, 4).
  for (const std::int64_t want : {1, 2, 4}) {
    now += 1'000;  // 1 us: under half the period
    EXPECT_EQ(d.decide(SpawnPolicy::bounded, f, true, now).credits, want);
  }
}

// A thief's request publishes the private tasks queued earlier, even when
// this spawn runs inline (a full bounded queue never pushes or pops while
// the owner runs inline, so nothing else would).
TEST(SpawnDriver, AThiefAskingReleasesPrivateTasks) {
  Options o;
  o.policy = SpawnPolicy::bounded;
  o.queue_demand = false;
  o.queue_bound = 4;
  SpawnDriver d(o, 2);
  SpawnFacts f;
  f.queued = 4;
  f.held = 6;  // the bound is reached: inline
  f.public_tasks = 0;
  f.thief_asked = true;
  SpawnStep step = d.decide(SpawnPolicy::bounded, f, false, 0);
  EXPECT_EQ(step.action, SpawnAction::run_inline);
  EXPECT_TRUE(step.release);
  f.thief_asked = false;  // nobody asked: the tasks stay private
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, false, 0).release);
  f.thief_asked = true;
  f.public_tasks = 4;  // all public already: nothing to release
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, false, 0).release);
  f.public_tasks = 0;
  f.held = 2;  // room in the queue: this spawn queues, and its push answers the request
  step = d.decide(SpawnPolicy::bounded, f, false, 0);
  EXPECT_EQ(step.action, SpawnAction::queue);
  EXPECT_FALSE(step.release);
}

// Which inline answers stand until a thief asks (the store-free path of a
// body's Context may then skip counting spawns): inline's and bounded's
// with demand, in one process; not bounded's without demand (a full queue
// that thieves drain is seen only by its next look), not slaw's or
// work-first's (they count spawns and depth), and never in a paced run
// (its slow path is where it polls).
TEST(SpawnDriver, InlineAnswersThatStandUntilAThiefAsks) {
  Options o;
  o.policy = SpawnPolicy::bounded;  // queue_demand on
  SpawnFacts f;
  f.held = 1;
  f.public_tasks = 1;  // nobody needs more: inline
  f.levels = 5;        // below the queued generations
  SpawnDriver d(o, 2);
  SpawnStep step = d.decide(SpawnPolicy::bounded, f, false, 0);
  ASSERT_EQ(step.action, SpawnAction::run_inline);
  EXPECT_TRUE(step.until_asked);
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, true, 0).until_asked);  // paced: polls on its slow path
  step = d.decide(SpawnPolicy::inline_child, f, false, 0);
  ASSERT_EQ(step.action, SpawnAction::run_inline);
  EXPECT_TRUE(step.until_asked);
  EXPECT_FALSE(d.decide(SpawnPolicy::help_first, f, false, 0).until_asked);  // queues
  f.public_tasks = 0;  // demanded: queued, no inline answer at all
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, false, 0).until_asked);
  o.queue_demand = false;
  o.queue_bound = 1;
  SpawnDriver full(o, 2);
  step = full.decide(SpawnPolicy::bounded, f, false, 0);  // held at the bound: inline, until the next look
  ASSERT_EQ(step.action, SpawnAction::run_inline);
  EXPECT_FALSE(step.until_asked);
  SpawnFacts deep;
  deep.inline_frames = 1;
  deep.queued = 0;
  SpawnDriver slaw(o, 2);
  EXPECT_FALSE(slaw.decide(SpawnPolicy::slaw, deep, false, 0).until_asked);
  deep.can_expose = false;
  EXPECT_FALSE(slaw.decide(SpawnPolicy::work_first, deep, false, 0).until_asked);
}

TEST(SpawnDriver, AThiefAskingAWorkerWithNothingPrivateRerootsItsTask) {
  Options o;
  o.policy = SpawnPolicy::bounded;  // queue_demand on, queued_levels auto
  SpawnDriver d(o, 16);             // 16 workers: 5 levels
  ASSERT_EQ(d.queued_levels(), 5u);
  SpawnFacts f;
  f.queued = 2;
  f.held = 5;
  f.public_tasks = 2;  // nothing private: the work is in inline frames
  f.levels = 7;
  f.thief_asked = true;
  SpawnStep step = d.decide(SpawnPolicy::bounded, f, false, 0);
  EXPECT_TRUE(step.reroot);
  EXPECT_EQ(step.action, SpawnAction::queue_public);  // the request itself is answered as before
  f.thief_asked = false;  // nobody asked
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, false, 0).reroot);
  f.thief_asked = true;
  f.queued = 3;  // a private task is left: releasing it answers the request
  EXPECT_FALSE(d.decide(SpawnPolicy::bounded, f, false, 0).reroot);
  // One worker (no queued levels) and HotSLAW's exact policy never reroot.
  f.queued = 2;
  SpawnDriver one(o, 1);
  EXPECT_FALSE(one.decide(SpawnPolicy::bounded, f, false, 0).reroot);
  SpawnDriver two(o, 2);  // two workers have a queued level
  EXPECT_TRUE(two.decide(SpawnPolicy::bounded, f, false, 0).reroot);
  o.queue_demand = false;
  SpawnDriver hotslaw(o, 16);
  EXPECT_FALSE(hotslaw.decide(SpawnPolicy::bounded, f, false, 0).reroot);
}

// A queued generation's spawn publishes one task; the demand rule's
// queue_public below them releases half of the private ones, as before.
TEST(SpawnDriver, QueuedGenerationsPublishOneTask) {
  Options o;
  o.policy = SpawnPolicy::bounded;
  SpawnDriver d(o, 16);  // 3 queued levels
  SpawnFacts f;
  f.held = 3;
  f.queued = 3;
  f.levels = 0;
  SpawnStep step = d.decide(SpawnPolicy::bounded, f, false, 0);
  EXPECT_EQ(step.action, SpawnAction::queue_public);
  EXPECT_TRUE(step.publish_one);
  f.levels = 5;  // below the queued generations: the demand rule
  step = d.decide(SpawnPolicy::bounded, f, false, 0);
  EXPECT_EQ(step.action, SpawnAction::queue_public);
  EXPECT_FALSE(step.publish_one);
}

TEST(SpawnDriver, ContinuationStealingQueuesOnAPinnedStackOrAfterARemoteRequest) {
  EXPECT_EQ(SpawnDriver::effective_kind(SpawnPolicy::work_first, true, false), SpawnPolicy::help_first);
  EXPECT_EQ(SpawnDriver::effective_kind(SpawnPolicy::adaptive, false, true), SpawnPolicy::help_first);
  EXPECT_EQ(SpawnDriver::effective_kind(SpawnPolicy::work_first, false, false), SpawnPolicy::work_first);
  EXPECT_EQ(SpawnDriver::effective_kind(SpawnPolicy::bounded, true, true), SpawnPolicy::bounded);
}

}  // namespace
