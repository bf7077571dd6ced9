// fib: the naive doubly recursive Fibonacci (HotSLAW Figure 2), the classic
// measure of spawn overhead: with cutoff 0 every call is a task.
#pragma once

#include <cstdint>
#include <string>

namespace heist::apps::fib {

// Sequential recursion: the work every version performs.
std::uint64_t fib_sequential(int n);

// Linear-time reference for verification.
constexpr std::uint64_t fib_reference(int n) {
  std::uint64_t current = 0, next = 1;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t sum = current + next;
    current = next;
    next = sum;
  }
  return current;
}

// Calls n >= 2 the naive recursion makes in all: 2 fib(n+1) - 1.
constexpr std::uint64_t fib_calls(int n) { return 2 * fib_reference(n + 1) - 1; }

// The cutoff of the heist versions below: calls with n < cutoff run
// fib_sequential. A constant of the run, not part of a task's input (which
// is n alone, as in the sequential code): set it on every rank before the
// run, as FibApp::run_root does.
void set_fib_cutoff(int cutoff);

// heist version, HotSLAW style: every call with n >= cutoff spawns its two
// children as registered tasks (spawn + wait); calls below the cutoff run
// fib_sequential. The root call is a task too, so with cutoff 0 the run
// creates exactly fib_calls(n) tasks. Call inside a heist::Runtime.
std::uint64_t fib_heist(int n);

// Lace's shape (--style call): each call with n >= 2 spawns fib(n-1) as a
// task, computes fib(n-2) by a plain call on its own stack, then waits — half
// the tasks of fib_heist, and the spawn/sync pair Lace's benchmarks measure.
std::uint64_t fib_heist_calls(int n);

// The same computation with local closures (finish + async).
std::uint64_t fib_heist_closures(int n);

// --style plain, the floor of the task styles: one task whose body recurses
// by plain calls of a function with a task body's shape (input by const
// reference, output through a pointer, no return value), inline as every
// task body here is. No spawn path can be cheaper than this; the sequential
// version (values in registers) is cheaper still.
std::uint64_t fib_heist_plain(int n);

// The same three shapes with value task bodies (`std::uint64_t f(int)`,
// heist.hpp's value form): style "value" (two spawns), "value-call" (Lace's
// shape) or "value-plain" (the floor).
std::uint64_t fib_heist_values(const std::string& style, int n);

}  // namespace heist::apps::fib
