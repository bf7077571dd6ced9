#include <array>
#include <numeric>

#include "nqueens_kernels.hpp"
#include "omp_kernels.hpp"

namespace heist::peers {
namespace {

std::uint64_t solve(const Board& board, int cutoff) {
  if (cutoff > 0 && board.row >= static_cast<std::uint32_t>(cutoff)) {
    return count_sequential(board);
  }
  if (board.row == board.n) {
    return 1;
  }
  std::array<std::uint64_t, nqueens_max_n> counts{};
  std::size_t child = 0;
  for (std::uint32_t free = free_columns(board); free != 0; free &= free - 1) {
    const Board next = place(board, free & (0u - free));
#pragma omp task default(none) shared(counts) firstprivate(child, next, cutoff)
    counts[child] = solve(next, cutoff);
    ++child;
  }
#pragma omp taskwait
  return std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
}

}  // namespace

std::uint64_t nqueens_omp(int n, int cutoff) { return solve(empty_board(static_cast<std::uint32_t>(n)), cutoff); }

}  // namespace heist::peers
