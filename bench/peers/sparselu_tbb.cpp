#include <tbb/task_group.h>

#include <memory>

#include "sparselu_common.hpp"
#include "tbb_kernels.hpp"

namespace heist::peers {

std::uint64_t sparselu_tbb(const Problem& problem) {
  sparselu::Matrix m = sparselu::fresh_input(problem.blocks, problem.block_size);
  struct TbbTasks {
    int b;
    tbb::task_group group;
    void lu0(double* diag) { sparselu::lu0(b, diag); }
    void fwd(const double* diag, double* col) { group.run([b = b, diag, col] { sparselu::fwd(b, diag, col); }); }
    void bdiv(const double* diag, double* row) { group.run([b = b, diag, row] { sparselu::bdiv(b, diag, row); }); }
    void fwd_bdiv_done() { group.wait(); }
    void bmod(const double* row, const double* col, std::unique_ptr<double[]>& slot) {
      // fill-in allocated by the task, as heist's bmod does
      group.run([b = b, row, col, inner = &slot] { sparselu::bmod(b, row, col, sparselu::fill_in(*inner, b)); });
    }
    void step_done() { group.wait(); }
  } ops{m.b, {}};
  sparselu::for_each_block_op(m, ops);
  return sparselu::fingerprint(m);
}

}  // namespace heist::peers
