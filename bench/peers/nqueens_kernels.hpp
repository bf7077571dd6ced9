#pragma once

#include <bit>
#include <cstdint>

namespace heist::peers {

inline constexpr int nqueens_max_n = 20;

// Columns and diagonals attacked by the queens placed so far, one bit per column.
struct Board {
  std::uint32_t cols = 0;
  std::uint32_t left_diagonals = 0;
  std::uint32_t right_diagonals = 0;
};

constexpr std::uint32_t full_row(int n) { return (std::uint32_t{1} << n) - 1; }

constexpr std::uint32_t free_columns(const Board& board, std::uint32_t full) {
  return ~(board.cols | board.left_diagonals | board.right_diagonals) & full;
}

constexpr std::uint32_t lowest_bit(std::uint32_t mask) {
  return std::uint32_t{1} << std::countr_zero(mask);
}

// Board for the next row after placing a queen on column bit `column`.
constexpr Board place(const Board& board, std::uint32_t column) {
  return {board.cols | column, (board.left_diagonals | column) << 1,
          (board.right_diagonals | column) >> 1};
}

// Number of ways to complete `board` to a full solution.
constexpr std::uint64_t count_solutions(const Board& board, std::uint32_t full) {
  if (board.cols == full) {
    return 1;
  }
  std::uint64_t count = 0;
  for (std::uint32_t free = free_columns(board, full); free != 0; free &= free - 1) {
    count += count_solutions(place(board, lowest_bit(free)), full);
  }
  return count;
}

constexpr std::uint64_t nqueens_seq(int n) { return count_solutions(Board{}, full_row(n)); }

static_assert(nqueens_seq(6) == 4);

}  // namespace heist::peers
