#include "common/table1.hpp"

#include <algorithm>

namespace heist::apps {

std::size_t largest_input(const std::vector<TaskIo>& io) {
  std::size_t largest = 0;
  for (const TaskIo& t : io) largest = std::max(largest, t.input_bytes);
  return largest;
}

nlohmann::json table1_json(const std::vector<TaskIo>& io, const RunStats& run, const std::optional<SpawnCost>& cost) {
  const WorkerStats total = run.total();
  nlohmann::json tasks = nlohmann::json::array();
  for (const TaskIo& t : io)
    tasks.push_back({{"task", t.task}, {"input_bytes", t.input_bytes}, {"output_bytes", t.output_bytes}});
  nlohmann::json out;
  out["tasks_created"] = total.tasks_created;
  out["avg_task_time_us"] =
      total.tasks_executed == 0 ? 0.0 : total.time_work_s * 1e6 / static_cast<double>(total.tasks_executed);
  out["task_io"] = std::move(tasks);
  if (cost) {
    out["task_creation_overhead_us"] = cost->queued_us;
    out["inline_spawn_overhead_us"] = cost->inline_us;
    out["probe_input_bytes"] = cost->input_bytes;
  } else {
    out["task_creation_overhead_us"] = nullptr;
    out["inline_spawn_overhead_us"] = nullptr;
    out["probe_input_bytes"] = nullptr;
  }
  out["steals"] = total.steals + total.remote_steals;
  out["tasks_serialized"] = total.tasks_inlined;
  out["tasks_serialized_share"] =
      total.tasks_created == 0 ? 0.0 : static_cast<double>(total.tasks_inlined) / static_cast<double>(total.tasks_created);
  return out;
}

}  // namespace heist::apps
