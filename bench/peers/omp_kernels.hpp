#pragma once

#include <cstdint>

#include "kernel.hpp"

namespace heist::peers {

// fib(n) with OpenMP tasks; calls with n < cutoff run sequentially.
// Must be called from inside a parallel region for the tasks to run in parallel.
std::uint64_t fib_omp(int n, int cutoff);

// N-Queens solution count with OpenMP tasks; rows at depth >= cutoff (if > 0) run sequentially.
// Must be called from inside a parallel region for the tasks to run in parallel.
std::uint64_t nqueens_omp(int n, int cutoff);

// UTS node count: an untied task per node, no taskwait (a taskgroup at the
// root waits for all), like heist's escaping asyncs under one finish; nodes
// at height >= cutoff (if > 0) count their subtree sequentially.
std::uint64_t uts_omp(const Problem& problem);

// BOTS sparselu (the BOTS OpenMP version's structure): per step, lu0, fwd and
// bdiv tasks, taskwait, bmod tasks, taskwait; the fingerprint of the result.
std::uint64_t sparselu_omp(const Problem& problem);

}  // namespace heist::peers
