#include "stats/stats_json.hpp"

#include <charconv>
#include <iterator>
#include <string>

#include "heist/option_table.hpp"

namespace heist::stats {

namespace {
constexpr const char* kLevelNames[] = {"worker", "cache", "numa", "socket", "process", "node", "machine"};
constexpr std::size_t kMachine = 6;
}  // namespace

nlohmann::json to_json(const WorkerStats& w) {
  nlohmann::json levels = nlohmann::json::object();
  for (std::size_t l = 1; l < std::size(w.levels); ++l) {
    const LevelStealStats& s = w.levels[l];
    levels[kLevelNames[l]] = {{"attempts", s.attempts}, {"successes", s.successes}, {"failures", s.failures},
                              {"tasks", s.tasks}, {"time_s", s.time_s}};
  }
  // Every counter under its field name, the RMA ones under "rma" (stats.hpp's lists).
  nlohmann::json out = {{"rank", w.rank}, {"node", w.node}};
  nlohmann::json rma = nlohmann::json::object();
#define HEIST_REPORT(field, how, what) out[#field] = w.field;
#define HEIST_REPORT_RMA(key, how, what) rma[#key] = w.rma_##key;
  HEIST_WORKER_COUNTERS(HEIST_REPORT)
  HEIST_WORKER_TIMES(HEIST_REPORT)
  HEIST_WORKER_RMA_COUNTERS(HEIST_REPORT_RMA)
#undef HEIST_REPORT
#undef HEIST_REPORT_RMA
  out["rma"] = std::move(rma);
  out["failed_steals_inter_node"] = w.levels[kMachine].failures;
  out["levels"] = std::move(levels);
  return out;
}

nlohmann::json options_json(const Options& options, bool simulated_only) {
  nlohmann::json out = nlohmann::json::object();
  for (const OptionSpec& spec : option_table()) {
    if (simulated_only && !spec.simulated) continue;
    const std::string text = spec.get(options);
    const char* first = text.data();
    const char* last = text.data() + text.size();
    long long integer = 0;
    double number = 0;
    if (auto [end, ec] = std::from_chars(first, last, integer); !text.empty() && ec == std::errc() && end == last)
      out[option_key(spec)] = integer;
    else if (auto [end2, ec2] = std::from_chars(first, last, number); !text.empty() && ec2 == std::errc() && end2 == last)
      out[option_key(spec)] = number;
    else
      out[option_key(spec)] = text;
  }
  return out;
}

std::string params_text(const nlohmann::json& params) {
  const nlohmann::json defaults = options_json(Options{}, false);
  nlohmann::json app = nlohmann::json::object();
  std::string changed;
  for (const auto& [key, value] : params.items()) {
    if (!defaults.contains(key)) {
      app[key] = value;
    } else if (value != defaults[key]) {
      std::string flag = "--" + key;
      for (char& c : flag)
        if (c == '_') c = '-';
      changed += " " + flag + " " + (value.is_string() ? value.get<std::string>() : value.dump());
    }
  }
  return "params " + app.dump() + (changed.empty() ? "" : ";" + changed);
}

nlohmann::json to_json(const RunStats& run) {
  nlohmann::json out = to_json(run.total());
  nlohmann::json workers = nlohmann::json::array();
  for (const WorkerStats& w : run.workers) workers.push_back(to_json(w));
  out["workers"] = std::move(workers);
  return out;
}

}  // namespace heist::stats
