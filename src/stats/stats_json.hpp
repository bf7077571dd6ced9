// JSON export of run statistics (DESIGN layer 6): the `stats` object of
// `heist bench --json` and of every tool that reads it.
#pragma once

#include <nlohmann/json.hpp>

#include "heist/stats.hpp"

namespace heist::stats {

nlohmann::json to_json(const WorkerStats& worker);
// Totals at the top level, and `workers`: one object per worker.
nlohmann::json to_json(const RunStats& run);

}  // namespace heist::stats
