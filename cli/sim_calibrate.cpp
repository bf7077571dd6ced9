#include "sim_calibrate.hpp"

#include <algorithm>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

#include <vector>

#include "common/bench_runner.hpp"
#include "platform/cpu_count.hpp"
#include "sched/process_balancer.hpp"
#include "sim/report.hpp"

namespace heist::cli {

namespace {

struct Measured {
  double time_s = 0;
  std::uint64_t inlined = 0;
  std::uint64_t queued = 0;
};

// One `heist bench`-style run (median of `repeat`), read back from its JSON.
nlohmann::json bench_json(apps::App& app, const Options& options, bool sequential, int repeat) {
  apps::BenchSettings settings;
  settings.repeat = repeat;
  settings.sequential = sequential;
  settings.json = true;
  std::ostringstream out;
  if (apps::run_bench(app, settings, options, out) != 0)
    throw std::runtime_error("calibration: the " + app.name() + " run did not verify");
  std::string line, last;
  std::istringstream lines(out.str());
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  return nlohmann::json::parse(last);
}

Measured measure(apps::App& app, Options options, SpawnPolicy policy, int repeat) {
  options.workers = 1;
  options.policy = policy;
  const nlohmann::json j = bench_json(app, options, false, repeat);
  const nlohmann::json& s = j["stats"];
  Measured m;
  m.time_s = j["time_s"].get<double>();
  m.inlined = s["tasks_inlined"].get<std::uint64_t>();
  m.queued = s["tasks_created"].get<std::uint64_t>() - m.inlined;
  return m;
}

// The median time of `copies` one-worker help-first runs made at once, each
// in a forked copy of this process (one Runtime per process), each the
// median of `repeat`. Forked after every Runtime of the calibration is gone:
// no other thread is running then.
double loaded_time(apps::App& app, const Options& options, int copies, int repeat) {
  std::vector<std::pair<pid_t, int>> children;
  for (int i = 0; i < copies; ++i) {
    int fds[2];
    if (::pipe(fds) != 0) throw std::runtime_error("calibration: pipe failed");
    const pid_t pid = ::fork();
    if (pid < 0) throw std::runtime_error("calibration: fork failed");
    if (pid == 0) {
      ::close(fds[0]);
      double t = -1;
      try {
        t = measure(app, options, SpawnPolicy::help_first, repeat).time_s;
      } catch (...) {
      }
      const ssize_t written = ::write(fds[1], &t, sizeof t);
      ::_exit(written == static_cast<ssize_t>(sizeof t) && t > 0 ? 0 : 1);
    }
    ::close(fds[1]);
    children.emplace_back(pid, fds[0]);
  }
  std::vector<double> times;
  bool ok = true;
  for (const auto& [pid, fd] : children) {
    double t = -1;
    ok = ::read(fd, &t, sizeof t) == static_cast<ssize_t>(sizeof t) && ok;
    ::close(fd);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    times.push_back(t);
  }
  if (!ok) throw std::runtime_error("calibration: a copy of the loaded-machine run failed");
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

nlohmann::json measured_json(const Measured& m) {
  return {{"time_s", m.time_s}, {"tasks_inlined", m.inlined}, {"tasks_queued", m.queued}};
}

}  // namespace

Calibration calibrate(apps::App& app, const Options& options, const sim::AnyWorkload& workload, int repeat,
                      std::ostream& log) {
  Calibration c;
  const bool is_uts = std::holds_alternative<sim::UtsWorkload>(workload);
  // What the tasks do besides the runtime's work: sequential kernel nodes
  // below a cutoff and fixed busy time (not for UTS: its tasks have neither,
  // and walking a large tree only to learn that costs minutes).
  const sim::TreeTotals totals = is_uts ? sim::TreeTotals{} : sim::tree_totals(workload);
  const std::uint64_t kernel_nodes = sim::sequential_nodes_total(workload);
  double sequential_s = 0;
  if (kernel_nodes > 0) {
    log << "calibrating " << app.name() << ": sequential run ...\n";
    sequential_s = bench_json(app, options, true, repeat)["time_s"].get<double>();
    c.costs.sequential_ns = sequential_s * 1e9 / static_cast<double>(kernel_nodes);
  }
  log << "calibrating " << app.name() << ": heist on 1 worker, help-first ...\n";
  const Measured help = measure(app, options, SpawnPolicy::help_first, repeat);
  log << "calibrating " << app.name() << ": heist on 1 worker, bounded ...\n";
  const Measured bounded = measure(app, options, SpawnPolicy::bounded, repeat);
  const double fixed_ns = static_cast<double>(totals.sequential_nodes) * c.costs.sequential_ns + totals.busy_ns;
  const std::uint64_t help_tasks = help.inlined + help.queued;
  if (help_tasks == 0) throw std::runtime_error("calibration: the run created no task");
  // help-first queues every task (it inlines only at the deque's maximum).
  c.costs.queued_ns = std::max(0.0, (help.time_s * 1e9 - fixed_ns) / static_cast<double>(help_tasks));
  if (bounded.inlined > 0) {
    const double rest = bounded.time_s * 1e9 - fixed_ns - static_cast<double>(bounded.queued) * c.costs.queued_ns;
    // A task run inline does less than the same task queued (no slot, no
    // pop). Two short runs on a loaded machine can say otherwise, and with
    // inline tasks dearer than queued ones the simulated runs that queue
    // more come out faster than perfect speedup (cli.sim.nqueens.calibrate
    // failed so once under the sanitizer suite's load): at most queued_ns.
    c.costs.inline_ns = std::clamp(rest / static_cast<double>(bounded.inlined), 0.0, c.costs.queued_ns);
  } else {
    c.costs.inline_ns = c.costs.queued_ns;
  }
  // The machine under load. Not under an MPI launcher: a forked copy of an
  // MPI process is no process of the job.
  c.copies = sched::launcher_job_size() > 1 ? 1 : std::max(1, platform::usable_cpus());
  c.loaded_slowdown = 1.0;
  double loaded_s = help.time_s;
  if (c.copies > 1) {
    log << "calibrating " << app.name() << ": " << c.copies << " copies of the help-first run at once ...\n";
    loaded_s = loaded_time(app, options, c.copies, repeat);
    c.loaded_slowdown = std::clamp(loaded_s / help.time_s, 1.0, 100.0);  // noise below 1; MachineSpec's range
  }
  c.measured = {{"sequential_time_s", sequential_s},
                {"loaded", {{"copies", c.copies}, {"time_s", loaded_s}}},
                {"sequential_kernel_nodes", kernel_nodes},
                {"tree_sequential_nodes", totals.sequential_nodes},
                {"tree_busy_s", totals.busy_ns * 1e-9},
                {"help_first", measured_json(help)},
                {"bounded", measured_json(bounded)},
                {"repeat", repeat}};
  return c;
}

nlohmann::json calibration_json(const Calibration& c, const std::string& app, const nlohmann::json& params) {
  return {{"app", app},
          {"params", params},
          {"costs", sim::costs_json(c.costs)},
          {"machine", {{"loaded_slowdown", c.loaded_slowdown}, {"copies", c.copies}}},
          {"measured", c.measured}};
}

Calibration load_costs(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument("--costs: cannot read " + path);
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("--costs: " + path + " is not JSON: " + e.what());
  }
  const nlohmann::json& c = j.contains("costs") ? j["costs"] : j;
  sim::TaskCosts costs;
  try {
    costs.inline_ns = c.at("inline_ns").get<double>();
    costs.queued_ns = c.at("queued_ns").get<double>();
    costs.sequential_ns = c.value("sequential_ns", 0.0);
  } catch (const nlohmann::json::exception& e) {
    throw std::invalid_argument("--costs: " + path + " lacks inline_ns/queued_ns: " + e.what());
  }
  costs.validate();
  Calibration loaded;
  loaded.costs = costs;
  if (j.contains("machine")) {
    const double slowdown = j["machine"].value("loaded_slowdown", 0.0);
    if (!(slowdown >= 1.0 && slowdown <= 100.0))
      throw std::invalid_argument("--costs: " + path + ": machine.loaded_slowdown must be in [1, 100]");
    loaded.loaded_slowdown = slowdown;
    loaded.copies = j["machine"].value("copies", 0);
  }
  return loaded;
}

}  // namespace heist::cli
