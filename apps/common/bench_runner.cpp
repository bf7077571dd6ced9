#include "common/bench_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <ostream>

#include <heist/heist.hpp>

#include "common/spawn_probe.hpp"
#include "common/table1.hpp"
#include "stats/human_number.hpp"
#include "stats/stats_json.hpp"

namespace heist::apps {

namespace {

struct Timed {
  double seconds;
  RunOutput output;
  bool verified;
};

template <class Run>
Timed timed(App& app, Run&& run) {
  const auto start = std::chrono::steady_clock::now();
  RunOutput output = run();
  const auto stop = std::chrono::steady_clock::now();
  const bool ok = app.verify(output);
  const double seconds = app.reported_time(output).value_or(std::chrono::duration<double>(stop - start).count());
  return {seconds, std::move(output), ok};
}

std::size_t median_index(const std::vector<Timed>& runs) {
  std::vector<std::size_t> order(runs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return runs[a].seconds < runs[b].seconds; });
  return order[(order.size() - 1) / 2];
}

void print_summary(std::ostream& out, const nlohmann::json& report) {
  char line[256];
  out << report["app"].get<std::string>() << " (" << report["impl"].get<std::string>() << ")  "
      << stats::params_text(report["params"]) << "\n";
  // Numbers for people: 4 significant digits (stats::human_number); the JSON keeps them all.
  const auto num = [](const nlohmann::json& v) { return v.is_number() ? stats::human_number(v.get<double>()) : v.dump(); };
  std::snprintf(line, sizeof line, "result %s  verified %s  ranks %d  workers %d  median %s s over %zu run(s)\n",
                report["result"].dump().c_str(), report["verified"].get<bool>() ? "yes" : "NO",
                report["ranks"].get<int>(), report["workers"].get<int>(), num(report["time_s"]).c_str(),
                report["times_s"].size());
  out << line;
  if (!report.contains("stats")) return;
  const nlohmann::json& t1 = report["table1"];
  std::snprintf(line, sizeof line, "table 1: avg task %s us  creation overhead %s us (inline %s us)  steals %llu  serialized %llu (%s%%)\n",
                num(t1["avg_task_time_us"]).c_str(), num(t1["task_creation_overhead_us"]).c_str(),
                num(t1["inline_spawn_overhead_us"]).c_str(), t1["steals"].get<unsigned long long>(),
                t1["tasks_serialized"].get<unsigned long long>(),
                stats::human_number(100.0 * t1["tasks_serialized_share"].get<double>(), 3).c_str());
  out << line;
  const nlohmann::json& s = report["stats"];
  std::snprintf(line, sizeof line,
                "tasks created %llu  executed %llu  inlined %llu  stolen %llu  steals %llu/%llu attempts\n",
                s["tasks_created"].get<unsigned long long>(), s["tasks_executed"].get<unsigned long long>(),
                s["tasks_inlined"].get<unsigned long long>(), s["tasks_stolen"].get<unsigned long long>(),
                s["steals"].get<unsigned long long>(), s["steal_attempts"].get<unsigned long long>());
  out << line;
  if (report["ranks"].get<int>() > 1) {
    const nlohmann::json& rma = s["rma"];
    std::snprintf(line, sizeof line,
                  "between ranks: steals %llu/%llu attempts, tasks %llu, completions %llu; RMA atomics %llu gets %llu "
                  "puts %llu flushes %llu bytes %llu\n",
                  s["remote_steals"].get<unsigned long long>(), s["remote_steal_attempts"].get<unsigned long long>(),
                  s["remote_tasks_stolen"].get<unsigned long long>(), s["completions_sent"].get<unsigned long long>(),
                  rma["atomics"].get<unsigned long long>(), rma["gets"].get<unsigned long long>(),
                  rma["puts"].get<unsigned long long>(), rma["flushes"].get<unsigned long long>(),
                  rma["bytes"].get<unsigned long long>());
    out << line;
  }
  // Steals by hierarchy level: successes/attempts (tasks).
  std::string by_level;
  for (const auto& [level, l] : s["levels"].items()) {
    if (l["attempts"].get<unsigned long long>() == 0 && l["successes"].get<unsigned long long>() == 0) continue;
    std::snprintf(line, sizeof line, "  %s %llu/%llu (%llu tasks)", level.c_str(), l["successes"].get<unsigned long long>(),
                  l["attempts"].get<unsigned long long>(), l["tasks"].get<unsigned long long>());
    by_level += line;
  }
  if (!by_level.empty())
    out << "steals by level:" << by_level << "; failed inter-node " << s["failed_steals_inter_node"].dump() << "\n";
  // Per-worker time breakdown, after PGAS-WS's per-rank figure.
  out << "rank worker      work_s    search_s     steal_s      comm_s   executed     stolen  r-stolen\n";
  int id = 0;
  int last_rank = -1;
  for (const nlohmann::json& w : s["workers"]) {
    const int rank = w["rank"].get<int>();
    if (rank != last_rank) id = 0;
    last_rank = rank;
    std::snprintf(line, sizeof line, "%4d %6d  %10s  %10s  %10s  %10s  %9llu  %9llu %9llu\n", rank, id++,
                  num(w["time_work_s"]).c_str(), num(w["time_search_s"]).c_str(), num(w["time_steal_s"]).c_str(),
                  num(w["time_comm_s"]).c_str(),
                  w["tasks_executed"].get<unsigned long long>(), w["tasks_stolen"].get<unsigned long long>(),
                  w["remote_tasks_stolen"].get<unsigned long long>());
    out << line;
  }
}

// The processes an MPI launcher started (its environment), 0 when none says.
int launcher_job_size() {
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"})
    if (const char* value = std::getenv(variable)) return std::atoi(value);
  return 0;
}

}  // namespace

RunOutput App::run_root(heist::Runtime& runtime) {
  RunOutput output;
  runtime.root([&] { output = run_parallel(); });
  return output;
}

int run_bench(App& app, const BenchSettings& settings, const Options& runtime_options, std::ostream& out) {
  std::vector<Timed> runs;
  std::vector<RunStats> stats;
  int workers = 1;
  int ranks = 1;
  warm_up(settings.warmup_s);  // every rank: before its Runtime, so that its workers start warm too
  if (settings.sequential) {
    // Under mpirun only rank 0 runs the sequential version; first every rank
    // starts a runtime of one worker (collective), only so that the ranks
    // compare their options and arguments: a rank started without --seq
    // would otherwise wait for the others' regions.
    if (launcher_job_size() > 1) {
      Options agree = runtime_options;
      agree.workers = 1;
      const Runtime check(agree);
    }
    if (std::getenv("OMPI_COMM_WORLD_RANK") != nullptr && std::string(std::getenv("OMPI_COMM_WORLD_RANK")) != "0")
      return 0;
    if (std::getenv("PMI_RANK") != nullptr && std::string(std::getenv("PMI_RANK")) != "0") return 0;
    for (int r = 0; r < settings.repeat; ++r) runs.push_back(timed(app, [&] { return app.run_sequential(); }));
  } else {
    Runtime runtime(runtime_options);
    workers = runtime.workers();
    ranks = runtime.ranks();
    const bool lead = runtime.rank() == 0;
    for (int r = 0; r < settings.repeat; ++r) {
      runtime.reset_stats();
      const auto start = std::chrono::steady_clock::now();
      RunOutput output;
      if (settings.mode == RunMode::pool) {
        std::optional<RunOutput> pooled = app.run_pool(runtime);
        if (!pooled) throw OptionError(app.name() + ": no task-pool mode (--mode pool); use --mode root");
        output = std::move(*pooled);
      } else {
        output = app.run_root(runtime);
      }
      const auto stop = std::chrono::steady_clock::now();
      const bool ok = !lead || app.verify(output);
      const double seconds = app.reported_time(output).value_or(std::chrono::duration<double>(stop - start).count());
      runs.push_back({seconds, std::move(output), ok});
      stats.push_back(runtime.stats());  // collective with several ranks
    }
    if (!lead) return 0;
  }
  // After the measured runtime is gone: the probe makes its own.
  std::optional<SpawnCost> spawn_cost;
  if (!settings.sequential && settings.spawn_probe)
    spawn_cost = measure_spawn_cost(largest_input(app.task_io()), runtime_options);
  const std::size_t mid = median_index(runs);
  nlohmann::json report;
  report["app"] = app.name();
  report["impl"] = settings.sequential ? "seq" : "heist";
  nlohmann::json params = app.params();
  if (!settings.sequential) {
    // Every runtime option, keyed as in `heist sim --json` (stats::options_json).
    params.update(stats::options_json(runtime_options, false));
    params["mode"] = settings.mode == RunMode::pool ? "pool" : "root";
  }
  report["params"] = params;
  report["ranks"] = ranks;
  report["workers"] = workers;
  report["time_s"] = runs[mid].seconds;
  report["warmup_s"] = settings.warmup_s;
  nlohmann::json times = nlohmann::json::array();
  bool verified = true;
  for (const Timed& t : runs) {
    times.push_back(t.seconds);
    verified = verified && t.verified;
  }
  report["times_s"] = times;
  report["result"] = runs[mid].output.result;
  report["verified"] = verified;
  if (!runs[mid].output.extra.empty()) report["extra"] = runs[mid].output.extra;
  if (!settings.sequential) {
    report["table1"] = table1_json(app.task_io(), stats[mid], spawn_cost);
    report["stats"] = stats::to_json(stats[mid]);
  }
  if (settings.json) out << report.dump() << std::endl;
  else print_summary(out, report);
  return verified ? 0 : 1;
}

}  // namespace heist::apps
