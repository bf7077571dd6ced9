// Spawn policies (seed 000 §3 and §5.1): decide at each spawn whether the new
// task is queued (help-first) or run inline inside spawn (HotSLAW's library
// work-first). Pure logic: the caller passes the queue length and the number
// of inline frames active on its stack.
//  * help-first: always queue;   * work-first: always inline;
//  * bounded: queue while the worker holds fewer than `queue_bound` tasks
//    (HotSLAW's bounded queues: help-first until the queue is full, inline
//    while it is, help-first again as soon as space frees). A HotSLAW slot
//    keeps a task's input and output until the task terminates, so the
//    caller passes as `queued` the tasks queued plus those running on its
//    stack. With Options::queue_demand (the default) the worker also inlines
//    while no other worker needs the task: it queues only while its private
//    queue is empty or a thief has found its public part empty (lazy task
//    creation, as in lazy binary splitting); the runtime passes that as
//    `queued` >= bound;
//  * slaw: SLAW's adaptive switch with its three knobs: from help-first to
//    work-first once F tasks are queued, back to help-first once S inline
//    frames are active; the mode is re-evaluated every INT spawns only.
#pragma once

#include <cstddef>

#include "heist/options.hpp"

namespace heist::policy {

class SpawnDecider {
 public:
  explicit SpawnDecider(const Options& o) noexcept
      : kind_(o.policy),
        bound_(static_cast<std::size_t>(o.queue_bound)),
        slaw_s_(static_cast<unsigned>(o.slaw_stack_frames)),
        slaw_f_(static_cast<std::size_t>(o.slaw_queue_tasks)),
        slaw_int_(static_cast<unsigned>(o.slaw_interval)) {}

  // true: queue the task; false: run it inline.
  bool defer(std::size_t queued, unsigned inline_frames) noexcept {
    switch (kind_) {
      case SpawnPolicy::help_first: return true;
      case SpawnPolicy::work_first: return false;
      case SpawnPolicy::bounded: return queued < bound_;
      case SpawnPolicy::slaw: return slaw(queued, inline_frames);
    }
    return true;
  }

  bool slaw_help_first() const noexcept { return slaw_help_first_; }

 private:
  bool slaw(std::size_t queued, unsigned inline_frames) noexcept {
    if (++since_eval_ >= slaw_int_) {
      since_eval_ = 0;
      // Never back to work-first while S frames are active: the stack would
      // grow by up to INT frames per round, without bound.
      if (slaw_help_first_ && queued >= slaw_f_ && inline_frames < slaw_s_) slaw_help_first_ = false;
      else if (!slaw_help_first_ && inline_frames >= slaw_s_) slaw_help_first_ = true;
    }
    return slaw_help_first_;
  }

  SpawnPolicy kind_;
  std::size_t bound_;
  unsigned slaw_s_;
  std::size_t slaw_f_;
  unsigned slaw_int_;
  unsigned since_eval_ = 0;
  bool slaw_help_first_ = true;
};

}  // namespace heist::policy
