#include "peer_driver.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "apps.hpp"
#include "peer_options.hpp"
#include "peer_report.hpp"

namespace heist::peers {
namespace {

Kernel find_kernel(const Model& model, std::string_view app) {
  const auto entry = std::ranges::find(model.kernels, app, &KernelEntry::app);
  if (entry == model.kernels.end()) {
    throw std::logic_error(std::string(model.name) + " has no kernel for " + std::string(app));
  }
  return entry->kernel;
}

struct Run {
  std::vector<double> times_s;
  std::vector<std::uint64_t> results;
};

// Times `repeat` calls of the kernel; only the kernel call itself is measured.
Run time_kernel(Kernel kernel, const Problem& problem, int repeat) {
  Run run;
  run.times_s.reserve(static_cast<std::size_t>(repeat));
  run.results.reserve(static_cast<std::size_t>(repeat));
  for (int i = 0; i < repeat; ++i) {
    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t result = kernel(problem);
    const auto stop = std::chrono::steady_clock::now();
    run.times_s.push_back(std::chrono::duration<double>(stop - start).count());
    run.results.push_back(result);
  }
  return run;
}

}  // namespace

int run_peer(int argc, char** argv, const Model& model) {
  const ParseResult parsed = parse_options(argc, argv, model.name);
  if (!parsed.options) {
    return parsed.exit_code;
  }
  const Options& options = *parsed.options;
  const AppInfo& app = *find_app(options.app);
  const Problem problem{options.n, options.cutoff, options.tree, options.blocks, options.block_size};
  try {
    app.prepare(problem);
  } catch (const std::invalid_argument& error) {
    std::cerr << error.what() << '\n';
    return usage_error;
  }

  Run run;
  apps::warm_up(options.warmup_s);  // before the model's threads exist, as heist bench does
  if (options.seq) {
    run = time_kernel(app.sequential, problem, options.repeat);
  } else {
    const Kernel kernel = find_kernel(model, app.name);
    model.with_workers(options.workers, [&] { run = time_kernel(kernel, problem, options.repeat); });
  }

  const std::uint64_t expected = expected_result(app, problem);
  const auto wrong = std::ranges::find_if(
      run.results, [expected](std::uint64_t result) { return result != expected; });
  const bool verified = wrong == run.results.end();

  const Report report{
      .app = app.name,
      .impl = options.seq ? std::string_view{"seq"} : model.name,
      .params = app.params(problem).dump(),
      .workers = options.seq ? 1 : options.workers,
      .times_s = std::move(run.times_s),
      .warmup_s = options.warmup_s,
      .result = verified ? expected : *wrong,
      .verified = verified,
  };
  if (options.json) {
    print_json(std::cout, report);
  } else {
    print_summary(std::cout, report);
  }
  if (!verified) {
    std::cerr << app.name << ": result " << report.result << " differs from expected "
              << expected << '\n';
  }
  return verified ? 0 : 1;
}

}  // namespace heist::peers
