// `heist bench nqueens`: options, versions and verification of nqueens.
#include <stdexcept>

#include "common/app_registry.hpp"
#include "nqueens/nqueens.hpp"

namespace heist::apps::nqueens {
std::vector<TaskIo> nqueens_task_io();
namespace {

class NQueensApp final : public App {
 public:
  std::string name() const override { return "nqueens"; }
  std::string summary() const override { return "count N-Queens solutions, one task per placement"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--n", n_, "board size");
    cmd.add("--cutoff", cutoff_, "rows >= cutoff are counted sequentially; 0: no manual cutoff");
    cmd.add("--seed-depth", seed_depth_, "--mode pool: rows placed when seeding; each placement is one task");
    cmd.add("--seed-ranks", seed_ranks_, "--mode pool: which ranks seed: 0 (rank 0 only) or all")
        .one_of({"0", "all"});
  }
  void check() const override {
    if (n_ < 1 || n_ > 20) throw std::invalid_argument("nqueens: --n must be in [1, 20]");
    if (cutoff_ < 0) throw std::invalid_argument("nqueens: --cutoff must be >= 0");
    if (seed_depth_ < 0 || seed_depth_ > n_) throw std::invalid_argument("nqueens: --seed-depth must be in [0, n]");
  }
  nlohmann::json params() const override {
    return {{"n", n_}, {"cutoff", cutoff_}, {"seed_depth", seed_depth_}, {"seed_ranks", seed_ranks_}};
  }
  RunOutput run_sequential() override { return {count_sequential(empty_board(static_cast<std::uint32_t>(n_)))}; }
  RunOutput run_parallel() override { return {count_heist(n_, cutoff_)}; }
  std::optional<RunOutput> run_pool(heist::Runtime& runtime) override {
    return RunOutput{count_heist_pool(runtime, n_, cutoff_, seed_depth_, seed_ranks_ == "all")};
  }
  std::vector<TaskIo> task_io() const override { return nqueens_task_io(); }
  bool verify(const RunOutput& out) override {
    const std::uint64_t got = out.result.get<std::uint64_t>();
    if (auto expected = reference_solutions(n_)) return got == *expected;
    if (!sequential_) sequential_ = count_sequential(empty_board(static_cast<std::uint32_t>(n_)));
    return got == *sequential_;
  }

 private:
  int n_ = 13;
  int cutoff_ = 0;
  int seed_depth_ = 3;
  std::string seed_ranks_ = "0";
  std::optional<std::uint64_t> sequential_;
};

}  // namespace

std::unique_ptr<App> make_nqueens_app() { return std::make_unique<NQueensApp>(); }

}  // namespace heist::apps::nqueens
