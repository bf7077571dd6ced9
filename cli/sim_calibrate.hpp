// `heist sim --calibrate`: the per-task costs of an app, measured here by
// running the real app on one worker (sequential, then heist with the
// bounded and the help-first spawn policy) and solving
//   T = inlined * inline_ns + queued * queued_ns + sequential_nodes * sequential_ns + busy
// for the two per-task costs (sequential_ns from the sequential run); then
// the machine's slowdown under load: the help-first run again as one copy
// per usable CPU, at once (forked processes), against its time alone.
#pragma once

#include <iosfwd>

#include <nlohmann/json.hpp>

#include "common/app.hpp"
#include "heist/options.hpp"
#include "sim/simulate.hpp"

namespace heist::cli {

struct Calibration {
  sim::TaskCosts costs;
  // The machine's slowdown under load (MachineSpec::loaded_slowdown): the
  // median time of one-worker runs when `copies` of them run at once, one
  // per usable CPU, over the time of one alone; 1 on one CPU, and 0 where it
  // was not measured (a file written before it was).
  double loaded_slowdown = 0;
  int copies = 0;
  nlohmann::json measured;  // the runs the costs come from
};

Calibration calibrate(apps::App& app, const Options& options, const sim::AnyWorkload& workload, int repeat,
                      std::ostream& log);

// A file written with --costs-out: its "costs" object and, if it has one,
// its "machine" object's loaded_slowdown (else 0).
Calibration load_costs(const std::string& path);
nlohmann::json calibration_json(const Calibration& c, const std::string& app, const nlohmann::json& params);

}  // namespace heist::cli
