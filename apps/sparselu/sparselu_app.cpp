// `heist bench sparselu`: blocked sparse LU after BOTS sparselu (HotSLAW
// §4, Table 1: three task functions, fwd, bdiv and bmod, with 16, 16 and
// 24-byte inputs; parallel-for phases, a fence between them). Every run
// factorises a fresh copy of the BOTS input (the copy is part of the timed
// run in both versions, as sor's grid copy is) and then compares it with the
// sequential factorisation, computed once in check() and kept; the
// comparison is also timed, so that its max relative error can go into
// RunOutput.extra (it reads each cell once, against the O(b) work per cell
// of the factorisation). The result is the number of non-null blocks after
// fill-in; verify() compares again: same pattern, every cell within a
// relative error of 1e-10, and the result equal to the reference's count.
// Defaults: --blocks 50 (BOTS's) and --block-size 80, about 0.8 s
// sequentially on a 2-core development machine (11,675 tasks).
#include <optional>
#include <stdexcept>

#include "common/app_registry.hpp"
#include "sparselu/sparselu.hpp"

namespace heist::apps::sparselu {
std::vector<TaskIo> sparselu_task_io();
namespace {

constexpr double kMaxRelativeError = 1e-10;

class SparseLuApp final : public App {
 public:
  std::string name() const override { return "sparselu"; }
  std::string summary() const override {
    return "BOTS sparse LU, n x n blocks of b x b; fwd/bdiv, fence, bmod per step (HotSLAW Table 1)";
  }
  void add_options(AppOptions& cmd) override {
    cmd.add("--blocks", n_, "blocks per row and column (n)");
    cmd.add("--block-size", b_, "block size (b x b doubles)");
  }
  void check() const override {
    if (n_ < 1 || n_ > 1000) throw std::invalid_argument("sparselu: --blocks must be in [1, 1000]");
    if (b_ < 1 || b_ > 2048) throw std::invalid_argument("sparselu: --block-size must be in [1, 2048]");
    ensure_reference();
  }
  nlohmann::json params() const override { return {{"blocks", n_}, {"block_size", b_}}; }
  RunOutput run_sequential() override {
    reset();
    return output(sparselu_sequential(matrix_));
  }
  RunOutput run_parallel() override {
    reset();
    return output(sparselu_heist(matrix_));
  }
  std::vector<TaskIo> task_io() const override { return sparselu_task_io(); }
  bool verify(const RunOutput& out) override {
    ensure_reference();
    if (!out.result.is_number_integer()) return false;
    const Comparison c = compare(matrix_, reference_->factorised);
    return c.same_pattern && c.max_relative_error <= kMaxRelativeError &&
           out.result.get<std::uint64_t>() == non_null_blocks(reference_->factorised);
  }

 private:
  struct Reference {
    int n, b;
    Matrix initial;     // genmat(n, b)
    Matrix factorised;  // sparselu_sequential on a copy of it
  };

  void ensure_reference() const {
    if (reference_ && reference_->n == n_ && reference_->b == b_) return;
    reference_.reset();
    Matrix initial = genmat(n_, b_);
    Matrix factorised = clone(initial);
    sparselu_sequential(factorised);
    reference_.emplace(Reference{n_, b_, std::move(initial), std::move(factorised)});
  }
  void reset() {
    ensure_reference();
    matrix_ = clone(reference_->initial);
  }
  RunOutput output(const Calls& calls) const {
    const Comparison c = compare(matrix_, reference_->factorised);
    nlohmann::json extra = {{"max_relative_error", c.max_relative_error},
                            {"same_pattern", c.same_pattern},
                            {"fill_ins", calls.fill_ins},
                            {"tasks", calls.tasks()},
                            {"fwd", calls.fwd},
                            {"bdiv", calls.bdiv},
                            {"bmod", calls.bmod}};
    return {static_cast<std::uint64_t>(non_null_blocks(matrix_)), std::move(extra)};
  }

  int n_ = 50;
  int b_ = 80;
  mutable std::optional<Reference> reference_;
  Matrix matrix_;  // of the last run
};

}  // namespace

std::unique_ptr<App> make_sparselu_app() { return std::make_unique<SparseLuApp>(); }

}  // namespace heist::apps::sparselu
