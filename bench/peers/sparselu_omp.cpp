#include <memory>

#include "omp_kernels.hpp"
#include "sparselu_common.hpp"

namespace heist::peers {

std::uint64_t sparselu_omp(const Problem& problem) {
  sparselu::Matrix m = sparselu::fresh_input(problem.blocks, problem.block_size);
  struct OmpTasks {
    int b;
    void lu0(double* diag) const { sparselu::lu0(b, diag); }
    void fwd(const double* diag, double* col) const {
      const int size = b;
#pragma omp task untied default(none) firstprivate(size, diag, col)
      sparselu::fwd(size, diag, col);
    }
    void bdiv(const double* diag, double* row) const {
      const int size = b;
#pragma omp task untied default(none) firstprivate(size, diag, row)
      sparselu::bdiv(size, diag, row);
    }
    void fwd_bdiv_done() const {
#pragma omp taskwait
    }
    void bmod(const double* row, const double* col, std::unique_ptr<double[]>& slot) const {
      std::unique_ptr<double[]>* inner = &slot;
      const int size = b;
      // fill-in allocated by the task, as heist's bmod does
#pragma omp task untied default(none) firstprivate(size, row, col, inner)
      sparselu::bmod(size, row, col, sparselu::fill_in(*inner, size));
    }
    void step_done() const {
#pragma omp taskwait
    }
  };
  sparselu::for_each_block_op(m, OmpTasks{m.b});
  return sparselu::fingerprint(m);
}

}  // namespace heist::peers
