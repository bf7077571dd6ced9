#include <tbb/task_group.h>

#include "fib_kernels.hpp"
#include "tbb_kernels.hpp"

namespace heist::peers {

std::uint64_t fib_tbb(int n, int cutoff) {
  if (n < cutoff) {
    return fib_sequential(n);
  }
  if (n < 2) {
    return static_cast<std::uint64_t>(n);
  }
  std::uint64_t first = 0;
  tbb::task_group group;
  group.run([&first, n, cutoff] { first = fib_tbb(n - 1, cutoff); });
  const std::uint64_t second = fib_tbb(n - 2, cutoff);
  group.wait();
  return first + second;
}

}  // namespace heist::peers
