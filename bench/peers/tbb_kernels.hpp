#pragma once

#include <cstdint>

namespace heist::peers {

// fib(n) with tbb::task_group; calls with n < cutoff run sequentially.
std::uint64_t fib_tbb(int n, int cutoff);

// N-Queens solution count with tbb::task_group; rows at depth >= cutoff (if > 0) run sequentially.
std::uint64_t nqueens_tbb(int n, int cutoff);

}  // namespace heist::peers
