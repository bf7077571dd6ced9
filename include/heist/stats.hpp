// Statistics a run reports: per worker, and summed. Counters are always on
// (a plain increment of worker-owned memory); times are taken only on the idle
// path, so measuring costs nothing on spawn, pop or execute. Time in work is
// the time a worker was active minus its search and steal time.
#pragma once

#include <cstdint>
#include <vector>

namespace heist {

struct WorkerStats {
  std::uint64_t tasks_created = 0;   // spawn/async calls, inlined ones included
  std::uint64_t tasks_inlined = 0;   // run inside spawn ("serialized", seed 000 Table 1)
  std::uint64_t tasks_executed = 0;  // task bodies run by this worker (inlined included)
  std::uint64_t tasks_stolen = 0;    // tasks taken from other workers
  std::uint64_t steals = 0;          // successful steal operations
  std::uint64_t steal_attempts = 0;  // steal operations tried
  std::uint64_t failed_steals = 0;   // attempts that found nothing
  std::uint64_t releases = 0;        // times the owner moved tasks to its public part
  std::uint64_t acquires = 0;        // times the owner took public tasks back
  std::uint64_t max_queue = 0;       // largest queue length seen at a spawn
  double time_active_s = 0;  // inside a parallel region (not parked)
  double time_work_s = 0;    // active - search - steal
  double time_search_s = 0;  // looking for work: failed attempts and back-off
  double time_steal_s = 0;   // successful steal operations
};

struct RunStats {
  std::vector<WorkerStats> workers;
  WorkerStats total() const;
};

}  // namespace heist
