// Statistics a run reports: per worker, and summed. Counters are always on
// (a plain increment of worker-owned memory); times are taken only on the idle
// path, so measuring costs nothing on spawn, pop or execute. Time in work is
// the time a worker was active minus its search, steal and communication time.
#pragma once

#include <cstdint>
#include <vector>

namespace heist {

// Steal attempts by how far the victim was: the hierarchy level the thief
// and victim share (index as kHierarchyLevels in options.hpp: 1 cache,
// 2 numa, 3 socket, 4 process — inside the process —, 5 node, 6 machine —
// other processes). A success-only request across nodes is an attempt when
// queued and a success when its tasks arrive; it never fails, and the
// difference is requests still queued when the run ended.
struct LevelStealStats {
  std::uint64_t attempts = 0;
  std::uint64_t successes = 0;
  std::uint64_t failures = 0;
  std::uint64_t tasks = 0;  // tasks moved to the thief
  double time_s = 0;        // spent in the attempts (for a request: reading the adverts and queueing it)
};

struct WorkerStats {
  std::uint32_t rank = 0;            // process (MPI rank) of this worker
  std::uint32_t node = 0;            // node (real or virtual) of that process
  std::uint64_t tasks_created = 0;   // spawn/async calls, inlined ones included
  std::uint64_t tasks_inlined = 0;   // run inside spawn ("serialized", HotSLAW Table 1)
  std::uint64_t tasks_executed = 0;  // task bodies run by this worker (inlined included)
  std::uint64_t tasks_stolen = 0;    // tasks taken from other workers
  std::uint64_t steals = 0;          // successful steal operations
  std::uint64_t steal_attempts = 0;  // steal operations tried
  std::uint64_t failed_steals = 0;   // attempts that found nothing
  std::uint64_t help_floor_refusals = 0;    // ... of those, a waiter left a chunk not deeper than its frame (--waiter-steals)
  std::uint64_t releases = 0;        // times the owner moved tasks to its public part
  std::uint64_t acquires = 0;        // times the owner took public tasks back
  std::uint64_t max_queue = 0;       // largest queue length seen at a spawn
  // Inline decisions that let bodies taking a heist::Context spawn on the
  // store-free path: when nonzero, tasks_created, tasks_inlined and
  // tasks_executed leave those spawns out (--count-context-spawns on counts them).
  std::uint64_t uncounted_grants = 0;
  // Continuation stealing (work-first, adaptive; zero otherwise).
  std::uint64_t continuations_exposed = 0;  // spawns that ran the child on a fresh fiber, parent stealable
  std::uint64_t continuations_stolen = 0;   // continuations this worker resumed for another
  std::uint64_t suspensions = 0;            // waits that suspended their fiber
  // Between processes (MPI; zero in a one-process run). steals/steal_attempts/
  // failed_steals above count steals inside the process only.
  std::uint64_t remote_steal_attempts = 0;  // one-sided steal attempts on other ranks
  std::uint64_t remote_steals = 0;          // ... that took tasks
  std::uint64_t remote_failed_steals = 0;   // ... that found nothing
  std::uint64_t remote_tasks_stolen = 0;    // tasks taken from other ranks
  std::uint64_t public_releases = 0;        // releases to the process's public queue (window)
  std::uint64_t public_acquires = 0;        // tasks taken back from it by this process
  std::uint64_t tasks_kept_local = 0;       // taken for another process but local-only (or closures): put back
  std::uint64_t completions_sent = 0;       // completion entries sent to other ranks (a task's, or a report's)
  std::uint64_t tasks_reported = 0;         // escaping tasks of other ranks run here and reported by foreign proxies
  std::uint64_t completions_applied = 0;    // reports from other ranks applied here
  std::uint64_t requests_served = 0;        // success-only: requests of other ranks this worker answered
  std::uint64_t tasks_served = 0;           // ... with this many tasks
  std::uint64_t pushes = 0;                 // --balance push: transfers this worker sent
  std::uint64_t tasks_pushed = 0;           // ... with this many tasks
  std::uint64_t mailbox_rounds = 0;         // sends of this worker's answers or pushes, each one round of one or more batches
  std::uint64_t mailbox_full_waits = 0;     // rounds that found a target's mailbox full and waited
  std::uint64_t rma_atomics = 0;  // MPI fetch-and-op, compare-and-swap, accumulate
  std::uint64_t rma_gets = 0;
  std::uint64_t rma_puts = 0;
  std::uint64_t rma_flushes = 0;  // blocking completions (round trips)
  std::uint64_t rma_lazy_flushes = 0;  // deferred completion of non-blocking calls
  std::uint64_t rma_bytes = 0;
  std::uint64_t rma_inter_node = 0;  // operations whose target is on another (virtual) node
  double time_active_s = 0;  // inside a parallel region (not parked)
  double time_work_s = 0;    // active - search - steal
  double time_search_s = 0;  // looking for work: failed attempts and back-off
  double time_steal_s = 0;   // successful steal operations
  LevelStealStats levels[7];  // by hierarchy level (see LevelStealStats)
  // Between processes: polls of the public queue and completion inbox made
  // between tasks, and completions sent to other ranks (PGAS-WS's
  // "communication time"); polls made while idle count as search.
  double time_comm_s = 0;
};

struct RunStats {
  std::vector<WorkerStats> workers;
  WorkerStats total() const;
};

}  // namespace heist
