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
  nlohmann::json out = {
      {"tasks_created", w.tasks_created}, {"tasks_executed", w.tasks_executed},
      {"tasks_inlined", w.tasks_inlined}, {"tasks_stolen", w.tasks_stolen},
      {"steals", w.steals},               {"steal_attempts", w.steal_attempts},
      {"failed_steals", w.failed_steals}, {"releases", w.releases},
      {"acquires", w.acquires},           {"max_queue", w.max_queue},
      {"uncounted_grants", w.uncounted_grants},
      {"continuations_exposed", w.continuations_exposed}, {"continuations_stolen", w.continuations_stolen},
      {"suspensions", w.suspensions},
      {"time_active_s", w.time_active_s}, {"time_work_s", w.time_work_s},
      {"time_search_s", w.time_search_s}, {"time_steal_s", w.time_steal_s},
      {"time_comm_s", w.time_comm_s},
      {"rank", w.rank},                   {"node", w.node},
      {"remote_steal_attempts", w.remote_steal_attempts}, {"remote_steals", w.remote_steals},
      {"remote_failed_steals", w.remote_failed_steals},   {"remote_tasks_stolen", w.remote_tasks_stolen},
      {"public_releases", w.public_releases},             {"public_acquires", w.public_acquires},
      {"tasks_kept_local", w.tasks_kept_local},           {"help_floor_refusals", w.help_floor_refusals},
      {"completions_sent", w.completions_sent},           {"completions_applied", w.completions_applied},
      {"tasks_reported", w.tasks_reported},
      {"rma", {{"atomics", w.rma_atomics}, {"gets", w.rma_gets}, {"puts", w.rma_puts},
               {"flushes", w.rma_flushes}, {"lazy_flushes", w.rma_lazy_flushes}, {"bytes", w.rma_bytes},
               {"inter_node", w.rma_inter_node}}},
      {"requests_served", w.requests_served}, {"tasks_served", w.tasks_served},
      {"pushes", w.pushes},                   {"tasks_pushed", w.tasks_pushed},
      {"mailbox_rounds", w.mailbox_rounds},   {"mailbox_full_waits", w.mailbox_full_waits},
  };
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
