#include <array>
#include <numeric>

#include "nqueens_kernels.hpp"
#include "omp_kernels.hpp"

namespace heist::peers {
namespace {

std::uint64_t solve(const Board& board, int depth, int cutoff, std::uint32_t full) {
  if (cutoff > 0 && depth >= cutoff) {
    return count_solutions(board, full);
  }
  if (board.cols == full) {
    return 1;
  }
  std::array<std::uint64_t, nqueens_max_n> counts{};
  std::size_t child = 0;
  for (std::uint32_t free = free_columns(board, full); free != 0; free &= free - 1) {
    const Board next = place(board, lowest_bit(free));
#pragma omp task default(none) shared(counts) firstprivate(child, next, depth, cutoff, full)
    counts[child] = solve(next, depth + 1, cutoff, full);
    ++child;
  }
#pragma omp taskwait
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

}  // namespace

std::uint64_t nqueens_omp(int n, int cutoff) { return solve(Board{}, 0, cutoff, full_row(n)); }

}  // namespace heist::peers
