#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace heist::peers {

// One benchmark problem: each app reads the fields it has.
struct Problem {
  int n = 0;           // fib, nqueens: problem size
  int cutoff = 0;      // fib, nqueens, uts: sequential below it (0: a task everywhere)
  std::string tree;    // uts: named tree or UTS options
  int blocks = 0;      // sparselu: n x n blocks
  int block_size = 0;  // sparselu: b x b doubles each
};

// A benchmark computation: the problem in, its result out.
using Kernel = std::uint64_t (*)(const Problem& problem);

struct KernelEntry {
  std::string_view app;
  Kernel kernel;
};

}  // namespace heist::peers
