// The columns of HotSLAW Table 1 for one run, as `heist bench --json`
// reports them in its `table1` object (docs/benchmarks.md defines each):
//   tasks_created               spawns and asyncs, inlined ones included, all workers and ranks
//   avg_task_time_us            total work time / tasks executed: the mean exclusive time of a task
//   task_io                     each task function with its input and output bytes
//   task_creation_overhead_us   one queued task beyond a call of its body (spawn_probe.hpp)
//   inline_spawn_overhead_us    one inline (serialized) spawn beyond a call of its body
//   steals                      successful steal operations, inside processes and between them
//   tasks_serialized            spawns run inline (bounded queue full or unneeded: "cutoff serialized")
//   tasks_serialized_share      tasks_serialized / tasks_created
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/spawn_probe.hpp"
#include "common/task_io.hpp"
#include "heist/stats.hpp"

namespace heist::apps {

// `cost` is absent when the probe did not run (then the overhead columns are null).
nlohmann::json table1_json(const std::vector<TaskIo>& io, const RunStats& run, const std::optional<SpawnCost>& cost);

// The largest task input of an app (what the probe's task copies).
std::size_t largest_input(const std::vector<TaskIo>& io);

}  // namespace heist::apps
