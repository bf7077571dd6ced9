// StackState: what a Worker knows about the stack it is running on — the
// nesting of task bodies, their frames and finish scopes, its help loops —
// as opposed to what belongs to the worker itself (deque, statistics, RNG).
// Continuation stealing moves stacks between workers (a fiber suspended on
// one worker resumes on another), so this state travels with the stack: on
// every switch the worker swaps its copy out into the stack it leaves and
// the arriving stack's copy in (Worker::exchange_stack).
#pragma once

#include <cstddef>
#include <deque>
#include <memory>
#include <vector>

#include "heist/detail/abi.hpp"
#include "sched/frame.hpp"

namespace heist::sched {

// The containers of a stack's state. They stay where they are (in the Worker
// for its own stack, in the Fiber for a fiber); a switch swaps a pointer.
struct StackContainers {
  std::deque<FinishRecord> finishes;   // open finish scopes, innermost last
  std::deque<Frame> inline_frames;     // frames of inline tasks that queued joined children
  std::vector<std::unique_ptr<std::byte[]>> exec_buffers;  // one slot per help depth
};

struct StackState {
  // WorkerCore's part (read by the inline fast paths).
  int above_frame = 0;
  int frame_level = 0;
  detail::FrameCore* frame = nullptr;
  const void* checked_body = nullptr;
  // Worker's part.
  int depth = 0;       // queued tasks running on this stack
  int help_depth = 0;  // help loops on this stack
  StackContainers* containers = nullptr;
  int context = -1;       // the id FinishScope::owner names this stack by
  bool native = true;     // a thread's own stack (never migrates) rather than a fiber
  int no_migrate = 0;     // > 0: code on this stack below here must stay on its worker
  int base_level = 0;     // level of the stack's bottom: SLAW's S counts frames above it
  const char* stack_low = nullptr;   // bounds, for the inline policies' stack guard
  const char* stack_high = nullptr;
};

}  // namespace heist::sched
