// Spawn policies (seed 000 §3 and §5.1): decide at each spawn whether the new
// task is queued (help-first) or run inline inside spawn (HotSLAW's library
// work-first). Pure logic: the worker passes the facts, the decider answers.
//  * help-first: always queue;   * work-first: always inline;
//  * bounded: queue while the worker holds fewer than `queue_bound` tasks
//    (HotSLAW's bounded queues: help-first until the queue is full, inline
//    while it is, help-first again as soon as space frees). A HotSLAW slot
//    keeps a task's input and output until the task terminates, so `held`
//    counts the tasks queued plus the queued ones running on the stack.
//    With Options::queue_demand (the default) the worker also inlines while
//    no other worker can use the task (lazy task creation): it queues only
//    when nothing of it is public or a thief has asked (then for the next
//    kAskedTasks spawns), and publishes that task at once;
//  * slaw: SLAW's adaptive switch with its three knobs: from help-first to
//    work-first once F tasks are queued, back to help-first once S inline
//    frames are active; the mode is re-evaluated every INT spawns only.
#pragma once

#include <cstddef>
#include <cstdint>

#include "heist/options.hpp"

namespace heist::policy {

struct SpawnFacts {
  std::size_t held = 0;          // bounded: tasks queued + queued tasks running on this stack
  std::size_t queued = 0;        // tasks in the worker's deque
  std::size_t public_tasks = 0;  // of those, how many thieves can take now
  unsigned inline_frames = 0;    // task bodies nested on the worker's stack
  bool thief_asked = false;      // a thief found nothing (or took the last task) since the last decision
};

enum class SpawnAction {
  queue,         // push into the private part of the deque
  queue_public,  // push and publish at once (it is for a thief)
  run_inline,    // run inside spawn
};

class SpawnDecider {
 public:
  // Spawns queued after a thief asks: one for the asker, the rest so the
  // next request finds work at once.
  static constexpr int kAskedTasks = 4;

  explicit SpawnDecider(const Options& o) noexcept
      : kind_(o.policy),
        bound_(static_cast<std::size_t>(o.queue_bound)),
        demand_(o.queue_demand),
        slaw_s_(static_cast<unsigned>(o.slaw_stack_frames)),
        slaw_f_(static_cast<std::size_t>(o.slaw_queue_tasks)),
        slaw_int_(static_cast<unsigned>(o.slaw_interval)) {}

  SpawnAction decide(const SpawnFacts& f) noexcept {
    if (f.thief_asked) asked_ = kAskedTasks;
    switch (kind_) {
      case SpawnPolicy::help_first: return SpawnAction::queue;
      case SpawnPolicy::work_first: return SpawnAction::run_inline;
      case SpawnPolicy::bounded: return bounded(f);
      case SpawnPolicy::slaw: return slaw(f) ? SpawnAction::queue : SpawnAction::run_inline;
    }
    return SpawnAction::queue;
  }

  // After a run_inline answer, how many further spawns may run inline
  // without asking again (the runtime's fast path spends them). SLAW counts
  // every spawn, so it grants none.
  std::int64_t inline_credits() const noexcept {
    switch (kind_) {
      case SpawnPolicy::work_first: return std::int64_t{1} << 40;
      case SpawnPolicy::bounded: return 64;
      case SpawnPolicy::help_first:
      case SpawnPolicy::slaw: return 0;
    }
    return 0;
  }

  bool slaw_help_first() const noexcept { return slaw_help_first_; }

 private:
  SpawnAction bounded(const SpawnFacts& f) noexcept {
    if (f.held >= bound_) return SpawnAction::run_inline;
    if (!demand_) return SpawnAction::queue;
    if (asked_ > 0) {
      --asked_;
      return SpawnAction::queue_public;
    }
    return f.public_tasks == 0 ? SpawnAction::queue_public : SpawnAction::run_inline;
  }

  bool slaw(const SpawnFacts& f) noexcept {
    if (++since_eval_ >= slaw_int_) {
      since_eval_ = 0;
      // Never back to work-first while S frames are active: the stack would
      // grow by up to INT frames per round, without bound.
      if (slaw_help_first_ && f.queued >= slaw_f_ && f.inline_frames < slaw_s_) slaw_help_first_ = false;
      else if (!slaw_help_first_ && f.inline_frames >= slaw_s_) slaw_help_first_ = true;
    }
    return slaw_help_first_;
  }

  SpawnPolicy kind_;
  std::size_t bound_;
  bool demand_;
  unsigned slaw_s_;
  std::size_t slaw_f_;
  unsigned slaw_int_;
  unsigned since_eval_ = 0;
  bool slaw_help_first_ = true;
  int asked_ = 0;  // spawns still to queue because a thief asked
};

}  // namespace heist::policy
