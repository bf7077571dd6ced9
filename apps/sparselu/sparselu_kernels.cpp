// sparselu on heist: per kk, lu0 inline, the fwd and bdiv tasks, a fence,
// the bmod tasks (BOTS sparselu, HotSLAW §4 and Table 1). The block kernels
// are in sparselu_sequential.cpp. Public heist API only.
#include <memory>

#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "sparselu/sparselu.hpp"

namespace heist::apps::sparselu {

namespace {

// The block size of the run in progress (like matmul's g_checksums): set
// before the first spawn, so every task sees it.
int g_b = 0;

// Task inputs: pointers into the matrix, as the UPC version of HotSLAW
// passes block addresses (16, 16 and 24 bytes, Table 1). They are valid only
// in this process; `heist bench` runs one process, so no task leaves it.
struct FwdIn {
  const double* diag;
  double* col;  // block (kk, jj), jj > kk
};
struct BdivIn {
  const double* diag;
  double* row;  // block (ii, kk), ii > kk
};
struct BmodIn {
  const double* row;               // block (ii, kk)
  const double* col;               // block (kk, jj)
  std::unique_ptr<double[]>* inner;  // the slot of block (ii, jj), maybe null
};
static_assert(sizeof(FwdIn) == 16 && sizeof(BdivIn) == 16 && sizeof(BmodIn) == 24);

void fwd_body(const FwdIn& in) { fwd(g_b, in.diag, in.col); }
void bdiv_body(const BdivIn& in) { bdiv(g_b, in.diag, in.row); }
void bmod_body(const BmodIn& in) {
  // Fill-in: exactly one bmod task per (ii, jj) and kk, and the fwd/bdiv
  // tasks never touch (ii, jj), so allocating here is race-free.
  bmod(g_b, in.row, in.col, fill_in(*in.inner, g_b));
}

const auto fwd_task = heist::register_task<fwd_body>("apps.sparselu.fwd", heist::Migration::process);
const auto bdiv_task = heist::register_task<bdiv_body>("apps.sparselu.bdiv", heist::Migration::process);
const auto bmod_task = heist::register_task<bmod_body>("apps.sparselu.bmod", heist::Migration::process);

}  // namespace

Calls sparselu_heist(Matrix& m) {
  g_b = m.b;
  struct Spawning {
    Calls calls;
    void lu0(double* diag) { sparselu::lu0(g_b, diag), ++calls.lu0; }
    void fwd(double* diag, double* col) { heist::spawn(fwd_task, FwdIn{diag, col}), ++calls.fwd; }
    void bdiv(double* diag, double* row) { heist::spawn(bdiv_task, BdivIn{diag, row}), ++calls.bdiv; }
    // The bmod tasks read what fwd and bdiv wrote. The traversal reads only
    // the blocks' pointers (the tasks above change contents, not pointers);
    // the bmod tasks of earlier kk, which may have allocated them, are done.
    void fwd_bdiv_done() { heist::fence(); }
    void bmod(const double* row, const double* col, std::unique_ptr<double[]>& inner) {
      if (!inner) ++calls.fill_ins;  // no task of this kk has touched it yet
      heist::spawn(bmod_task, BmodIn{row, col, &inner});
      ++calls.bmod;
    }
    void step_done() { heist::wait(); }  // the next lu0 reads (kk + 1, kk + 1), which a bmod wrote
  } ops;
  for_each_block_op(m, ops);
  return ops.calls;
}

std::vector<TaskIo> sparselu_task_io() {
  return {task_io_of(fwd_task, "apps.sparselu.fwd"), task_io_of(bdiv_task, "apps.sparselu.bdiv"),
          task_io_of(bmod_task, "apps.sparselu.bmod")};
}

}  // namespace heist::apps::sparselu
