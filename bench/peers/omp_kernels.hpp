#pragma once

#include <cstdint>

namespace heist::peers {

// fib(n) with OpenMP tasks; calls with n < cutoff run sequentially.
// Must be called from inside a parallel region for the tasks to run in parallel.
std::uint64_t fib_omp(int n, int cutoff);

// N-Queens solution count with OpenMP tasks; rows at depth >= cutoff (if > 0) run sequentially.
// Must be called from inside a parallel region for the tasks to run in parallel.
std::uint64_t nqueens_omp(int n, int cutoff);

}  // namespace heist::peers
