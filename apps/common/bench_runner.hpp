// Runs one app the way `heist bench` does: R repeats, each timed alone
// (steady clock around the computation only), every result verified, the
// median reported, statistics of the median run, and a readable summary or
// one JSON line (the last line of stdout).
#pragma once

#include <iosfwd>

#include "common/app.hpp"
#include "common/warmup.hpp"
#include "heist/options.hpp"

namespace heist::apps {

enum class RunMode { root, pool };

struct BenchSettings {
  int repeat = 1;
  bool sequential = false;  // run the sequential version
  bool json = false;
  RunMode mode = RunMode::root;  // root task on rank 0, or an SPMD task pool
  bool spawn_probe = true;  // measure the task creation overhead (common/spawn_probe.hpp) for table1
  double warmup_s = kDefaultWarmupSeconds;  // computed before the first timed run (common/warmup.hpp)
};

// Under mpirun every rank calls it (the runtime's regions are collective);
// rank 0 verifies and prints. Returns the process exit code: 0 verified, 1 a
// result was wrong (rank 0; other ranks return 0).
int run_bench(App& app, const BenchSettings& settings, const Options& runtime_options, std::ostream& out);

}  // namespace heist::apps
