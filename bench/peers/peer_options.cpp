#include "peer_options.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <iostream>
#include <thread>
#include <vector>

#include "apps.hpp"

namespace heist::peers {
namespace {

int default_workers() {
  return static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
}

std::vector<std::string> app_names() {
  std::vector<std::string> names;
  for (const AppInfo& app : all_apps()) {
    names.emplace_back(app.name);
  }
  return names;
}

std::string size_help() {
  std::string help = "problem size of fib and nqueens (default";
  for (const AppInfo& app : all_apps()) {
    if (app.max_n > 0) help += " " + std::string(app.name) + ": " + std::to_string(app.default_n) + ";";
  }
  help.back() = ')';
  return help;
}

// Accepts integers >= minimum, with a readable error message otherwise.
CLI::Validator at_least(int minimum) {
  const std::string bound = std::to_string(minimum);
  return CLI::Validator(
      [minimum, bound](const std::string& text) -> std::string {
        int value = 0;
        const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
        if (error == std::errc{} && end == text.data() + text.size() && value >= minimum) {
          return {};
        }
        return "must be an integer >= " + bound + ", got '" + text + "'";
      },
      ">=" + bound);
}

}  // namespace

ParseResult parse_options(int argc, char** argv, std::string_view model) {
  Options options;
  options.workers = default_workers();

  CLI::App cli{"heist peer benchmark, " + std::string(model) + " implementation"};
  cli.add_option("app", options.app, "benchmark to run")
      ->required()
      ->check(CLI::IsMember(app_names()));
  const CLI::Option* size = cli.add_option("--n", options.n, size_help());
  cli.add_option("--cutoff", options.cutoff,
                 "task cutoff, 0 = spawn everywhere (default 0); uts: the height from which subtrees run sequentially")
      ->check(at_least(0));
  cli.add_option("--tree", options.tree, "uts: a named tree (T1..T5, T1L, T2L, T3L, ...) or UTS options (default T1)");
  cli.add_option("--blocks", options.blocks, "sparselu: blocks per row and column (default 50)")->check(at_least(1));
  cli.add_option("--block-size", options.block_size, "sparselu: block size (default 80)")->check(at_least(1));
  cli.add_option("--workers", options.workers,
                 "worker threads (default " + std::to_string(options.workers) + ")")
      ->check(at_least(1));
  cli.add_option("--repeat", options.repeat, "timed repetitions (default 1)")->check(at_least(1));
  cli.add_option("--warmup-s", options.warmup_s,
                 "seconds of computation before the first timed run, as heist bench (default " +
                     std::to_string(options.warmup_s) + ")")
      ->check(CLI::Range(0.0, 60.0));
  cli.add_flag("--seq", options.seq, "run the sequential kernel instead");
  cli.add_flag("--json", options.json, "print the result as one JSON line");

  try {
    cli.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int code = cli.exit(error);
    return {std::nullopt, code == 0 ? 0 : usage_error};
  }

  const AppInfo& app = *find_app(options.app);
  if (size->count() == 0) {
    options.n = app.default_n;
  } else if (app.max_n == 0) {
    std::cerr << "--n: " << app.name << " has no --n\n";
    return {std::nullopt, usage_error};
  } else if (options.n < app.min_n || options.n > app.max_n) {
    std::cerr << "--n: " << app.name << " needs n in [" << app.min_n << ", " << app.max_n
              << "], got " << options.n << '\n';
    return {std::nullopt, usage_error};
  }
  return {options, 0};
}

}  // namespace heist::peers
