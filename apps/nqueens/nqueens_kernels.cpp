#include <array>
#include <vector>

#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "nqueens/nqueens.hpp"

namespace heist::apps::nqueens {

namespace {

struct QueensIn {
  Board board;
  std::uint32_t cutoff;
};

// inline: lets GCC unroll the recursion through the inline spawn path, as
// in fib (apps/fib/fib_kernels.cpp; 13 % fewer instructions for nqueens(11)).
inline void queens_body(const QueensIn& in, std::uint64_t* out);
const auto queens_task = heist::register_task<queens_body>("apps.nqueens");

inline void queens_body(const QueensIn& in, std::uint64_t* out) {
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

namespace {
// Every placement of the first `depth` rows, in a fixed order.
void boards_at(const Board& b, std::uint32_t depth, std::vector<Board>& out) {
  if (b.row == depth || b.row == b.n) {
    out.push_back(b);
    return;
  }
  std::uint32_t free = ~(b.cols | b.diag_left | b.diag_right) & full_mask(b.n);
  while (free != 0) {
    const std::uint32_t bit = free & (0u - free);
    free ^= bit;
    boards_at(place(b, bit), depth, out);
  }
}
}  // namespace

std::uint64_t count_heist_pool(heist::Runtime& runtime, int n, int cutoff, int seed_depth, bool all_ranks) {
  std::vector<Board> boards;
  boards_at(empty_board(static_cast<std::uint32_t>(n)), static_cast<std::uint32_t>(seed_depth), boards);
  std::vector<std::uint64_t> counts(boards.size(), 0);
  const int rank = runtime.rank();
  const int seeders = all_ranks ? runtime.ranks() : 1;
  runtime.pool([&] {
    if (!all_ranks && rank != 0) return;
    // Seeding rank r takes boards r, r + seeders, ...: independent tasks in the global pool.
    for (std::size_t i = static_cast<std::size_t>(rank); i < boards.size(); i += static_cast<std::size_t>(seeders))
      heist::spawn(queens_task, QueensIn{boards[i], static_cast<std::uint32_t>(cutoff)}, &counts[i]);
  });
  std::uint64_t mine = 0;
  for (std::uint64_t c : counts) mine += c;
  return runtime.sum_over_ranks(mine);
}

std::vector<TaskIo> nqueens_task_io() { return {task_io_of(queens_task, "apps.nqueens")}; }

}  // namespace heist::apps::nqueens
