#pragma once

#include <cstdint>

namespace heist::peers {

// Naive doubly recursive Fibonacci: the work every fib variant performs.
constexpr std::uint64_t fib_seq(int n) {
  return n < 2 ? static_cast<std::uint64_t>(n) : fib_seq(n - 1) + fib_seq(n - 2);
}

// Linear-time Fibonacci used to verify results.
constexpr std::uint64_t fib_iterative(int n) {
  std::uint64_t current = 0;
  std::uint64_t next = 1;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t sum = current + next;
    current = next;
    next = sum;
  }
  return current;
}

static_assert(fib_iterative(30) == 832040);
static_assert(fib_iterative(92) == 7540113804746346429ULL);

}  // namespace heist::peers
