// sparselu: blocked sparse LU factorisation, after the BOTS (Barcelona
// OpenMP Task Suite) sparselu benchmark that HotSLAW (HotSLAW) evaluates
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

// The block (ii, jj) of a bmod: allocated as a zero block first if it was
// null (a fill-in). Only the one bmod of (ii, jj) in a step may call it.
inline double* fill_in(std::unique_ptr<double[]>& slot, int b) {
  if (!slot) slot = std::make_unique<double[]>(static_cast<std::size_t>(b) * static_cast<std::size_t>(b));  // zeroed
  return slot.get();
}

// The factorisation's traversal, shared by the sequential version, heist's
// and the peers'; `ops` says how each step runs (called, spawned, ...):
// per kk, ops.lu0(diag); ops.fwd(diag, col) for each non-null (kk, jj > kk);
// ops.bdiv(diag, row) for each non-null (ii > kk, kk); ops.fwd_bdiv_done();
// ops.bmod(row, col, slot of (ii, jj)) for each ii, jj > kk with both
// factors non-null; ops.step_done(). Only block pointers are read here: the
// operations may still be running on the blocks' contents when it reads them.
template <class Ops>
void for_each_block_op(Matrix& m, Ops&& ops) {
  const int n = m.n;
  for (int kk = 0; kk < n; ++kk) {
    double* diag = m.block(kk, kk);
    ops.lu0(diag);
    for (int jj = kk + 1; jj < n; ++jj)
      if (double* col = m.block(kk, jj)) ops.fwd(diag, col);
    for (int ii = kk + 1; ii < n; ++ii)
      if (double* row = m.block(ii, kk)) ops.bdiv(diag, row);
    ops.fwd_bdiv_done();
    for (int ii = kk + 1; ii < n; ++ii) {
      const double* row = m.block(ii, kk);
      if (row == nullptr) continue;
      for (int jj = kk + 1; jj < n; ++jj)
        if (const double* col = m.block(kk, jj)) ops.bmod(row, col, m.slot(ii, jj));
    }
    ops.step_done();
  }
}

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
