#pragma once

#include <cstdint>

#include "kernel.hpp"

namespace heist::peers {

// fib(n) with tbb::task_group; calls with n < cutoff run sequentially.
std::uint64_t fib_tbb(int n, int cutoff);

// N-Queens solution count with tbb::task_group; rows at depth >= cutoff (if > 0) run sequentially.
std::uint64_t nqueens_tbb(int n, int cutoff);

// UTS node count: a task per node (tbb::task_group::run from inside the
// group's tasks, one wait at the root, like heist's escaping asyncs under
// one finish); nodes at height >= cutoff (if > 0) count their subtree sequentially.
std::uint64_t uts_tbb(const Problem& problem);

// BOTS sparselu: per step, lu0, then fwd and bdiv tasks, wait, bmod tasks,
// wait; returns the fingerprint of the factorised matrix.
std::uint64_t sparselu_tbb(const Problem& problem);

}  // namespace heist::peers
