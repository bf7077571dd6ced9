// `heist sim --calibrate`: the per-task costs of an app, measured here by
// running the real app on one worker (sequential, then heist with the
// bounded and the help-first spawn policy) and solving
//   T = inlined * inline_ns + queued * queued_ns + sequential_nodes * sequential_ns + busy
// for the two per-task costs (sequential_ns from the sequential run).
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "common/app.hpp"
#include "heist/options.hpp"
#include "sim/simulate.hpp"

namespace heist::cli {

struct Calibration {
  sim::TaskCosts costs;
  nlohmann::json measured;  // the runs the costs come from
};

Calibration calibrate(apps::App& app, const Options& options, const sim::AnyWorkload& workload, int repeat,
                      std::ostream& log);

// Costs from a file written with --costs-out (the "costs" object of a calibration).
sim::TaskCosts load_costs(const std::string& path);
nlohmann::json calibration_json(const Calibration& c, const std::string& app, const nlohmann::json& params);

}  // namespace heist::cli
