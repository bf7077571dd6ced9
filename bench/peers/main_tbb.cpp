#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <array>
#include <cstddef>

#include "peer_driver.hpp"
#include "tbb_kernels.hpp"

namespace {

using heist::peers::KernelEntry;

constexpr std::array kernels{
    KernelEntry{"fib", [](const heist::peers::Problem& p) { return heist::peers::fib_tbb(p.n, p.cutoff); }},
    KernelEntry{"nqueens", [](const heist::peers::Problem& p) { return heist::peers::nqueens_tbb(p.n, p.cutoff); }},
    KernelEntry{"uts", heist::peers::uts_tbb},
    KernelEntry{"sparselu", heist::peers::sparselu_tbb},
};

void with_tbb_workers(int workers, const std::function<void()>& body) {
  const tbb::global_control limit(tbb::global_control::max_allowed_parallelism,
                                  static_cast<std::size_t>(workers));
  tbb::task_arena arena(workers);
  arena.execute(body);
}

}  // namespace

int main(int argc, char** argv) {
  return heist::peers::run_peer(argc, argv, {"tbb", kernels, with_tbb_workers});
}
