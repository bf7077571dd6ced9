#include <tbb/task_group.h>

#include <memory>

#include "sparselu_common.hpp"
#include "tbb_kernels.hpp"

namespace heist::peers {

std::uint64_t sparselu_tbb(const Problem& problem) {
  sparselu::Matrix m = sparselu::fresh_input(problem.blocks, problem.block_size);
  const int n = m.n, b = m.b;
  tbb::task_group group;
  for (int kk = 0; kk < n; ++kk) {
    double* diag = m.block(kk, kk);
    sparselu::lu0(b, diag);
    for (int jj = kk + 1; jj < n; ++jj)
      if (double* col = m.block(kk, jj)) group.run([=] { sparselu::fwd(b, diag, col); });
    for (int ii = kk + 1; ii < n; ++ii)
      if (double* row = m.block(ii, kk)) group.run([=] { sparselu::bdiv(b, diag, row); });
    group.wait();
    for (int ii = kk + 1; ii < n; ++ii) {
      const double* row = m.block(ii, kk);
      if (row == nullptr) continue;
      for (int jj = kk + 1; jj < n; ++jj) {
        const double* col = m.block(kk, jj);
        if (col == nullptr) continue;
        std::unique_ptr<double[]>* inner = &m.slot(ii, jj);
        group.run([=] {  // fill-in allocated by the task, as heist's bmod does
          if (!*inner) *inner = std::make_unique<double[]>(static_cast<std::size_t>(b) * static_cast<std::size_t>(b));
          sparselu::bmod(b, row, col, inner->get());
        });
      }
    }
    group.wait();
  }
  return sparselu::fingerprint(m);
}

}  // namespace heist::peers
