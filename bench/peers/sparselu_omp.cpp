#include <memory>

#include "omp_kernels.hpp"
#include "sparselu_common.hpp"

namespace heist::peers {

std::uint64_t sparselu_omp(const Problem& problem) {
  sparselu::Matrix m = sparselu::fresh_input(problem.blocks, problem.block_size);
  const int n = m.n, b = m.b;
  for (int kk = 0; kk < n; ++kk) {
    double* diag = m.block(kk, kk);
    sparselu::lu0(b, diag);
    for (int jj = kk + 1; jj < n; ++jj)
      if (double* col = m.block(kk, jj)) {
#pragma omp task untied default(none) firstprivate(b, diag, col)
        sparselu::fwd(b, diag, col);
      }
    for (int ii = kk + 1; ii < n; ++ii)
      if (double* row = m.block(ii, kk)) {
#pragma omp task untied default(none) firstprivate(b, diag, row)
        sparselu::bdiv(b, diag, row);
      }
#pragma omp taskwait
    for (int ii = kk + 1; ii < n; ++ii) {
      const double* row = m.block(ii, kk);
      if (row == nullptr) continue;
      for (int jj = kk + 1; jj < n; ++jj) {
        const double* col = m.block(kk, jj);
        if (col == nullptr) continue;
        std::unique_ptr<double[]>* inner = &m.slot(ii, jj);
#pragma omp task untied default(none) firstprivate(b, row, col, inner)
        {  // fill-in allocated by the task, as heist's bmod does
          if (!*inner) *inner = std::make_unique<double[]>(static_cast<std::size_t>(b) * static_cast<std::size_t>(b));
          sparselu::bmod(b, row, col, inner->get());
        }
      }
    }
#pragma omp taskwait
  }
  return sparselu::fingerprint(m);
}

}  // namespace heist::peers
