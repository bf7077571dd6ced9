#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/warmup.hpp"

namespace heist::peers {

struct Options {
  std::string app;
  int n = 0;
  int cutoff = 0;
  std::string tree = "T1";  // uts
  int blocks = 50;          // sparselu
  int block_size = 80;      // sparselu
  int workers = 1;
  int repeat = 1;
  double warmup_s = apps::kDefaultWarmupSeconds;  // computed before the first timed run
  bool seq = false;
  bool json = false;
};

// Exit code for invalid command lines.
inline constexpr int usage_error = 2;

struct ParseResult {
  std::optional<Options> options;  // empty when the program should exit with exit_code
  int exit_code = 0;
};

// Parses `<app> [--n N] [--cutoff C] [--tree T] [--blocks B] [--block-size S]
// [--workers W] [--repeat R] [--seq] [--json]`, filling in the app's default
// size and checking --n against the app's range.
ParseResult parse_options(int argc, char** argv, std::string_view model);

}  // namespace heist::peers
