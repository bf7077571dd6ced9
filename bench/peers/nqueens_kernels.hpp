#pragma once

// The peers use heist's own nqueens board and sequential count (apps/nqueens)
// below their cutoff, so every implementation shares the leaf code.
#include "nqueens/nqueens.hpp"

namespace heist::peers {

inline constexpr int nqueens_max_n = 20;

using heist::apps::nqueens::Board;
using heist::apps::nqueens::count_sequential;
using heist::apps::nqueens::empty_board;
using heist::apps::nqueens::full_mask;
using heist::apps::nqueens::place;

// Free columns of the next row.
constexpr std::uint32_t free_columns(const Board& b) { return ~(b.cols | b.diag_left | b.diag_right) & full_mask(b.n); }

}  // namespace heist::peers
