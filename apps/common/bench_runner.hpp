// Runs one app the way `heist bench` does: R repeats, each timed alone
// (steady clock around the computation only), every result verified, the
// median reported, statistics of the median run, and a readable summary or
// one JSON line (the last line of stdout).
#pragma once

#include <iosfwd>

#include "common/app.hpp"
#include "heist/options.hpp"

namespace heist::apps {

struct BenchSettings {
  int repeat = 1;
  bool sequential = false;  // run the sequential version
  bool json = false;
};

// Returns the process exit code: 0 verified, 1 a result was wrong.
int run_bench(App& app, const BenchSettings& settings, const Options& runtime_options, std::ostream& out);

}  // namespace heist::apps
