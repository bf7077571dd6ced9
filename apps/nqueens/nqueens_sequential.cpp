// The sequential nqueens and the reference counts: a translation unit of its
// own, so the baseline's code does not change with the heist kernels beside it.
#include <array>

#include "nqueens/nqueens.hpp"

namespace heist::apps::nqueens {

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

}  // namespace heist::apps::nqueens
