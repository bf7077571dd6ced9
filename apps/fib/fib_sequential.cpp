// The sequential fib: a translation unit of its own, so the code the
// compiler makes of it (and so the baseline heist is compared with) does not
// change with what else is compiled beside it.
#include "fib/fib.hpp"

namespace heist::apps::fib {

std::uint64_t fib_sequential(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_sequential(n - 1) + fib_sequential(n - 2);
}

}  // namespace heist::apps::fib
