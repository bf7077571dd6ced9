// sparselu: BOTS's genmat, its four block kernels, the sequential
// factorisation and the comparison of two factorisations (BOTS sparselu,
// HotSLAW §4 and Table 1). No runtime: heist's tasks (sparselu_kernels.cpp)
// and the oneTBB and OpenMP peers (bench/peers) call these same functions.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "sparselu/sparselu.hpp"

namespace heist::apps::sparselu {

bool bots_null_entry(int ii, int jj) {
  return ((ii < jj) && (ii % 3 != 0)) || ((ii > jj) && (jj % 3 != 0)) || (ii % 2 == 1) || (jj % 2 == 1);
}

bool initially_null(int ii, int jj) {
  const bool adjacent = ii == jj || ii == jj - 1 || ii - 1 == jj;  // BOTS always allocates these
  return !adjacent && bots_null_entry(ii, jj);
}

Matrix genmat(int n, int b) {
  Matrix m;
  m.n = n;
  m.b = b;
  m.blocks.resize(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  int init_val = 1325;  // BOTS's LCG, one sequence over the allocated blocks in order
  for (int ii = 0; ii < n; ++ii)
    for (int jj = 0; jj < n; ++jj) {
      if (initially_null(ii, jj)) continue;
      auto& p = m.slot(ii, jj);
      p = std::make_unique<double[]>(m.cells());
      for (std::size_t k = 0; k < m.cells(); ++k) {
        init_val = (3125 * init_val) % 65536;
        p[k] = (init_val - 32768.0) / 16384.0;
      }
    }
  // Not in BOTS: without pivoting its input overflows to inf/NaN for many
  // sizes (n = 50 with b = 64, 72 or 80), which BOTS's check lets pass. Each
  // diagonal cell becomes 1 + its row's absolute sum, so the matrix is
  // strictly diagonally dominant by rows, which elimination without
  // pivoting preserves: every pivot stays away from zero.
  for (int ii = 0; ii < n; ++ii)
    for (int i = 0; i < b; ++i) {
      double sum = 1.0;
      for (int jj = 0; jj < n; ++jj)
        if (const double* p = m.block(ii, jj))
          for (int j = 0; j < b; ++j) sum += std::abs(p[i * b + j]);
      m.block(ii, ii)[i * b + i] = sum;
    }
  return m;
}

Matrix clone(const Matrix& m) {
  Matrix c;
  c.n = m.n;
  c.b = m.b;
  c.blocks.resize(m.blocks.size());
  for (std::size_t k = 0; k < m.blocks.size(); ++k) {
    if (!m.blocks[k]) continue;
    c.blocks[k] = std::make_unique_for_overwrite<double[]>(m.cells());
    std::copy(m.blocks[k].get(), m.blocks[k].get() + m.cells(), c.blocks[k].get());
  }
  return c;
}

std::size_t non_null_blocks(const Matrix& m) {
  std::size_t count = 0;
  for (const auto& p : m.blocks) count += p ? 1 : 0;
  return count;
}

// The kernels apply BOTS's updates in BOTS's order for every cell (the k
// sequence of each cell is the same); the loops are only reordered so that
// the innermost one runs along a row. noinline: both versions run the same
// machine code (inlined into the sequential loop, gcc 12 made it ~25% slower).
// The block kernels start on a 64-byte boundary: their inner loops' place
// in the instruction cache lines then no longer depends on what the linker
// put before them. On this AMD EPYC VM a 16-byte shift of bmod (an unrelated
// change elsewhere in the binary) made sequential sparselu 1.6x slower
// (1.05 s -> 1.71-2.12 s, --seq), and every comparison of two builds on it
// meaningless.
[[gnu::noinline, gnu::aligned(64)]] void lu0(int b, double* diag) {
  for (int k = 0; k < b; ++k)
    for (int i = k + 1; i < b; ++i) {
      double* di = diag + i * b;
      const double* dk = diag + k * b;
      di[k] = di[k] / dk[k];
      for (int j = k + 1; j < b; ++j) di[j] = di[j] - di[k] * dk[j];
    }
}

[[gnu::noinline, gnu::aligned(64)]] void fwd(int b, const double* diag, double* col) {
  for (int k = 0; k < b; ++k)
    for (int i = k + 1; i < b; ++i) {
      const double dik = diag[i * b + k];
      double* ci = col + i * b;
      const double* ck = col + k * b;
      for (int j = 0; j < b; ++j) ci[j] = ci[j] - dik * ck[j];
    }
}

[[gnu::noinline, gnu::aligned(64)]] void bdiv(int b, const double* diag, double* row) {
  for (int i = 0; i < b; ++i) {
    double* ri = row + i * b;
    for (int k = 0; k < b; ++k) {
      ri[k] = ri[k] / diag[k * b + k];
      const double rik = ri[k];
      const double* dk = diag + k * b;
      for (int j = k + 1; j < b; ++j) ri[j] = ri[j] - rik * dk[j];
    }
  }
}

[[gnu::noinline, gnu::aligned(64)]] void bmod(int b, const double* row, const double* col, double* inner) {
  for (int i = 0; i < b; ++i) {
    double* ii = inner + i * b;
    for (int k = 0; k < b; ++k) {
      const double rik = row[i * b + k];
      const double* ck = col + k * b;
      for (int j = 0; j < b; ++j) ii[j] = ii[j] - rik * ck[j];
    }
  }
}

Calls sparselu_sequential(Matrix& m) {
  struct Sequential {
    Matrix& m;
    Calls calls;
    void lu0(double* diag) { sparselu::lu0(m.b, diag), ++calls.lu0; }
    void fwd(const double* diag, double* col) { sparselu::fwd(m.b, diag, col), ++calls.fwd; }
    void bdiv(const double* diag, double* row) { sparselu::bdiv(m.b, diag, row), ++calls.bdiv; }
    void fwd_bdiv_done() {}
    void bmod(const double* row, const double* col, std::unique_ptr<double[]>& inner) {
      if (!inner) ++calls.fill_ins;
      sparselu::bmod(m.b, row, col, fill_in(inner, m.b));
      ++calls.bmod;
    }
    void step_done() {}
  } ops{m, {}};
  for_each_block_op(m, ops);
  return ops.calls;
}

Comparison compare(const Matrix& a, const Matrix& reference) {
  Comparison c;
  if (a.n != reference.n || a.b != reference.b || a.blocks.size() != reference.blocks.size()) return c;
  c.same_pattern = true;
  for (std::size_t k = 0; k < a.blocks.size(); ++k) {
    const double* x = a.blocks[k].get();
    const double* r = reference.blocks[k].get();
    if ((x == nullptr) != (r == nullptr)) c.same_pattern = false;
    if (x == nullptr || r == nullptr) continue;
    for (std::size_t i = 0; i < a.cells(); ++i) {
      double err = 0.0;
      if (!std::isfinite(x[i]) || !std::isfinite(r[i])) err = std::numeric_limits<double>::infinity();
      else if (x[i] != r[i]) err = r[i] == 0.0 ? std::numeric_limits<double>::infinity() : std::abs((x[i] - r[i]) / r[i]);
      if (err > c.max_relative_error) c.max_relative_error = err;
    }
  }
  return c;
}

std::uint64_t fingerprint(const Matrix& m) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the pattern and the bits of every cell
  auto mix = [&h](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= (v >> (8 * i)) & 0xFF;
      h *= 1099511628211ull;
    }
  };
  for (std::size_t k = 0; k < m.blocks.size(); ++k) {
    if (!m.blocks[k]) continue;
    mix(k);
    for (std::size_t i = 0; i < m.cells(); ++i) {
      std::uint64_t bits;
      std::memcpy(&bits, &m.blocks[k][i], sizeof bits);
      mix(bits);
    }
  }
  return h;
}

}  // namespace heist::apps::sparselu
