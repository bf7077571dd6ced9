// sor: successive over-relaxation on an n x n grid, the Java Grande SOR
// kernel in the loop-parallel form of HelpFirst Figure 6 (a sequential loop
// over iterations, each a finish over P chunk asyncs; §4.1 explains why
// help-first distributes the chunks better than work-first).
//
// Red-black ordering, as in Java Grande's threaded SOR: each iteration
// updates the odd interior rows, then the even ones. Rows of one colour
// read only rows of the other colour, so they are independent; within a row
// the update runs left to right in place (Gauss-Seidel, Java Grande's
// stencil). The heist version runs the very same row updates, so its grid
// is bit-identical to the sequential one for any chunk count.
#pragma once

#include <cstdint>
#include <vector>

namespace heist::apps::sor {

struct Grid {
  int n = 0;
  std::vector<double> cells;  // row-major, n x n

  double* row(int i) { return cells.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(n); }
};

// Values in [0, 1) from the seed; the same grid for a given (n, seed).
Grid make_grid(int n, std::uint64_t seed);

// Updates, in order, the interior rows i in [row_begin, row_end) with
// i % 2 == colour (1: odd "red" rows, 0: even "black" rows):
//   G[i][j] = omega/4 (G[i-1][j] + G[i+1][j] + G[i][j-1] + G[i][j+1]) + (1 - omega) G[i][j]
// for j = 1 .. n-2, left to right. The one update both versions call.
void relax_rows(Grid& grid, double omega, int colour, int row_begin, int row_end);

// `iterations` red-black sweeps over the interior, sequentially.
void sor_sequential(Grid& grid, double omega, int iterations);

// The same sweeps on heist: each colour of each iteration is one finish
// over `chunks` asyncs (local closures), chunk c owning a contiguous block
// of interior rows. Call inside a heist::Runtime.
void sor_heist(Grid& grid, double omega, int iterations, int chunks);

// Sum of every cell, row by row (Java Grande's Gtotal).
double checksum(const Grid& grid);

}  // namespace heist::apps::sor
