// SpawnMachine: the spawn slow path as a pure state machine, in the order
// both executors follow — the runtime (sched::WorkerQueue, applying each
// answer with the deque's atomics and the process balancer's MPI calls) and
// the simulator (sim::Engine, charging its cost). Pure: no threads, clocks,
// MPI or TLS; time comes in as an argument, and every answer is data.
//
// One spawn that left the inline fast path (no credits left, or a thief
// asked) is, in this order:
//   1. enter(entry)         -> poll first? queue it as a pool seed?
//   2. kind(...)            -> the policy that decides this spawn;
//      wanted(kind, paced)  -> which facts the executor must observe;
//   3. decide(kind, facts, ask) -> a SpawnPlan, applied in its field order:
//      release, reroot, grant (run_inline), then the action; a queued child
//      is published after its push (plan.publish);
//   4. after_queue(remote_asked) -> poll now (another rank waits for it).
// Around tasks: task_edge(edge) says whether the credits of the last grant
// are dropped (every task that came through a deque, at its start and at its
// end: it may run under another policy, and its grant was made under its
// own), and poll_after_task whether a queued task's end polls.
//
// The inline fast path stays outside the machine: it spends the credits the
// last plan granted (WorkerCore::room in the runtime, Worker::credits in the
// simulator), and nothing else.
//
// Every answer can be recorded (record_to): tests/sim/test_same_actions.cpp
// compares the runtime's and the simulator's records of the same program.
#pragma once

#include <cstdint>

#include "heist/options.hpp"
#include "policy/decision_log.hpp"
#include "policy/spawn_driver.hpp"
#include "policy/spawn_policy.hpp"

namespace heist::policy {

class SpawnMachine {
 public:
  SpawnMachine(const Options& o, int process_workers, int processes = 1) noexcept
      : driver_(o, process_workers, processes) {}

  // 1. A spawn left the fast path.
  SpawnEntryStep enter(const SpawnEntry& e) noexcept {
    SpawnEntryStep s;
    s.poll = e.paced && driver_.poll_due(e.now_ns - e.last_poll_ns);
    s.queue_seed = e.seeding;
    if (log_ != nullptr) [[unlikely]] log_->entries.emplace_back(EntryRecord{e, s});
    return s;
  }

  // 2. The policy that decides this spawn (SpawnDriver::effective_kind), and
  // the facts it needs: the executor observes only these (each costs it a
  // read of shared state, or the stack pointer).
  static SpawnPolicy kind(SpawnPolicy in_force, bool pinned_stack, bool remote_asked) noexcept {
    return SpawnDriver::effective_kind(in_force, pinned_stack, remote_asked);
  }
  static FactsWanted wanted(SpawnPolicy kind, bool paced) noexcept {
    FactsWanted w;
    w.idle_workers = kind == SpawnPolicy::bounded;      // bounded's demand rule
    w.inline_budget = kind != SpawnPolicy::help_first;  // help-first never inlines
    w.expose = steals_continuations(kind);
    w.inlined = paced;  // SpawnDriver::paced times its grants by it
    return w;
  }

  // 3. The plan for this spawn.
  [[gnu::always_inline]] SpawnPlan decide(SpawnPolicy kind, const SpawnFacts& facts, const SpawnAsk& ask) {
    const SpawnStep step = driver_.decide(kind, facts, ask.paced, ask.now_ns);
    SpawnPlan p;
    p.action = step.action;
    p.release = step.release;
    p.reroot = step.reroot;
    if (step.action == SpawnAction::run_inline && !ask.fenced) {  // under a fence: no credits (WorkerCore::room)
      p.credits = step.credits;
      p.free_levels = step.until_asked ? facts.inline_budget : 0;
    }
    if (step.action == SpawnAction::queue_public) p.publish = step.publish_one ? Publish::one : Publish::half;
    if (log_ != nullptr) [[unlikely]] log_->entries.emplace_back(PlanRecord{ask.fenced, p});
    return p;
  }

  // 4. A child was queued: another rank that asked waits for it, so poll now.
  bool after_queue(bool remote_asked) noexcept {
    if (log_ != nullptr && remote_asked) [[unlikely]] log_->entries.emplace_back(AfterQueueRecord{true});
    return remote_asked;
  }

  // A task starts or ends: true when the credits of the last grant are
  // dropped (the next spawn asks the policy again).
  bool task_edge(TaskEdge edge) noexcept {
    const bool drop = true;
    if (log_ != nullptr) [[unlikely]] log_->entries.emplace_back(EdgeRecord{edge, drop});
    return drop;
  }

  // After a queued task of a distributed run (SpawnDriver::poll_after_task).
  bool poll_after_task(int countdown, double since_last_poll_ns) const noexcept {
    return driver_.poll_after_task(countdown, since_last_poll_ns);
  }

  bool slaw_help_first() const noexcept { return driver_.slaw_help_first(); }
  void size_run(int process_workers, int processes) noexcept { driver_.size_run(process_workers, processes); }
  unsigned queued_levels() const noexcept { return driver_.queued_levels(); }
  // The decisions alone (tests replay recorded inputs through it).
  SpawnDriver& driver() noexcept { return driver_; }
  void record_to(DecisionLog* log) noexcept {
    log_ = log;
    driver_.record_to(log);
  }

 private:
  SpawnDriver driver_;
  DecisionLog* log_ = nullptr;
};

}  // namespace heist::policy
