// Tests of the sparselu kernels (BOTS sparselu, HotSLAW Table 1), built
// into test_apps by tests/apps/CMakeLists.txt (test_apps.cpp runs the app
// itself through the App interface): BOTS's input pattern and values, L x U
// reproducing the input, the heist factorisation agreeing bit for bit with
// the sequential one for every spawn policy, and compare() catching errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <heist/heist.hpp>

#include "sparselu/sparselu.hpp"

namespace {

namespace lu = heist::apps::sparselu;

// The whole matrix, dense, row-major (nb x nb cells).
std::vector<double> dense(const lu::Matrix& m) {
  const int nb = m.n * m.b;
  std::vector<double> a(static_cast<std::size_t>(nb) * static_cast<std::size_t>(nb), 0.0);
  for (int ii = 0; ii < m.n; ++ii)
    for (int jj = 0; jj < m.n; ++jj)
      if (const double* p = m.block(ii, jj))
        for (int i = 0; i < m.b; ++i)
          for (int j = 0; j < m.b; ++j) a[(ii * m.b + i) * nb + jj * m.b + j] = p[i * m.b + j];
  return a;
}

TEST(SparseLu, GenmatFollowsBots) {
  const lu::Matrix m = lu::genmat(12, 3);
  for (int ii = 0; ii < 12; ++ii)
    for (int jj = 0; jj < 12; ++jj) {
      const bool adjacent = ii - jj <= 1 && jj - ii <= 1;
      EXPECT_EQ(m.block(ii, jj) == nullptr, !adjacent && lu::bots_null_entry(ii, jj)) << ii << "," << jj;
    }
  EXPECT_NE(m.block(0, 6), nullptr);  // row 0 (ii % 3 == 0), even column
  EXPECT_NE(m.block(6, 0), nullptr);
  EXPECT_EQ(m.block(2, 4), nullptr);  // ii < jj, ii % 3 != 0
  EXPECT_EQ(m.block(4, 2), nullptr);  // ii > jj, jj % 3 != 0
  EXPECT_EQ(m.block(1, 5), nullptr);  // odd row
  EXPECT_EQ(lu::non_null_blocks(m), 48u);
  // BOTS's LCG from 1325: 11857, 25285, 44745, ...; the diagonal cell is
  // replaced by 1 + its row's absolute sum.
  EXPECT_EQ(m.block(0, 0)[1], (25285 - 32768.0) / 16384.0);
  EXPECT_EQ(m.block(0, 0)[2], (44745 - 32768.0) / 16384.0);
  const std::vector<double> a = dense(m);
  for (int r = 0; r < 36; ++r) {
    double off = 0.0;
    for (int c = 0; c < 36; ++c) off += c == r ? 0.0 : std::abs(a[r * 36 + c]);
    EXPECT_GT(a[r * 36 + r], off + 1.0);
  }
  EXPECT_EQ(dense(lu::genmat(12, 3)), a);  // deterministic
}

TEST(SparseLu, FactorsReproduceTheMatrix) {
  const lu::Matrix initial = lu::genmat(7, 4);
  lu::Matrix m = lu::clone(initial);
  const lu::Calls calls = lu::sparselu_sequential(m);
  EXPECT_GT(calls.fill_ins, 0u);
  EXPECT_EQ(lu::non_null_blocks(m), lu::non_null_blocks(initial) + calls.fill_ins);
  const int nb = 28;
  const std::vector<double> a = dense(initial), f = dense(m);
  double scale = 0.0, worst = 0.0;
  for (double v : a) scale = std::max(scale, std::abs(v));
  for (int i = 0; i < nb; ++i)
    for (int j = 0; j < nb; ++j) {
      double lu_ij = 0.0;  // (L U)[i][j], L unit lower and U upper, both in f
      for (int k = 0; k <= std::min(i, j); ++k) lu_ij += (k == i ? 1.0 : f[i * nb + k]) * f[k * nb + j];
      worst = std::max(worst, std::abs(lu_ij - a[i * nb + j]));
    }
  EXPECT_LT(worst, 1e-12 * scale);
}

TEST(SparseLu, HeistAgreesBitForBitWithSequential) {
  for (heist::SpawnPolicy policy :
       {heist::SpawnPolicy::help_first, heist::SpawnPolicy::bounded, heist::SpawnPolicy::work_first}) {
    heist::Options o;
    o.workers = 3;
    o.policy = policy;
    heist::Runtime runtime(o);
    for (auto [n, b] : {std::pair{1, 1}, {2, 3}, {7, 4}, {13, 5}}) {
      const lu::Matrix initial = lu::genmat(n, b);
      lu::Matrix expected = lu::clone(initial), got = lu::clone(initial);
      const lu::Calls seq = lu::sparselu_sequential(expected);
      const lu::Calls par = lu::sparselu_heist(got);
      EXPECT_EQ(par.tasks(), seq.tasks()) << n << "x" << b;
      EXPECT_EQ(par.fill_ins, seq.fill_ins) << n << "x" << b;
      EXPECT_EQ(dense(got), dense(expected)) << n << "x" << b;
      const lu::Comparison c = lu::compare(got, expected);
      EXPECT_TRUE(c.same_pattern);
      EXPECT_EQ(c.max_relative_error, 0.0);
    }
  }
}

TEST(SparseLu, CompareCatchesErrors) {
  lu::Matrix reference = lu::genmat(5, 3);
  lu::sparselu_sequential(reference);
  lu::Matrix m = lu::clone(reference);
  ASSERT_TRUE(lu::compare(m, reference).same_pattern);
  m.block(2, 2)[4] *= 1.0 + 1e-9;
  EXPECT_NEAR(lu::compare(m, reference).max_relative_error, 1e-9, 1e-12);
  m.block(2, 2)[4] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(lu::compare(m, reference).max_relative_error, std::numeric_limits<double>::infinity());
  m = lu::clone(reference);
  ASSERT_EQ(m.block(1, 3), nullptr);
  m.slot(1, 3) = std::make_unique<double[]>(m.cells());
  EXPECT_FALSE(lu::compare(m, reference).same_pattern);
}

}  // namespace
