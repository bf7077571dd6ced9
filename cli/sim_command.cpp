// `heist sim <app> [app options] --cores-per-socket C --sockets S --nodes N
//  [--ranks-per-node R] [--victim V] [--chunk K] [--protocol P] [--seed S]
//  [--task-ns I[,Q] | --costs FILE | --calibrate] [--sweep-nodes LIST]
//  [--csv FILE] [--json]` — the simulator (sim/, docs/simulator.md).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <heist/option_table.hpp>

#include "commands.hpp"
#include "common/app.hpp"
#include "sim/default_costs.hpp"
#include "sim/report.hpp"
#include "sim/simulate.hpp"
#include "sim_calibrate.hpp"
#include "stats/human_number.hpp"
#include "stats/stats_json.hpp"

namespace heist::cli {

namespace {

struct SimState {
  sim::MachineSpec machine;
  std::string latency, bandwidth;  // "hop=value,..." overrides
  std::string task_ns;             // "I" or "I,Q"
  double sequential_ns = -1;
  std::string costs_file, costs_out, csv, sweep;
  bool calibrate = false;
  bool calibrate_only = false;
  const CLI::Option* slowdown_option = nullptr;  // given: it overrides the calibration's
  int calibrate_repeat = 3;
  bool json = false;
  bool baseline = true;
  std::size_t busy_buckets = 0;
  std::string backoff = "heist";
  std::map<std::string, std::string> runtime_flags;
  std::vector<std::pair<CLI::App*, std::unique_ptr<apps::App>>> apps;
};

// "socket=0.4,network=7.2" -> overrides in `values` (self, socket, node, network).
void parse_per_hop(const std::string& text, std::array<double, sim::kHops>& values, const char* flag) {
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) throw std::invalid_argument(std::string(flag) + ": expected hop=value, got '" + item + "'");
    const std::string hop = item.substr(0, eq);
    int index = -1;
    for (int h = 0; h < sim::kHops; ++h)
      if (hop == sim::to_string(static_cast<sim::Hop>(h))) index = h;
    if (index < 0) throw std::invalid_argument(std::string(flag) + ": unknown hop '" + hop + "' (self, socket, node, network)");
    try {
      std::size_t used = 0;
      values[static_cast<std::size_t>(index)] = std::stod(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1) throw std::invalid_argument("trailing characters");
    } catch (const std::exception&) {
      throw std::invalid_argument(std::string(flag) + ": '" + item.substr(eq + 1) + "' is not a number");
    }
  }
}

std::vector<int> parse_int_list(const std::string& text, const char* flag) {
  std::vector<int> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      const int v = std::stoi(item, &used);
      if (used != item.size() || v < 1) throw std::invalid_argument("bad");
      out.push_back(v);
    } catch (const std::exception&) {
      throw std::invalid_argument(std::string(flag) + ": '" + item + "' is not a positive integer");
    }
  }
  if (out.empty()) throw std::invalid_argument(std::string(flag) + ": empty list");
  return out;
}

sim::TaskCosts given_costs(const SimState& s) {
  sim::TaskCosts c;
  const auto comma = s.task_ns.find(',');
  try {
    c.inline_ns = std::stod(s.task_ns.substr(0, comma));
    c.queued_ns = comma == std::string::npos ? c.inline_ns : std::stod(s.task_ns.substr(comma + 1));
  } catch (const std::exception&) {
    throw std::invalid_argument("--task-ns: expected INLINE[,QUEUED] nanoseconds, got '" + s.task_ns + "'");
  }
  c.sequential_ns = s.sequential_ns < 0 ? c.inline_ns : s.sequential_ns;
  c.validate();
  return c;
}

void progress(int done, int total, double elapsed_s, const std::string& what) {
  constexpr int kWidth = 30;
  const int filled = total > 0 ? done * kWidth / total : kWidth;
  std::fprintf(stderr, "\r[%s%s] %d/%d  %s s  %s   ", std::string(static_cast<std::size_t>(filled), '#').c_str(),
               std::string(static_cast<std::size_t>(kWidth - filled), '.').c_str(), done, total,
               stats::human_number(elapsed_s, 3).c_str(), what.c_str());
  if (done == total) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

// Numbers for people: 4 significant digits (stats::human_number); the JSON keeps them all.
std::string num(const nlohmann::json& v) { return stats::human_number(v.get<double>()); }

std::string costs_text(const nlohmann::json& c) {
  return "inline " + num(c["inline_ns"]) + " ns, queued " + num(c["queued_ns"]) + " ns, sequential " +
         num(c["sequential_ns"]) + " ns";
}

void print_summary(const nlohmann::json& r) {
  std::printf("%s (simulated)  %s\n", r["app"].get<std::string>().c_str(), stats::params_text(r["params"]).c_str());
  const nlohmann::json& m = r["machine"];
  std::printf("machine: %d node(s) x %d socket(s) x %d core(s), %d rank(s) of %d worker(s)\n", m["nodes"].get<int>(),
              m["sockets"].get<int>(), m["cores_per_socket"].get<int>(), m["ranks"].get<int>(),
              m["workers"].get<int>() / m["ranks"].get<int>());
  const nlohmann::json& c = r["costs"];
  std::printf("task costs (%s): %s\n", c.value("source", "?").c_str(), costs_text(c).c_str());
  std::printf("simulated time %s s, tasks %llu", num(r["time_s"]).c_str(),
              static_cast<unsigned long long>(r["result"].get<std::uint64_t>()));
  if (r.contains("speedup"))
    std::printf(", speedup %s over one worker (%s s), efficiency %s", num(r["speedup"]).c_str(), num(r["t1_s"]).c_str(),
                num(r["efficiency"]).c_str());
  std::printf("\nsteals        attempts      steals      failed       tasks\n");
  for (const char* level : {"cache", "numa", "socket", "process", "node", "machine"}) {
    if (r["steals"][level]["attempts"].get<std::uint64_t>() == 0) continue;
    const nlohmann::json& l = r["steals"][level];
    std::printf("%-8s %12llu %11llu %11llu %11llu\n", level, l["attempts"].get<unsigned long long>(),
                l["steals"].get<unsigned long long>(), l["failed"].get<unsigned long long>(),
                l["tasks"].get<unsigned long long>());
  }
  const nlohmann::json& msg = r["messages"];
  std::printf("messages: %llu blocking, %llu non-blocking, %llu bytes; %llu in-process ops\n",
              msg["blocking"].get<unsigned long long>(), msg["nonblocking"].get<unsigned long long>(),
              msg["bytes"].get<unsigned long long>(), msg["in_process_ops"].get<unsigned long long>());
  const nlohmann::json& j = r["joins"];
  if (j["waits_helped"].get<std::uint64_t>() > 0 || j["completions_applied"].get<std::uint64_t>() > 0)
    std::printf("joins: %llu waits helped, resumed %s s after their counts drained (summed; longest %s s); "
                "%llu completions from other processes (%llu tasks in foreign proxies' reports), %s s in "
                "inboxes (summed); %llu claims left above a waiting frame\n",
                j["waits_helped"].get<unsigned long long>(), num(j["late_resume_s"]).c_str(),
                num(j["late_resume_max_s"]).c_str(), j["completions_applied"].get<unsigned long long>(),
                j["tasks_reported"].get<unsigned long long>(), num(j["inbox_wait_s"]).c_str(),
                j["help_floor_refusals"].get<unsigned long long>());
  if (r.contains("busy_profile")) {
    // One character a bucket, from the share of workers running tasks.
    static const char* const kLevels[] = {" ", "\u2581", "\u2582", "\u2583", "\u2584",
                                          "\u2585", "\u2586", "\u2587", "\u2588"};
    std::string line;
    for (const nlohmann::json& b : r["busy_profile"]["busy"])
      line += kLevels[static_cast<int>(std::lround(b.get<double>() * 8))];
    std::printf("busy workers over time (%s s a character, full block: all): |%s|\n",
                num(r["busy_profile"]["bucket_s"]).c_str(), line.c_str());
  }
  std::printf("simulator: %llu events, %s s wall, %s tasks/s\n", r["simulator"]["events"].get<unsigned long long>(),
              num(r["simulator"]["wall_s"]).c_str(), num(r["simulator"]["tasks_per_wall_s"]).c_str());
}

int run_sim(SimState& s) {
  // ---- parse and validate everything before any work
  apps::App* app = nullptr;
  for (auto& [cmd, a] : s.apps)
    if (cmd->parsed()) app = a.get();
  if (app == nullptr) return kUsageError;
  sim::SimConfig config;
  std::optional<sim::AnyWorkload> workload;
  std::vector<int> sweep;
  nlohmann::json params;
  std::string costs_source;  // default, flags, file or calibrated: reported as costs.source
  try {
    // The simulator takes its options from flags only, but a HEIST_* variable
    // that names no option, is empty or holds an invalid value is noticed
    // here as everywhere else.
    (void)Options::from_env();
    app->check();
    params = app->params();
    workload = sim::make_workload(app->name(), params);
    // Only the simulated options are registered (add_sim_command), so every
    // flag here is one the simulated workers honour.
    for (const OptionSpec& spec : option_table())
      if (auto it = s.runtime_flags.find(spec.flag); it != s.runtime_flags.end()) spec.set(config.options, it->second);
    // --ranks-per-node: the runtime's virtual nodes of that many ranks; here
    // the layout of the simulated ranks (default: one process per node).
    if (config.options.ranks_per_node > 0) s.machine.ranks_per_node = config.options.ranks_per_node;
    config.options.validate();
    if (steals_continuations(config.options.policy))
      throw std::invalid_argument(std::string("--policy ") + to_string(config.options.policy) +
                                  ": continuation stealing is not simulated (help-first, inline, bounded and slaw are)");
    if (config.options.protocol == StealProtocolKind::sws && config.options.public_queue_slots > (std::size_t{1} << 19))
      throw std::invalid_argument("--public-queue-slots: SWS rings hold at most 2^19 slots");
    if (!s.latency.empty()) parse_per_hop(s.latency, s.machine.latency_us, "--latency-us");
    if (!s.bandwidth.empty()) parse_per_hop(s.bandwidth, s.machine.bandwidth_gbs, "--bandwidth-gbs");
    s.machine.validate();
    config.machine = s.machine;
    if (s.backoff != "heist" && s.backoff != "none") throw std::invalid_argument("--backoff: heist or none");
    config.backoff = s.backoff == "heist" ? sim::BackoffModel::heist : sim::BackoffModel::none;
    config.busy_buckets = s.busy_buckets;
    const int cost_sources = (s.task_ns.empty() ? 0 : 1) + (s.costs_file.empty() ? 0 : 1) + (s.calibrate ? 1 : 0);
    if (cost_sources > 1)
      throw std::invalid_argument("give at most one source of task costs: --task-ns NS[,QUEUED_NS], --costs FILE "
                                  "(from --calibrate --costs-out FILE), or --calibrate (none: the built-in costs)");
    if (cost_sources == 0) {
      const sim::TaskCosts* builtin = sim::default_costs(app->name());
      if (builtin == nullptr)
        throw std::invalid_argument(app->name() + " has no built-in task costs: give --task-ns, --costs or --calibrate");
      config.costs = *builtin;
      costs_source = "default";
    }
    if (!s.task_ns.empty()) {
      config.costs = given_costs(s);
      costs_source = "flags";
    }
    if (!s.costs_file.empty()) {
      const Calibration file = load_costs(s.costs_file);
      config.costs = file.costs;
      if (file.loaded_slowdown > 0 && s.slowdown_option->count() == 0)
        config.machine.loaded_slowdown = file.loaded_slowdown;
      costs_source = "file";
    }
    if (s.calibrate) costs_source = "calibrated";
    if (s.calibrate_only && (!s.calibrate || s.costs_out.empty()))
      throw std::invalid_argument("--calibrate-only goes with --calibrate and --costs-out FILE");
    if (s.sequential_ns >= 0 && s.task_ns.empty())
      throw std::invalid_argument("--sequential-ns goes with --task-ns");
    // The options in `params`, keyed as `heist bench --json` keys them (one
    // schema: stats::options_json), and the simulator's own behaviour option.
    params.update(stats::options_json(config.options, true));
    params["backoff"] = to_string(config.backoff);
    if (!s.sweep.empty()) sweep = parse_int_list(s.sweep, "--sweep-nodes");
    if (!s.csv.empty() && sweep.empty()) throw std::invalid_argument("--csv writes a sweep: give --sweep-nodes");
  } catch (const std::invalid_argument& e) {
    std::cerr << "heist sim: " << e.what() << "\n";
    return kUsageError;
  }

  // ---- costs
  if (s.calibrate) {
    Options real = config.options;
    const Calibration c = calibrate(*app, real, *workload, s.calibrate_repeat, std::cerr);
    config.costs = c.costs;
    if (s.slowdown_option->count() == 0) config.machine.loaded_slowdown = c.loaded_slowdown;
    const nlohmann::json cj = calibration_json(c, app->name(), params);
    std::cerr << "calibration: " << costs_text(cj["costs"]) << "\n";
    if (!s.costs_out.empty()) {
      std::ofstream out(s.costs_out);
      out << cj.dump(2) << "\n";
      if (!out) throw std::runtime_error("--costs-out: cannot write " + s.costs_out);
    }
    // Calibrate on the machine to be modelled, simulate anywhere later (--costs).
    if (s.calibrate_only) {
      if (s.json) std::cout << cj.dump() << std::endl;
      return 0;
    }
  }

  // ---- simulate
  std::optional<sim::SimResult> one;
  if (s.baseline) {
    sim::SimConfig single = config;
    single.machine.cores_per_socket = 1;
    single.machine.sockets = 1;
    single.machine.nodes = 1;
    single.machine.ranks_per_node = 1;
    single.busy_buckets = 0;
    one = sim::simulate(*workload, single);
  }
  if (sweep.empty()) {
    const sim::SimResult r = sim::simulate(*workload, config);
    nlohmann::json report = sim::report_json(app->name(), params, config, r, one);
    report["costs"]["source"] = costs_source;
    if (s.json) std::cout << report.dump() << std::endl;
    else print_summary(report);
    return 0;
  }
  std::ofstream csv;
  if (!s.csv.empty()) {
    csv.open(s.csv);
    if (!csv) throw std::runtime_error("--csv: cannot write " + s.csv);
    csv << "nodes,workers,ranks,time_s,t1_s,speedup,efficiency,tasks,steal_attempts,steals,failed_steals,"
           "internode_attempts,internode_failed,messages_blocking,messages_bytes,wall_s\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    progress(static_cast<int>(i), static_cast<int>(sweep.size()), elapsed(), "nodes " + std::to_string(sweep[i]));
    sim::SimConfig point = config;
    point.machine.nodes = sweep[i];
    const sim::SimResult r = sim::simulate(*workload, point);
    nlohmann::json report = sim::report_json(app->name(), params, point, r, one);
    report["costs"]["source"] = costs_source;
    if (s.json) std::cout << report.dump() << std::endl;
    if (csv.is_open()) {
      const nlohmann::json& t = report["steal_totals"];
      const nlohmann::json& net = report["steals"]["machine"];
      csv << sweep[i] << ',' << point.machine.workers() << ',' << point.machine.ranks() << ',' << r.time_s << ','
          << report.value("t1_s", 0.0) << ',' << report.value("speedup", 0.0) << ',' << report.value("efficiency", 0.0)
          << ',' << r.tasks << ',' << t["attempts"] << ',' << t["steals"] << ',' << t["failed"] << ','
          << net["attempts"] << ',' << net["failed"] << ',' << r.messages.blocking << ',' << r.messages.bytes << ','
          << r.wall_s << '\n';
    }
    if (!s.json)
      std::printf("%s%d nodes (%d workers): %s s simulated, speedup %s, efficiency %s\n", i == 0 ? "\n" : "",
                  sweep[i], point.machine.workers(), stats::human_number(r.time_s).c_str(),
                  stats::human_number(report.value("speedup", 0.0)).c_str(),
                  stats::human_number(report.value("efficiency", 0.0)).c_str());
  }
  progress(static_cast<int>(sweep.size()), static_cast<int>(sweep.size()), elapsed(), "done");
  return 0;
}

}  // namespace

std::function<int()> add_sim_command(CLI::App& root) {
  auto state = std::make_shared<SimState>();
  SimState& s = *state;
  CLI::App* cmd = root.add_subcommand(
      "sim",
      "simulate heist's scheduler on a modelled machine (docs/simulator.md); task costs: the app's built-in ones "
      "unless --task-ns, --costs or --calibrate is given");
  cmd->require_subcommand(1);
  cmd->add_option("--cores-per-socket", s.machine.cores_per_socket, "cores of a socket")->capture_default_str();
  cmd->add_option("--sockets", s.machine.sockets, "sockets of a node")->capture_default_str();
  cmd->add_option("--nodes", s.machine.nodes, "nodes")->capture_default_str();
  cmd->add_option("--latency-us", s.latency,
                  "one blocking round trip per hop, e.g. socket=0.4,node=0.76,network=7.2,self=0.1 (defaults: HotSLAW §5)");
  cmd->add_option("--bandwidth-gbs", s.bandwidth, "transfer bandwidth per hop, e.g. network=3,node=4.5");
  s.slowdown_option =
      cmd->add_option("--loaded-slowdown", s.machine.loaded_slowdown,
                      "a core's task time with every core of its node busy over its time alone (tasks slow linearly "
                      "with the node's busy cores; default: what --calibrate measured here, or the --costs file's, "
                      "else 1)")
          ->capture_default_str();
  cmd->add_option("--task-ns", s.task_ns,
                  "given task cost: INLINE[,QUEUED] nanoseconds. Without --task-ns, --costs or --calibrate: the app's "
                  "built-in costs, measured on the project's 2-core VM (sim/default_costs.hpp)");
  cmd->add_option("--sequential-ns", s.sequential_ns, "given cost of one sequential-kernel node below a cutoff (ns)");
  cmd->add_option("--costs", s.costs_file, "task costs from a calibration file (--calibrate --costs-out FILE)");
  cmd->add_flag("--calibrate", s.calibrate, "measure the task costs by running the real app on one worker first");
  cmd->add_option("--calibrate-repeat", s.calibrate_repeat, "runs per calibration measurement (median)")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--costs-out", s.costs_out, "write the calibration to this file");
  cmd->add_flag("--calibrate-only", s.calibrate_only,
                "with --calibrate and --costs-out: write the calibration and simulate nothing (simulate later, "
                "elsewhere, with --costs FILE)");
  cmd->add_option("--backoff", s.backoff, "idle back-off: heist (the runtime's) or none")->capture_default_str();
  cmd->add_option("--sweep-nodes", s.sweep, "simulate for each node count in this list, e.g. 1,2,4,8");
  cmd->add_option("--csv", s.csv, "write the sweep as CSV (plot with tools/plot.py sim-sweep)");
  cmd->add_flag("!--no-baseline", s.baseline, "skip the one-worker simulation (no speedup/efficiency)");
  cmd->add_flag("--json", s.json, "print one JSON object per simulation");
  cmd->add_option("--busy-profile", s.busy_buckets,
                  "report the share of workers running tasks over time, in at most N buckets of equal width "
                  "(JSON busy_profile; 0: none)")
      ->capture_default_str()
      ->check(CLI::Range(0, 4096));
  // The runtime options the simulator models; the others (threads, stacks,
  // MPI, tracing, ...) are unknown options here, like any misspelt flag.
  for (const OptionSpec& spec : option_table()) {
    if (!spec.simulated) continue;
    cmd->add_option_function<std::string>(
        spec.flag, [state, flag = std::string(spec.flag)](const std::string& v) { state->runtime_flags[flag] = v; },
        spec.help);
  }
  for (const apps::AppEntry& entry : apps::app_table()) {
    if (!sim::simulates(entry.name)) continue;
    std::unique_ptr<apps::App> app = entry.make();
    CLI::App* sub = cmd->add_subcommand(entry.name, app->summary());
    sub->fallthrough();
    apps::AppOptions app_options;
    app->add_options(app_options);
    apps::add_to_command(app_options, *sub);
    state->apps.emplace_back(sub, std::move(app));
  }
  return [state]() -> int { return run_sim(*state); };
}

}  // namespace heist::cli
