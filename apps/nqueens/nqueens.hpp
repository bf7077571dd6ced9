// nqueens: count the placements of n non-attacking queens on an n x n board
// (BOTS / HotSLAW), one task per partial placement, bitmask backtracking.
#pragma once

#include <cstdint>
#include <optional>

namespace heist {
class Runtime;
}

namespace heist::apps::nqueens {

// Partial placement: rows filled so far and the attacked columns/diagonals.
struct Board {
  std::uint32_t n;
  std::uint32_t row;
  std::uint32_t cols;
  std::uint32_t diag_left;   // attacked squares along "/" diagonals, shifted per row
  std::uint32_t diag_right;  // attacked squares along "\" diagonals, shifted per row
};

constexpr Board empty_board(std::uint32_t n) { return Board{n, 0, 0, 0, 0}; }

// Columns of an n-wide row.
constexpr std::uint32_t full_mask(std::uint32_t n) { return n >= 32 ? ~0u : (1u << n) - 1; }

// The board after placing a queen on column `bit` of the next row.
constexpr Board place(const Board& b, std::uint32_t bit) {
  return Board{b.n, b.row + 1, b.cols | bit, (b.diag_left | bit) << 1, (b.diag_right | bit) >> 1};
}

// Solutions below a partial placement, sequentially.
std::uint64_t count_sequential(const Board& board);

// Solution counts from OEIS A000170, n <= 15.
std::optional<std::uint64_t> reference_solutions(int n);

// heist version: one registered task per placement; rows >= cutoff (if
// cutoff > 0) are counted sequentially inside the task. Inside a Runtime.
std::uint64_t count_heist(int n, int cutoff);

// SPMD task pool (collective): the placements of the first `seed_depth` rows
// become independent tasks, seeded on rank 0 only or spread over all ranks;
// the ranks' counts are summed.
std::uint64_t count_heist_pool(heist::Runtime& runtime, int n, int cutoff, int seed_depth, bool all_ranks);

}  // namespace heist::apps::nqueens
