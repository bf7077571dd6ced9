// JSON of a simulation: the machine, the costs and the result, with the
// caller's `params` (the app's, and the runtime options keyed as in
// `heist bench --json`: stats::options_json)
// (the object `heist sim --json` prints; its field names are a contract, checked by tests/cli/check_sim_json.py:
// time_s, result, speedup, efficiency, steals per level, messages).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sim_config.hpp"

namespace heist::sim {

nlohmann::json machine_json(const MachineSpec& m);
nlohmann::json costs_json(const TaskCosts& c);
// Steals by distance: {"socket": {...}, "node": {...}, "network": {...}},
// each with attempts/steals/failed/tasks, and in_process / between_processes.
nlohmann::json steals_json(const SimResult& r);

// The whole report; `one_worker` (the same workload and costs on one
// worker) gives speedup and efficiency.
nlohmann::json report_json(const std::string& app, const nlohmann::json& params, const SimConfig& config,
                           const SimResult& result, const std::optional<SimResult>& one_worker);

}  // namespace heist::sim
