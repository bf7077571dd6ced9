// `heist bench matmul`: independent matrix-multiplication tasks (PGAS-WS
// §5: --size 150, --tasks 2400, all created by the root). The result is the
// sum of the tasks' checksums; verify() checks every task's checksum, bit
// for bit, against the sequential computation (computed once and kept).
#include <optional>
#include <stdexcept>

#include "common/app_registry.hpp"
#include "matmul/matmul.hpp"

namespace heist::apps::matmul {
std::vector<TaskIo> matmul_task_io();
namespace {

class MatmulApp final : public App {
 public:
  std::string name() const override { return "matmul"; }
  std::string summary() const override { return "independent matrix-multiplication tasks, all spawned by the root (PGAS-WS §5)"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--size", size_, "matrix size (size x size doubles)");
    cmd.add("--tasks", tasks_, "multiplication tasks");
  }
  void check() const override {
    if (size_ < 1 || size_ > 4096) throw std::invalid_argument("matmul: --size must be in [1, 4096]");
    if (tasks_ < 0 || tasks_ > 100000000) throw std::invalid_argument("matmul: --tasks must be in [0, 1e8]");
  }
  nlohmann::json params() const override { return {{"size", size_}, {"tasks", tasks_}}; }
  RunOutput run_sequential() override {
    matmul_sequential(size_, static_cast<std::uint32_t>(tasks_), checksums_);
    return {sum(checksums_)};
  }
  RunOutput run_parallel() override {
    matmul_heist(size_, static_cast<std::uint32_t>(tasks_), checksums_);
    return {sum(checksums_)};
  }
  std::vector<TaskIo> task_io() const override { return matmul_task_io(); }
  bool verify(const RunOutput& out) override {
    if (!reference_ || reference_key_ != std::make_pair(size_, tasks_)) {
      reference_.emplace();
      matmul_sequential(size_, static_cast<std::uint32_t>(tasks_), *reference_);
      reference_key_ = {size_, tasks_};
    }
    return checksums_ == *reference_ && out.result.get<double>() == sum(*reference_);
  }

 private:
  static double sum(const std::vector<double>& values) {
    double total = 0.0;
    for (double v : values) total += v;
    return total;
  }

  int size_ = 150;
  int tasks_ = 2400;
  std::vector<double> checksums_;  // of the last run
  std::optional<std::vector<double>> reference_;
  std::pair<int, int> reference_key_{};
};

}  // namespace

std::unique_ptr<App> make_matmul_app() { return std::make_unique<MatmulApp>(); }

}  // namespace heist::apps::matmul
