#include <omp.h>

#include <array>

#include "omp_kernels.hpp"
#include "peer_driver.hpp"

namespace {

using heist::peers::KernelEntry;

constexpr std::array kernels{
    KernelEntry{"fib", [](const heist::peers::Problem& p) { return heist::peers::fib_omp(p.n, p.cutoff); }},
    KernelEntry{"nqueens", [](const heist::peers::Problem& p) { return heist::peers::nqueens_omp(p.n, p.cutoff); }},
    KernelEntry{"uts", heist::peers::uts_omp},
    KernelEntry{"sparselu", heist::peers::sparselu_omp},
};

// One thread runs the body; the rest of the team executes the tasks it creates.
void with_omp_workers(int workers, const std::function<void()>& body) {
  omp_set_dynamic(0);
  omp_set_num_threads(workers);
#pragma omp parallel default(none) shared(body)
#pragma omp single
  body();
}

}  // namespace

int main(int argc, char** argv) {
  return heist::peers::run_peer(argc, argv, {"omp", kernels, with_omp_workers});
}
