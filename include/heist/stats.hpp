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

// Every counter of WorkerStats, described once: X(field, how workers
// combine, what it counts). The struct's members, RunStats::total() and the
// JSON report (`stats`, heist bench --json) are all expanded from these
// lists, so a counter added here is declared, summed and reported.
// `sum`: added over workers; `max`: the largest.
#define HEIST_WORKER_COUNTERS(X)                                                                              \
  X(tasks_created, sum, "spawn/async calls, inlined ones included")                                             \
  X(tasks_inlined, sum, "run inside spawn (serialized, HotSLAW Table 1)")                                        \
  X(tasks_executed, sum, "task bodies run by this worker (inlined included)")                                    \
  X(tasks_stolen, sum, "tasks taken from other workers")                                                          \
  X(steals, sum, "successful steal operations (inside the process)")                                              \
  X(steal_attempts, sum, "steal operations tried (inside the process)")                                           \
  X(failed_steals, sum, "attempts that found nothing (inside the process)")                                       \
  X(help_floor_refusals, sum, "of those, a waiter left a chunk not deeper than its frame (--waiter-steals)")      \
  X(releases, sum, "times the owner moved tasks to its public part")                                             \
  X(acquires, sum, "times the owner took public tasks back")                                                      \
  X(max_queue, max, "largest queue length seen at a spawn")                                                       \
  /* inline decisions that let bodies taking a heist::Context spawn on the store-free path: when nonzero,    */ \
  /* tasks_created, tasks_inlined and tasks_executed leave those spawns out (--count-context-spawns on)      */ \
  X(uncounted_grants, sum, "store-free grants whose spawns are not counted")                                      \
  /* continuation stealing (work-first, adaptive; zero otherwise) */                                              \
  X(continuations_exposed, sum, "spawns that ran the child on a fresh fiber, parent stealable")                   \
  X(continuations_stolen, sum, "continuations this worker resumed for another")                                   \
  X(suspensions, sum, "waits that suspended their fiber")                                                         \
  /* between processes (MPI; zero in a one-process run) */                                                        \
  X(remote_steal_attempts, sum, "one-sided steal attempts on other ranks")                                        \
  X(remote_steals, sum, "... that took tasks")                                                                    \
  X(remote_failed_steals, sum, "... that found nothing")                                                          \
  X(remote_tasks_stolen, sum, "tasks taken from other ranks")                                                     \
  X(public_releases, sum, "releases to the process's public queue (window)")                                      \
  X(public_acquires, sum, "tasks taken back from it by this process")                                             \
  X(tasks_kept_local, sum, "taken for another process but local-only (or closures): put back")                    \
  X(completions_sent, sum, "completion entries sent to other ranks (a task's, or a report's)")                    \
  X(tasks_reported, sum, "escaping tasks of other ranks run here and reported by foreign proxies")                \
  X(completions_applied, sum, "reports from other ranks applied here")                                            \
  X(requests_served, sum, "success-only: requests of other ranks this worker answered")                           \
  X(tasks_served, sum, "... with this many tasks")                                                                \
  X(pushes, sum, "--balance push: transfers this worker sent")                                                    \
  X(tasks_pushed, sum, "... with this many tasks")                                                                \
  X(mailbox_rounds, sum, "sends of this worker's answers or pushes, each one round of one or more batches")       \
  X(mailbox_full_waits, sum, "rounds that found a target's mailbox full and waited")

// MPI one-sided operations, reported under "rma" in the JSON (field rma_KEY).
#define HEIST_WORKER_RMA_COUNTERS(X)                                                  \
  X(atomics, sum, "MPI fetch-and-op, compare-and-swap, accumulate")                    \
  X(gets, sum, "MPI_Get")                                                               \
  X(puts, sum, "MPI_Put")                                                               \
  X(flushes, sum, "blocking completions (round trips)")                                 \
  X(lazy_flushes, sum, "deferred completion of non-blocking calls")                     \
  X(bytes, sum, "bytes moved")                                                          \
  X(inter_node, sum, "operations whose target is on another (virtual) node")

// Seconds, summed over workers. Time in work is active - search - steal -
// comm. Between processes, comm is the polls of the public queue and
// completion inbox made between tasks and the completions sent to other
// ranks (PGAS-WS's "communication time"); polls made while idle count as search.
#define HEIST_WORKER_TIMES(X)                                  \
  X(time_active_s, sum, "inside a parallel region (not parked)") \
  X(time_work_s, sum, "active - search - steal - comm")           \
  X(time_search_s, sum, "looking for work: failed attempts and back-off") \
  X(time_steal_s, sum, "successful steal operations")             \
  X(time_comm_s, sum, "polls and completions between tasks")

struct WorkerStats {
  std::uint32_t rank = 0;  // process (MPI rank) of this worker
  std::uint32_t node = 0;  // node (real or virtual) of that process
#define HEIST_DECLARE_COUNTER(field, combine, what) std::uint64_t field = 0;
#define HEIST_DECLARE_RMA_COUNTER(key, combine, what) std::uint64_t rma_##key = 0;
#define HEIST_DECLARE_TIME(field, combine, what) double field = 0;
  HEIST_WORKER_COUNTERS(HEIST_DECLARE_COUNTER)
  HEIST_WORKER_RMA_COUNTERS(HEIST_DECLARE_RMA_COUNTER)
  HEIST_WORKER_TIMES(HEIST_DECLARE_TIME)
#undef HEIST_DECLARE_COUNTER
#undef HEIST_DECLARE_RMA_COUNTER
#undef HEIST_DECLARE_TIME
  LevelStealStats levels[7];  // by hierarchy level (see LevelStealStats)
};

struct RunStats {
  std::vector<WorkerStats> workers;
  WorkerStats total() const;
};

}  // namespace heist
