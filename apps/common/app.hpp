// The interface every benchmark app implements (apps/<app>/), so that the
// bench runner and `heist bench <app>` treat them alike: options, the
// sequential version, the heist version (called inside a heist::Runtime),
// and verification of a result.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/app_options.hpp"
#include "common/task_io.hpp"

namespace heist {
class Runtime;
}

namespace heist::apps {

struct RunOutput {
  nlohmann::json result;           // the app's answer (e.g. fib(n), a solution count, a node count)
  nlohmann::json extra = nlohmann::json::object();  // app-specific facts (e.g. UTS depth and leaves)
};

class App {
 public:
  virtual ~App() = default;
  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;
  // Register the app's own options on its `heist bench <app>` command.
  virtual void add_options(AppOptions& options) = 0;
  // Validate the options; throws std::invalid_argument with a message.
  virtual void check() const {}
  virtual nlohmann::json params() const = 0;
  virtual RunOutput run_sequential() = 0;
  // Root-task mode: on the thread that owns the heist::Runtime, inside
  // Runtime::root on rank 0 (other ranks serve steals meanwhile).
  virtual RunOutput run_parallel() = 0;
  // SPMD task-pool mode (`heist bench <app> --mode pool`): called on every
  // rank; seeds tasks with Runtime::pool and combines the ranks' results
  // (returned on rank 0). Apps without a pool version return nullopt.
  virtual std::optional<RunOutput> run_pool(heist::Runtime&) { return std::nullopt; }
  // Root-task mode on every rank (collective). The default runs
  // run_parallel() on rank 0 inside Runtime::root; apps whose tasks use
  // per-process state set it up on every rank and combine it afterwards.
  virtual RunOutput run_root(heist::Runtime& runtime);
  // The app's task functions with their input and output bytes (HotSLAW
  // Table 1), for the options in effect.
  virtual std::vector<TaskIo> task_io() const = 0;
  // Whether `out` is correct (against a reference table or the sequential version).
  virtual bool verify(const RunOutput& out) = 0;
  // The time the bench runner reports for a run (time_s, times_s) when the
  // app measures its own (e.g. a mean per operation); nullopt: the run's wall time.
  virtual std::optional<double> reported_time(const RunOutput&) const { return std::nullopt; }
};

struct AppEntry {
  const char* name;
  std::unique_ptr<App> (*make)();
};

// Every app heist ships, in the order `heist bench --help` lists them.
const std::vector<AppEntry>& app_table();

}  // namespace heist::apps
