#include <array>

#include <heist/heist.hpp>

#include "nqueens/nqueens.hpp"

namespace heist::apps::nqueens {

namespace {
constexpr std::uint32_t full_mask(std::uint32_t n) { return n >= 32 ? ~0u : (1u << n) - 1; }

constexpr Board place(const Board& b, std::uint32_t bit) {
  return Board{b.n, b.row + 1, b.cols | bit, (b.diag_left | bit) << 1, (b.diag_right | bit) >> 1};
}
}  // namespace

std::uint64_t count_sequential(const Board& b) {
  if (b.row == b.n) return 1;
  std::uint64_t total = 0;
  std::uint32_t free = ~(b.cols | b.diag_left | b.diag_right) & full_mask(b.n);
  while (free != 0) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    total += count_sequential(place(b, bit));
  }
  return total;
}

std::optional<std::uint64_t> reference_solutions(int n) {
  static constexpr std::array<std::uint64_t, 16> kSolutions = {
      1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184};
  if (n < 0 || n >= static_cast<int>(kSolutions.size())) return std::nullopt;
  return kSolutions[static_cast<std::size_t>(n)];
}

namespace {

struct QueensIn {
  Board board;
  std::uint32_t cutoff;
};

void queens_body(const QueensIn& in, std::uint64_t* out);
const auto queens_task = heist::register_task<queens_body>("apps.nqueens");

void queens_body(const QueensIn& in, std::uint64_t* out) {
  const Board& b = in.board;
  if (b.row == b.n) {
    *out = 1;
    return;
  }
  if (in.cutoff != 0 && b.row >= in.cutoff) {
    *out = count_sequential(b);
    return;
  }
  std::array<std::uint64_t, 32> counts;
  std::uint32_t spawned = 0;
  std::uint32_t free = ~(b.cols | b.diag_left | b.diag_right) & full_mask(b.n);
  while (free != 0) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    heist::spawn(queens_task, QueensIn{place(b, bit), in.cutoff}, &counts[spawned++]);
  }
  heist::wait();
  std::uint64_t total = 0;
  for (std::uint32_t i = 0; i < spawned; ++i) total += counts[i];
  *out = total;
}

}  // namespace

std::uint64_t count_heist(int n, int cutoff) {
  std::uint64_t result = 0;
  heist::spawn(queens_task, QueensIn{empty_board(static_cast<std::uint32_t>(n)), static_cast<std::uint32_t>(cutoff)},
               &result);
  heist::wait();
  return result;
}

}  // namespace heist::apps::nqueens
