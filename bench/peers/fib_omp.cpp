#include "fib_kernels.hpp"
#include "omp_kernels.hpp"

namespace heist::peers {

std::uint64_t fib_omp(int n, int cutoff) {
  if (n < cutoff) {
    return fib_sequential(n);
  }
  if (n < 2) {
    return static_cast<std::uint64_t>(n);
  }
  std::uint64_t first = 0;
#pragma omp task default(none) shared(first) firstprivate(n, cutoff)
  first = fib_omp(n - 1, cutoff);
  const std::uint64_t second = fib_omp(n - 2, cutoff);
#pragma omp taskwait
  return first + second;
}

}  // namespace heist::peers
