// sparselu on heist: per kk, lu0 inline, the fwd and bdiv tasks, a fence,
// the bmod tasks (BOTS sparselu, seed 000 §4 and Table 1). The block kernels
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

// Task inputs: pointers into the matrix, as the UPC version of seed 000
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
  auto& inner = *in.inner;
  if (!inner) inner = std::make_unique<double[]>(static_cast<std::size_t>(g_b) * static_cast<std::size_t>(g_b));
  bmod(g_b, in.row, in.col, inner.get());
}

const auto fwd_task = heist::register_task<fwd_body>("apps.sparselu.fwd", heist::Migration::process);
const auto bdiv_task = heist::register_task<bdiv_body>("apps.sparselu.bdiv", heist::Migration::process);
const auto bmod_task = heist::register_task<bmod_body>("apps.sparselu.bmod", heist::Migration::process);

}  // namespace

Calls sparselu_heist(Matrix& m) {
  Calls calls;
  const int n = m.n;
  g_b = m.b;
  for (int kk = 0; kk < n; ++kk) {
    double* diag = m.block(kk, kk);
    lu0(m.b, diag);
    ++calls.lu0;
    for (int jj = kk + 1; jj < n; ++jj)
      if (double* col = m.block(kk, jj)) heist::spawn(fwd_task, FwdIn{diag, col}), ++calls.fwd;
    for (int ii = kk + 1; ii < n; ++ii)
      if (double* row = m.block(ii, kk)) heist::spawn(bdiv_task, BdivIn{diag, row}), ++calls.bdiv;
    // The bmod tasks read what fwd and bdiv wrote. Only the blocks' pointers
    // are read below (the tasks above change contents, not pointers); the
    // bmod tasks of earlier kk, which may have allocated them, are done.
    heist::fence();
    for (int ii = kk + 1; ii < n; ++ii) {
      const double* row = m.block(ii, kk);
      if (row == nullptr) continue;
      for (int jj = kk + 1; jj < n; ++jj) {
        const double* col = m.block(kk, jj);
        if (col == nullptr) continue;
        auto& inner = m.slot(ii, jj);
        if (!inner) ++calls.fill_ins;  // no task of this kk has touched it yet
        heist::spawn(bmod_task, BmodIn{row, col, &inner});
        ++calls.bmod;
      }
    }
    heist::wait();  // the next lu0 reads (kk + 1, kk + 1), which a bmod wrote
  }
  return calls;
}

std::vector<TaskIo> sparselu_task_io() {
  return {task_io_of(fwd_task, "apps.sparselu.fwd"), task_io_of(bdiv_task, "apps.sparselu.bdiv"),
          task_io_of(bmod_task, "apps.sparselu.bmod")};
}

}  // namespace heist::apps::sparselu
