// SpawnDriver: the spawn slow path's decisions, shared by the runtime
// (sched::Worker) and the simulator (sim::Engine). Pure: no threads, clocks,
// MPI or TLS; the caller passes the time (ns, as a double) and the facts.
//
//  * which policy decides: effective_kind() — a stack that cannot migrate,
//    or a request from another rank, turns continuation stealing into
//    help-first for this spawn (continuations never leave a process);
//  * queue / queue_public / inline / expose: SpawnDecider (spawn_policy.hpp);
//  * inline credits and their pacing: between processes (paced) a thief of
//    another rank is heard only when this worker polls, which inline spawns
//    never do, so the slow path polls when the poll period has passed
//    (poll_due) and the credits it grants are paced to run about that often:
//    halved (down to 0: every spawn takes the slow path) when slow paths come
//    further apart than the period, doubled (up to what the policy grants)
//    when they come closer than half of it; bounded's past
//    kPolledBoundedCredits only when closer than an eighth.
#pragma once

#include <algorithm>
#include <cstdint>

#include "heist/options.hpp"
#include "policy/decision_log.hpp"
#include "policy/spawn_policy.hpp"

namespace heist::policy {

struct SpawnStep {
  SpawnAction action = SpawnAction::queue;
  std::int64_t credits = 0;  // run_inline: further spawns the fast path may inline
  // A thief asked, this spawn runs inline, and tasks queued earlier are
  // still private: publish (half of) them now. Without it a worker whose
  // bounded queue is full runs inline and never pushes or pops, so the
  // tasks it queued stay private for as long as its inline work lasts (UTS
  // T3L with --queue-demand off ran serially on 16 cores: 0 steals). A
  // spawn that queues answers the request itself (queue_public, or the
  // push's release).
  bool release = false;
  // The spawning task's generations count from 0 again (its frame's
  // SpawnFacts::levels): a thief asked, nothing private was left to give,
  // so what this worker holds lies in its inline frames; the task's next
  // --queued-levels generations are queued instead (SpawnDecider).
  bool reroot = false;
  // queue_public for one of the --queued-levels generations: publish one
  // task (SplitDeque::publish_one), not half of the private ones as the
  // demand rule's release() does. Half handed thieves a stream of shallow
  // tasks they did not ask for, and one is all bpc needs to find its next
  // producer without a failed steal (docs/design/work-between-processes.md).
  bool publish_one = false;
  // run_inline: the answer stands until a thief asks or the stack is full
  // (SpawnDecider::inline_until_asked), never in a paced run, whose slow
  // path is also where it polls: a fast path that counts nothing may then
  // inline past `credits` (the runtime's path for a body's Context,
  // WorkerCore::context_limit).
  bool until_asked = false;
};

class SpawnDriver {
 public:
  // The run: `processes` processes of `process_workers` workers (sizes
  // --queued-levels auto; the runtime learns `processes` with size_run).
  SpawnDriver(const Options& o, int process_workers, int processes = 1) noexcept;

  // The policy that decides this spawn, from the one in force. A thread's
  // own stack never migrates, so it cannot expose a continuation: under
  // continuation stealing its spawns are queued, to run on fibers. Another
  // process asked for work: continuations never leave this one, so the next
  // spawn is queued as a task that can.
  static SpawnPolicy effective_kind(SpawnPolicy in_force, bool pinned_stack, bool remote_asked) noexcept {
    if ((pinned_stack || remote_asked) && steals_continuations(in_force)) return SpawnPolicy::help_first;
    return in_force;
  }

  // Paced runs: the slow path polls first when this much time has passed
  // since the last poll.
  bool poll_due(double since_last_poll_ns) const noexcept { return since_last_poll_ns >= period_ns_; }
  // After a queued task (countdown: tasks left until the next counted poll,
  // already decremented for this one): poll every --poll-interval tasks, or
  // sooner once the poll period has passed. Counting alone, a rank running
  // long tasks polled only every --poll-interval of them: other ranks'
  // requests, its mailbox and its load on the push board all waited that
  // long (docs/design/paced-grants.md).
  bool poll_after_task(int countdown, double since_last_poll_ns) const noexcept {
    return countdown <= 0 || poll_due(since_last_poll_ns);
  }

  // Inline: the runtime's spawn slow path runs it once per queued task or
  // credit grant; GCC leaves it out of line once the slow path itself is
  // inlined, a call on every queued spawn
  // (docs/design/spawn-fast-path-and-context.md).
  [[gnu::always_inline]] SpawnStep decide(SpawnPolicy kind, const SpawnFacts& facts, bool paced_run, double now_ns) {
    SpawnStep step{decider_.decide(kind, facts), 0, false, false, false, false};
    step.release = step.action == SpawnAction::run_inline && facts.thief_asked && facts.queued > facts.public_tasks;
    step.reroot = decider_.reroot();
    step.publish_one = step.action == SpawnAction::queue_public && decider_.top_level();
    if (step.action == SpawnAction::run_inline) {
      const std::int64_t wanted = decider_.inline_credits();
      step.credits = paced_run ? paced(wanted, kind == SpawnPolicy::bounded ? kPolledBoundedCredits : wanted, facts.inlined, now_ns) : wanted;
      step.until_asked = !paced_run && decider_.inline_until_asked(kind);
    }
    if (log_ != nullptr) [[unlikely]] record(kind, facts, paced_run, now_ns, step);
    return step;
  }

  bool slaw_help_first() const noexcept { return decider_.slaw_help_first(); }
  // Every process's workers are known (between processes): sizes --queued-levels auto.
  void size_run(int process_workers, int processes) noexcept { decider_.size_run(process_workers, processes); }
  unsigned queued_levels() const noexcept { return decider_.queued_levels(); }
  void record_to(DecisionLog* log) noexcept { log_ = log; }

 private:
  // Paced runs: bounded's looks at its queue are also where it polls, so
  // past 256 credits its grants grow only while a grant's worth of inline
  // spawns, at the pace the worker's count says they ran since the last
  // grant, takes under an eighth of the poll period: the finest spawns
  // (fib's), not nqueens' or UTS's, whose runs the rule leaves unchanged.
  // Why 256, and why by time: docs/design/paced-grants.md.
  static constexpr std::int64_t kPolledBoundedCredits = 256;
  // The next grant of a paced run, at most `wanted`; past `soft_cap` it
  // grows only while that many inline spawns take under an eighth of the
  // period, timed from the worker's count of them (`inlined`).
  std::int64_t paced(std::int64_t wanted, std::int64_t soft_cap, std::uint64_t inlined, double now_ns) noexcept;
  void record(SpawnPolicy kind, SpawnFacts facts, bool paced_run, double now_ns, SpawnStep step);  // by value: the copies are made on the cold path only

  SpawnDecider decider_;
  double period_ns_;
  double last_grant_ns_ = 0;
  std::int64_t pace_ = 1;
  std::uint64_t inlined_at_grant_ = 0;
  DecisionLog* log_ = nullptr;
};

}  // namespace heist::policy
