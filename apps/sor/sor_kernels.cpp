// sor: grid, row update, and the sequential and heist sweeps (HelpFirst
// Figure 6: `for iterations { finish for p in 0..P-1 async {...} }`, one
// finish per colour here). Public heist API only.
#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "sor/sor.hpp"

namespace heist::apps::sor {

Grid make_grid(int n, std::uint64_t seed) {
  Grid g;
  g.n = n;
  g.cells.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  std::uint64_t state = seed;
  for (double& cell : g.cells) {  // splitmix64, top 53 bits -> [0, 1)
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    cell = static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  return g;
}

void relax_rows(Grid& grid, double omega, int colour, int row_begin, int row_end) {
  const double omega_over_four = omega * 0.25;
  const double one_minus_omega = 1.0 - omega;
  const int n = grid.n;
  if (row_begin < 1) row_begin = 1;
  if (row_end > n - 1) row_end = n - 1;
  int i = row_begin + ((row_begin & 1) != colour ? 1 : 0);
  for (; i < row_end; i += 2) {
    double* gi = grid.row(i);
    const double* above = grid.row(i - 1);
    const double* below = grid.row(i + 1);
    for (int j = 1; j < n - 1; ++j)
      gi[j] = omega_over_four * (above[j] + below[j] + gi[j - 1] + gi[j + 1]) + one_minus_omega * gi[j];
  }
}

void sor_sequential(Grid& grid, double omega, int iterations) {
  for (int it = 0; it < iterations; ++it) {
    relax_rows(grid, omega, 1, 1, grid.n - 1);
    relax_rows(grid, omega, 0, 1, grid.n - 1);
  }
}

namespace {
// One chunk of rows of one colour: a local-only async (it points into the grid).
struct RelaxChunk {
  Grid* grid;
  double omega;
  int colour;
  int begin;
  int end;
  void operator()() const { relax_rows(*grid, omega, colour, begin, end); }
};
}  // namespace

void sor_heist(Grid& grid, double omega, int iterations, int chunks) {
  const int interior = grid.n - 2;
  if (interior <= 0) return;
  if (chunks > interior) chunks = interior;
  for (int it = 0; it < iterations; ++it) {
    for (int colour : {1, 0}) {
      heist::finish([&] {
        for (int c = 0; c < chunks; ++c) {
          const int begin = 1 + static_cast<int>(static_cast<std::int64_t>(interior) * c / chunks);
          const int end = 1 + static_cast<int>(static_cast<std::int64_t>(interior) * (c + 1) / chunks);
          heist::async(RelaxChunk{&grid, omega, colour, begin, end});
        }
      });
    }
  }
}

double checksum(const Grid& grid) {
  double total = 0.0;
  for (double cell : grid.cells) total += cell;
  return total;
}

std::vector<TaskIo> sor_task_io() { return {closure_io_of<RelaxChunk>("sor chunk (local-only async)")}; }

}  // namespace heist::apps::sor
