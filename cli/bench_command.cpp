// `heist bench <app> [app options] [--workers N] [--policy P] [--queue-bound N]
//  [--chunk K|half] [--seq] [--repeat R] [--json]` and every other runtime
// option of the option table.
#include <iostream>
#include <map>
#include <memory>
#include <string>

#include <heist/option_table.hpp>

#include "commands.hpp"
#include "common/app.hpp"
#include "common/bench_runner.hpp"

namespace heist::cli {

namespace {

struct BenchState {
  apps::BenchSettings settings;
  std::map<std::string, std::string> runtime_flags;  // flag -> value, as given
  std::vector<std::pair<CLI::App*, std::unique_ptr<apps::App>>> apps;
};

}  // namespace

std::function<int()> add_bench_command(CLI::App& root) {
  auto state = std::make_shared<BenchState>();
  CLI::App* bench = root.add_subcommand("bench", "run a benchmark app and report time, result and statistics");
  bench->require_subcommand(1);
  bench->add_flag("--seq", state->settings.sequential, "run the sequential version");
  bench->add_option("--repeat", state->settings.repeat, "runs; the median is reported")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000000));
  bench->add_option_function<std::string>(
          "--mode",
          [state](const std::string& v) {
            state->settings.mode = v == "pool" ? apps::RunMode::pool : apps::RunMode::root;
          },
          "root: one root task on rank 0; pool: every rank seeds an SPMD task pool")
      ->check(CLI::IsMember({"root", "pool"}));
  bench->add_option("--warmup-s", state->settings.warmup_s,
                    "seconds of computation before the first timed run (a fresh process may run slowly at first)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 60.0));
  bench->add_flag("--json", state->settings.json, "print one JSON object as the last line");
  bench->add_flag("--no-spawn-probe{false}", state->settings.spawn_probe,
                  "skip the probe that measures table1's task creation overhead (its fields become null)");
  for (const OptionSpec& spec : option_table()) {
    bench->add_option_function<std::string>(
        spec.flag, [state, flag = std::string(spec.flag)](const std::string& v) { state->runtime_flags[flag] = v; },
        std::string(spec.help) + " [" + spec.env + "]");
  }
  for (const apps::AppEntry& entry : apps::app_table()) {
    std::unique_ptr<apps::App> app = entry.make();
    CLI::App* cmd = bench->add_subcommand(entry.name, app->summary());
    cmd->fallthrough();  // runtime options may follow the app's own
    apps::AppOptions app_options;
    app->add_options(app_options);
    apps::add_to_command(app_options, *cmd);
    state->apps.emplace_back(cmd, std::move(app));
  }
  return [state]() -> int {
    Options options;
    try {
      if (state->settings.sequential && !state->runtime_flags.empty())
        throw OptionError("--seq runs the sequential version: the runtime option " +
                          state->runtime_flags.begin()->first + " does not apply to it");
      if (state->settings.sequential && state->settings.mode == apps::RunMode::pool)
        throw OptionError("--seq runs the sequential version: --mode pool does not apply to it");
      options = Options::from_env();
      for (const OptionSpec& spec : option_table())
        if (auto it = state->runtime_flags.find(spec.flag); it != state->runtime_flags.end())
          spec.set(options, it->second);
      options.validate();
      for (auto& [cmd, app] : state->apps)
        if (cmd->parsed()) app->check();
    } catch (const std::invalid_argument& e) {  // OptionError included
      std::cerr << "heist bench: " << e.what() << "\n";
      return kUsageError;
    }
    for (auto& [cmd, app] : state->apps) {
      if (!cmd->parsed()) continue;
      // Under mpirun every rank must run the same benchmark: the app, its
      // options and bench's own join the runtime options that the ranks
      // compare at start-up (Options::program_arguments).
      const apps::BenchSettings& b = state->settings;
      options.program_arguments = {{"the app (heist bench APP)", app->name()}};
      const nlohmann::json params = app->params();
      for (const auto& [key, value] : params.items()) {
        std::string flag = "--" + key;
        for (char& c : flag)
          if (c == '_') c = '-';
        options.program_arguments.emplace_back(flag, value.dump());
      }
      options.program_arguments.insert(
          options.program_arguments.end(),
          {{"--mode", b.mode == apps::RunMode::pool ? "pool" : "root"},
           {"--repeat", std::to_string(b.repeat)},
           {"--seq", b.sequential ? "yes" : "no"},
           {"--warmup-s", std::to_string(b.warmup_s)},
           {"--json", b.json ? "yes" : "no"},
           {"--no-spawn-probe", b.spawn_probe ? "no" : "yes"}});
      return apps::run_bench(*app, state->settings, options, std::cout);
    }
    return kUsageError;
  };
}

}  // namespace heist::cli
