// `heist bench sor`: Java Grande SOR, red-black, loop parallelism with one
// finish per colour per iteration (HelpFirst Figure 6). Every run starts from
// the same initial grid (a copy, part of the timed run in both versions);
// verify() compares the last run's grid and checksum, bit for bit, with
// the sequential version's.
#include <optional>
#include <stdexcept>

#include <heist/heist.hpp>

#include "common/app_registry.hpp"
#include "sor/sor.hpp"

namespace heist::apps::sor {
std::vector<TaskIo> sor_task_io();
namespace {

class SorApp final : public App {
 public:
  std::string name() const override { return "sor"; }
  std::string summary() const override { return "Java Grande SOR, red-black, a finish over P chunks (HelpFirst Fig. 6)"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--n", n_, "grid size (n x n)");
    cmd.add("--iterations", iterations_, "red-black sweeps");
    cmd.add("--chunks", chunks_, "chunk tasks per colour and iteration (P); 0: 4 x workers");
    cmd.add("--omega", omega_, "relaxation factor");
    cmd.add("--grid-seed", seed_, "seed of the initial grid");
  }
  void check() const override {
    if (n_ < 3 || n_ > 40000) throw std::invalid_argument("sor: --n must be in [3, 40000]");
    if (iterations_ < 0) throw std::invalid_argument("sor: --iterations must be >= 0");
    if (chunks_ < 0) throw std::invalid_argument("sor: --chunks must be >= 0");
    if (!(omega_ > 0.0 && omega_ < 2.0)) throw std::invalid_argument("sor: --omega must be in (0, 2)");
    ensure_initial();
  }
  nlohmann::json params() const override {
    return {{"n", n_}, {"iterations", iterations_}, {"chunks", chunks_}, {"omega", omega_}, {"grid_seed", seed_}};
  }
  RunOutput run_sequential() override {
    reset();
    sor_sequential(grid_, omega_, iterations_);
    return {checksum(grid_)};
  }
  RunOutput run_parallel() override {
    reset();
    const int chunks = chunks_ > 0 ? chunks_ : 4 * heist::num_workers();
    sor_heist(grid_, omega_, iterations_, chunks);
    return {checksum(grid_), {{"chunks", chunks}}};
  }
  std::vector<TaskIo> task_io() const override { return sor_task_io(); }
  bool verify(const RunOutput& out) override {
    if (!reference_ || reference_key_ != key()) {
      reference_ = *initial_;
      sor_sequential(*reference_, omega_, iterations_);
      reference_key_ = key();
    }
    return grid_.n == n_ && grid_.cells == reference_->cells &&
           out.result.get<double>() == checksum(*reference_);
  }

 private:
  struct Key {
    int n;
    int iterations;
    double omega;
    std::uint64_t seed;
    bool operator==(const Key&) const = default;
  };
  Key key() const { return {n_, iterations_, omega_, seed_}; }

  void ensure_initial() const {
    if (!initial_ || initial_->n != n_ || initial_seed_ != seed_) {
      initial_ = make_grid(n_, seed_);
      initial_seed_ = seed_;
    }
  }
  void reset() {
    ensure_initial();
    grid_.n = initial_->n;
    grid_.cells.assign(initial_->cells.begin(), initial_->cells.end());
  }

  int n_ = 2000;
  int iterations_ = 10;
  int chunks_ = 64;
  double omega_ = 1.25;
  std::uint64_t seed_ = 1;
  mutable std::optional<Grid> initial_;
  mutable std::uint64_t initial_seed_ = 0;
  Grid grid_;
  std::optional<Grid> reference_;
  Key reference_key_{};
};

}  // namespace

std::unique_ptr<App> make_sor_app() { return std::make_unique<SorApp>(); }

}  // namespace heist::apps::sor
