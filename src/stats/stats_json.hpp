// JSON export of run statistics (the stats layer of docs/architecture.md): the `stats` object of
// `heist bench --json` and of every tool that reads it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "heist/options.hpp"
#include "heist/stats.hpp"

namespace heist::stats {

nlohmann::json to_json(const WorkerStats& worker);
// Totals at the top level, and `workers`: one object per worker.
nlohmann::json to_json(const RunStats& run);

// The runtime options of a run as `params` entries, one per option of the
// option table (only the simulated ones with `simulated_only`), keyed by
// option_key ("--queue-demand" -> "queue_demand"): the one schema of
// `heist bench --json` and `heist sim --json`. Values are the table's own
// text (what the flag takes), as numbers where that text is one.
nlohmann::json options_json(const Options& options, bool simulated_only);

// For people: `params` as "app params {...}; options --flag value ..." with
// only the options whose value differs from the built-in default.
std::string params_text(const nlohmann::json& params);

}  // namespace heist::stats
