// sparselu: blocked sparse LU factorisation, after the BOTS (Barcelona
// OpenMP Task Suite) sparselu benchmark that seed 000 (HotSLAW) evaluates
// (§4, Table 1: "SparseLU has three different task functions", with 16, 16
// and 24-byte inputs; §5.1: parallel-for parallelism, a few coarse tasks).
//
// The matrix is n x n blocks of b x b doubles; a null block is all zeros.
// genmat follows BOTS: block (ii, jj) is null when
//   ((ii < jj) && (ii % 3 != 0)) || ((ii > jj) && (jj % 3 != 0)) || (ii % 2 == 1) || (jj % 2 == 1)
// unless it is on the diagonal or next to it (|ii - jj| <= 1), and the
// values of the allocated blocks, in row-major block order, come from BOTS's
// LCG (init_val = 3125 * init_val % 65536 from 1325; value (init_val -
// 32768) / 16384). BOTS stores floats; heist stores doubles (the same values).
// One change: each diagonal cell is then set to 1 + its row's absolute sum
// (strict diagonal dominance), since BOTS's values, factorised without
// pivoting, overflow to inf/NaN for many sizes.
//
// For each kk: lu0 factors the diagonal block (kk, kk); fwd updates each
// non-null block (kk, jj) of the row, jj > kk; bdiv each non-null block
// (ii, kk) of the column, ii > kk; then bmod updates (ii, jj) -= (ii, kk) x
// (kk, jj) for every ii, jj > kk with both factors non-null, allocating a
// zero block when (ii, jj) was null (fill-in). No pivoting, as in BOTS.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace heist::apps::sparselu {

struct Matrix {
  int n = 0;  // blocks per row and column
  int b = 0;  // block size: each block is b x b doubles, row-major
  std::vector<std::unique_ptr<double[]>> blocks;  // n x n, row-major; null = zero block

  std::unique_ptr<double[]>& slot(int ii, int jj) {
    return blocks[static_cast<std::size_t>(ii) * static_cast<std::size_t>(n) + static_cast<std::size_t>(jj)];
  }
  double* block(int ii, int jj) const {
    return blocks[static_cast<std::size_t>(ii) * static_cast<std::size_t>(n) + static_cast<std::size_t>(jj)].get();
  }
  std::size_t cells() const { return static_cast<std::size_t>(b) * static_cast<std::size_t>(b); }
};

// BOTS's null-block rule (before the diagonal exception) and the full test.
bool bots_null_entry(int ii, int jj);
bool initially_null(int ii, int jj);

// The BOTS input: n x n blocks of b x b, deterministic.
Matrix genmat(int n, int b);
// A deep copy (same pattern, same values).
Matrix clone(const Matrix& m);
// Non-null blocks.
std::size_t non_null_blocks(const Matrix& m);

// BOTS's four kernels on b x b row-major blocks. The heist tasks and the
// sequential loop call these same functions, in the same order per block,
// so the two factorisations agree bit for bit.
void lu0(int b, double* diag);                                         // diag = L U in place
void fwd(int b, const double* diag, double* col);                      // col = L^-1 col (row kk)
void bdiv(int b, const double* diag, double* row);                     // row = row U^-1 (column kk)
void bmod(int b, const double* row, const double* col, double* inner); // inner -= row x col

// Kernel calls of one factorisation (lu0 runs on the calling thread; the
// others are heist's tasks).
struct Calls {
  std::uint64_t lu0 = 0, fwd = 0, bdiv = 0, bmod = 0, fill_ins = 0;
  std::uint64_t tasks() const { return fwd + bdiv + bmod; }
};

// BOTS's sparselu_seq_call.
Calls sparselu_sequential(Matrix& m);

// The same on heist, from the calling task (or the Runtime's thread): per kk,
// lu0 inline, then the fwd and bdiv tasks (independent), heist::fence(), the
// bmod tasks (started only once every fwd/bdiv of this kk completed), and
// heist::wait() before the next kk. Registered tasks; one run at a time.
Calls sparselu_heist(Matrix& m);

// Compares a factorised matrix with the reference one, block by block:
// whether the non-null patterns agree, and the largest relative error
// |a - r| / |r| over the cells of the blocks both hold (after BOTS's
// checkmat; a difference where r == 0, or an inf or NaN in either, counts
// as an infinite error).
struct Comparison {
  bool same_pattern = false;
  double max_relative_error = 0.0;
};
Comparison compare(const Matrix& a, const Matrix& reference);

// FNV-1a of the non-null pattern and the exact bits of every cell: equal for
// two factorisations that agree bit for bit (the peers' verification).
std::uint64_t fingerprint(const Matrix& m);

}  // namespace heist::apps::sparselu
