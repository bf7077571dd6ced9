// Frame: what the runtime keeps for each task while it runs (and for the
// root context and each finish): where its asyncs register (its immediately
// enclosing finish, IEF), its joined children (spawn/wait) and, after
// fence(), the generations that order them. Lives on the stack of the worker
// running the task; owned by that worker (join.owner).
#pragma once

#include <cstdint>
#include <exception>
#include <memory>

#include "heist/detail/abi.hpp"
#include "sched/fence_state.hpp"
#include "sched/task_failure.hpp"

namespace heist::sched {

struct Frame : detail::FrameCore {
  Frame(int owner, Frame* parent_frame, detail::FinishScope* enclosing, int task_level) noexcept
      : parent(parent_frame),
        ief(enclosing),
        levels(parent_frame != nullptr ? parent_frame->levels : 0),
        depth(parent_frame != nullptr ? parent_frame->depth + static_cast<std::uint32_t>(task_level - parent_frame->level)
                                      : 0) {
    join.owner = owner;
    level = task_level;
  }
  Frame(const Frame&) = delete;
  Frame& operator=(const Frame&) = delete;

  // Where a joined child registers now.
  detail::FinishScope* join_target() noexcept { return fence ? fence->current() : &join; }

  // True when no joined child is outstanding (fence generations included).
  bool joined_drained() const noexcept {
    return fence ? fence->drained() : join.drained_for_owner();
  }

  // The first failure of a joined child (sched/task_failure.hpp), taken;
  // null if none. Call once the children drained.
  std::exception_ptr take_failure() noexcept;

  Frame* parent;
  detail::FinishScope* ief;
  // Generations below the nearest stolen (or root) task: what its spawns
  // tell the spawn policy (SpawnFacts::levels). A queued task's frame takes
  // it from the task header; inline tasks and finish bodies inherit it.
  std::uint32_t levels;
  // Tasks queued from this frame since it began or re-rooted: the n of
  // SpawnDecider::child_levels for the next one.
  std::uint32_t queued_children = 0;
  // Depth in the task tree of the task this frame belongs to (TaskHeader::
  // depth). A queued task's frame takes it from the header; a frame made
  // for an inline task or a finish body counts the inline tasks between it
  // and its parent frame (their levels). The running task's depth is
  // depth + (WorkerCore::level - level).
  std::uint32_t depth;
  std::unique_ptr<FenceState> fence;  // created by the first fence()
};

// A finish scope opened by heist::finish on this worker: its body runs in a
// frame of its own whose IEF is the scope.
struct FinishRecord : Frame {
  FinishRecord(int owner, Frame* parent_frame, int task_level) noexcept
      : Frame(owner, parent_frame, &scope, task_level) {
    scope.owner = owner;
  }
  detail::FinishScope scope;
};

inline std::exception_ptr Frame::take_failure() noexcept {
  // The fence's generations include the frame's own join scope.
  return fence ? fence->take_failure() : sched::take_failure(join);
}

}  // namespace heist::sched
