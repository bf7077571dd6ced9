#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace heist::peers {

struct Report {
  std::string_view app;
  std::string_view impl;  // "tbb", "omp" or "seq"
  std::string params;  // the JSON object of the problem's parameters
  int workers = 1;
  std::vector<double> times_s;
  double warmup_s = 0;  // computed before the first timed run
  std::uint64_t result = 0;
  bool verified = false;
};

// Median of the samples; the mean of the two middle ones for an even count.
double median(std::vector<double> samples);

// Human-readable multi-line summary.
void print_summary(std::ostream& out, const Report& report);

// One JSON object on a single line.
void print_json(std::ostream& out, const Report& report);

}  // namespace heist::peers
