// FenceState: HotSLAW's fence (HotSLAW §2.1) for one frame. fence() closes
// the current generation of joined children and opens a new one; a task of
// generation g is held (kept out of every deque) until generations < g have
// all completed. Owner-only: only the frame's worker spawns into it,
// flushes it and reads the generations' counters (through
// FinishScope::drained_for_owner, whose acquire load makes the outputs of a
// drained generation visible to the tasks released after it).
//
// Held tasks are released by the frame's worker when it next spawns, fences
// or waits (it checks on each step of its wait loop): fence never blocks, and
// ordering is exact; a released task may start later than the last
// completion of its predecessors, never earlier.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <vector>

#include "heist/detail/abi.hpp"

namespace heist::sched {

struct DependentTask;

class FenceState {
 public:
  FenceState(detail::FinishScope& first_generation, int owner);

  detail::FinishScope* current() noexcept { return generations_.back(); }

  // Close the current generation; no-op if it and all before it are done.
  void fence();

  // Must a task of the current generation be held now?
  bool must_hold() noexcept;

  void hold(const std::byte* slot, std::size_t bytes);
  // Hold a task with a handle (spawn_handle/spawn_after): the hold owns one
  // count of its `remaining`, dropped when the hold is flushed.
  void hold(DependentTask* task);

  // Hand every releasable held task to `push` (its slot bytes) or, for a
  // task with a handle, to `release` (which drops the hold's count).
  template <class Push, class Release>
  void flush(Push&& push, Release&& release) {
    advance();
    while (!held_.empty() && held_.front().generation <= first_open_) {
      Held held = std::move(held_.front());
      held_.pop_front();
      if (held.dependent != nullptr) release(held.dependent);
      else push(held.slot.data());
    }
  }

  bool drained() noexcept;
  // The first failure recorded in any generation (sched/task_failure.hpp),
  // taken from it; null if none.
  std::exception_ptr take_failure() noexcept;

 private:
  struct Held {
    std::size_t generation;
    std::vector<std::byte> slot;
    DependentTask* dependent = nullptr;  // instead of slot bytes: a task with a handle
  };
  void advance() noexcept;  // move first_open_ past drained generations

  int owner_;
  std::vector<detail::FinishScope*> generations_;  // [0] is the frame's own join scope
  std::deque<detail::FinishScope> storage_;        // generations 1.. (stable addresses)
  std::size_t first_open_ = 0;                     // generations below it have drained
  std::deque<Held> held_;
};

}  // namespace heist::sched
