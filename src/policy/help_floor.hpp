// The help floor: what a waiting worker may take (Options::waiter_steals),
// and whether it waits by suspending instead (Options::suspend_waits).
// Shared by the runtime (Dispatcher::help_until and try_steal,
// SplitDeque::steal_with) and the simulator (sim/engine_search.hpp). Pure:
// no threads, clocks, MPI or TLS.
//
// A task a waiter takes runs nested on its stack, above the waiting frame,
// and that frame cannot resume before the task ends, however early its own
// children complete. Between processes this buried the frames on the
// critical path: in simulated fine-grained runs a waiting frame resumed
// long after its count drained (docs/design/search-and-backoff.md).
//
// Under the floor, a worker waiting for the joined children of a task at
// depth d (TaskHeader::depth; the root task 0):
//  * claims from another worker of its process only a chunk whose oldest
//    task is deeper than d (the oldest of a chunk is its shallowest: a
//    deque holds a path's spawns, oldest first), as oneTBB's
//    depth-restricted stealing did: what it takes is then smaller than what
//    it waits for, in the common case part of it;
//  * takes a step to another process (a one-sided steal, a success-only
//    request) only when d is 0 or its process has no other worker: it
//    cannot see the depth of what it would get there before it claims
//    (every task there is deeper than a root), and the chunks of other
//    processes' oldest, largest subtrees are for its process's idle
//    workers to fetch. A process of one worker has nobody else: there the
//    waiter still goes (without this exception its waiters idled while
//    the other rank held their children).
// What the floor won and cost, and the exception's figures:
// docs/design/search-and-backoff.md.
//
// Never restricted: its own deque, what other processes send it (a
// success-only answer, a push, a completion), the process's own unclaimed
// offer, and the waits of finish scopes and regions (escaping asyncs live
// anywhere in the tree). So every queued task is still run — by its
// deque's owner at the latest — and the floor cannot deadlock a wait; it
// only idles a waiter whose process holds nothing deep enough.
#pragma once

#include <cstdint>

#include "heist/options.hpp"

namespace heist::policy {

// No restriction: every depth is above it.
inline constexpr std::int64_t kNoFloor = -1;

// The floor of a wait for the joined children of a task at `frame_depth`.
// other_processes: the run spans processes (a distributed region is on).
constexpr std::int64_t help_floor(WaiterSteals mode, bool other_processes, std::uint32_t frame_depth) noexcept {
  const bool deeper = mode == WaiterSteals::deeper || (mode == WaiterSteals::automatic && other_processes);
  return deeper ? std::int64_t{frame_depth} : kNoFloor;
}

// May a thief under `floor` claim a chunk whose oldest task is at `oldest_depth`?
constexpr bool may_claim(std::int64_t floor, std::uint32_t oldest_depth) noexcept {
  return std::int64_t{oldest_depth} > floor;
}

// Does a wait whose own deque ran dry with tasks still outstanding suspend
// its stack (its fiber: the worker goes on with any work, and the wait
// resumes once they completed) rather than help under the floor above?
// Under a policy that steals continuations it always does (its waits are
// the continuation engine's); under the others with --suspend-waits on.
constexpr bool wait_suspends(SuspendWaits mode, bool steals_continuations) noexcept {
  return steals_continuations || mode == SuspendWaits::on;
}

// What --suspend-waits auto means for a run: `on` where the run spans
// processes and may use fibers (--continuations not off). There a process
// whose workers all wait, each helping on top of its waiting frame, has
// nobody left who may fetch work from another process, and frames whose
// children drained stay buried under the tasks they help with
// (docs/results/journal/2026-11-29-where-fibs-waits-go-256-cores.md). In one process
// helping waits cost less than fiber switches, so they stay the default there.
constexpr SuspendWaits resolve_suspend_waits(SuspendWaits mode, bool spans_processes, bool fibers_allowed) noexcept {
  return mode == SuspendWaits::on || (spans_processes && fibers_allowed) ? SuspendWaits::on : SuspendWaits::automatic;
}

// May a waiter under `floor`, in a process of `workers_here` workers, take
// a step to another process? Where every task is deeper than the floor
// (none, or a root's wait: a spawned task is at depth 1 at least), or
// where no other worker of its process could go instead.
constexpr bool may_leave_process(std::int64_t floor, int workers_here) noexcept {
  return floor < 1 || workers_here <= 1;
}

}  // namespace heist::policy
