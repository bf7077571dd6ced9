#include "sim/report.hpp"

namespace heist::sim {

namespace {

nlohmann::json counts_json(const StealCounts& c) {
  return {{"attempts", c.attempts}, {"steals", c.steals}, {"failed", c.failed}, {"tasks", c.tasks}};
}

nlohmann::json per_hop(const std::array<double, kHops>& values) {
  nlohmann::json j = nlohmann::json::object();
  for (int h = 0; h < kHops; ++h) j[to_string(static_cast<Hop>(h))] = values[static_cast<std::size_t>(h)];
  return j;
}

}  // namespace

nlohmann::json machine_json(const MachineSpec& m) {
  return {{"cores_per_socket", m.cores_per_socket},
          {"sockets", m.sockets},
          {"nodes", m.nodes},
          {"ranks_per_node", m.ranks_per_node},
          {"workers", m.workers()},
          {"ranks", m.ranks()},
          {"latency_us", per_hop(m.latency_us)},
          {"bandwidth_gbs", per_hop(m.bandwidth_gbs)},
          {"loaded_slowdown", m.loaded_slowdown}};
}

nlohmann::json costs_json(const TaskCosts& c) {
  return {{"inline_ns", c.inline_ns}, {"queued_ns", c.queued_ns}, {"sequential_ns", c.sequential_ns}};
}

nlohmann::json steals_json(const SimResult& r) {
  nlohmann::json j = nlohmann::json::object();
  for (int l = 1; l < policy::kLevels; ++l) {
    const auto i = static_cast<std::size_t>(l);
    StealCounts all = r.thread_steals[i];
    all += r.remote_steals[i];
    nlohmann::json level = counts_json(all);
    level["in_process"] = counts_json(r.thread_steals[i]);
    level["between_processes"] = counts_json(r.remote_steals[i]);
    j[policy::to_string(policy::level_at(l))] = level;
  }
  return j;
}

nlohmann::json report_json(const std::string& app, const nlohmann::json& params, const SimConfig& config,
                           const SimResult& r, const std::optional<SimResult>& one_worker) {
  nlohmann::json j;
  j["app"] = app;
  j["impl"] = "sim";
  j["params"] = params;
  j["machine"] = machine_json(config.machine);
  j["workers"] = config.machine.workers();
  j["ranks"] = config.machine.ranks();
  j["costs"] = costs_json(config.costs);
  j["time_s"] = r.time_s;
  j["result"] = r.tasks;
  if (one_worker) {
    j["t1_s"] = one_worker->time_s;
    const double speedup = r.time_s > 0 ? one_worker->time_s / r.time_s : 0.0;
    j["speedup"] = speedup;
    j["efficiency"] = speedup / config.machine.workers();
  }
  j["tasks"] = {{"executed", r.tasks},          {"inlined", r.inlined},
                {"queued", r.queued},           {"released_to_windows", r.releases},
                {"taken_back", r.public_acquires}, {"max_queue", r.max_queue}};
  j["between_processes"] = {{"board_reads", r.board_reads},     {"requests", r.requests},
                            {"requests_served", r.requests_served}, {"tasks_served", r.tasks_served},
                            {"pushes", r.pushes},               {"tasks_pushed", r.tasks_pushed}};
  j["joins"] = {{"waits_helped", r.waits},
                {"suspensions", r.suspensions},
                {"completions_sent", r.completions_sent},
                {"completions_applied", r.completions_applied},
                {"tasks_reported", r.tasks_reported},
                {"late_resume_s", r.late_resume_s},
                {"late_resume_max_s", r.late_resume_max_s},
                {"inbox_wait_s", r.inbox_wait_s},
                {"help_floor_refusals", r.help_floor_refusals}};
  j["steals"] = steals_json(r);
  StealCounts total;
  for (int l = 1; l < policy::kLevels; ++l) {
    total += r.thread_steals[static_cast<std::size_t>(l)];
    total += r.remote_steals[static_cast<std::size_t>(l)];
  }
  j["steal_totals"] = counts_json(total);
  j["messages"] = {{"blocking", r.messages.blocking},
                   {"nonblocking", r.messages.nonblocking},
                   {"bytes", r.messages.bytes},
                   {"in_process_ops", r.messages.shm_ops},
                   {"owner_window_ops", r.messages.owner_ops}};
  j["time_breakdown_s"] = {{"work", r.work_s}, {"search", r.search_s}, {"steal", r.steal_s}};
  if (!r.busy_profile.busy.empty())
    j["busy_profile"] = {{"bucket_s", r.busy_profile.bucket_s},
                         {"busy", r.busy_profile.busy},
                         {"remote", r.busy_profile.remote},
                         {"suspended", r.busy_profile.suspended}};
  j["simulator"] = {{"events", r.events},
                    {"wall_s", r.wall_s},
                    {"tasks_per_wall_s", r.wall_s > 0 ? static_cast<double>(r.tasks) / r.wall_s : 0.0}};
  return j;
}

}  // namespace heist::sim
