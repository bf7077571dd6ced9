// Helpers shared by the heist tests: problem-size scaling for sanitizer
// builds, the (workers, policy) parameter grid, and a thread with a large
// stack for tests whose inline recursion is deep.
//
// HEIST_TEST_SCALE (compile definition, set by tests/CMakeLists.txt: 1 in
// plain builds, larger under ASan/TSan) divides the problem sizes; the
// environment variable of the same name overrides it at run time.
#pragma once

#include <pthread.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <functional>
#include <stdexcept>
#include <string>
#include <tuple>

#include "heist/options.hpp"

#ifndef HEIST_TEST_SCALE
#define HEIST_TEST_SCALE 1
#endif

namespace heist_test {

inline std::size_t scale_divisor() {
  if (const char* env = std::getenv("HEIST_TEST_SCALE"); env != nullptr && *env != '\0') {
    const long v = std::strtol(env, nullptr, 10);
    if (v >= 1) return static_cast<std::size_t>(v);
  }
  return HEIST_TEST_SCALE;
}

// n divided by the scale divisor, never below `at_least`.
inline std::size_t scaled(std::size_t n, std::size_t at_least = 1) {
  return std::max(at_least, n / scale_divisor());
}

inline heist::Options options(int workers, heist::SpawnPolicy policy) {
  heist::Options o;
  o.workers = workers;
  o.policy = policy;
  return o;
}

inline constexpr heist::SpawnPolicy kAllPolicies[] = {
    heist::SpawnPolicy::help_first, heist::SpawnPolicy::inline_child, heist::SpawnPolicy::bounded,
    heist::SpawnPolicy::slaw,       heist::SpawnPolicy::work_first,   heist::SpawnPolicy::adaptive};

// The policies that never steal continuations (no fibers).
inline constexpr heist::SpawnPolicy kStackPolicies[] = {heist::SpawnPolicy::help_first, heist::SpawnPolicy::inline_child,
                                                        heist::SpawnPolicy::bounded, heist::SpawnPolicy::slaw};

using WorkersPolicy = std::tuple<int, heist::SpawnPolicy>;

// The API suites run every test under the stack policies for each worker
// count, and under the continuation-stealing ones for one count each (CTest
// starts a process per test: 1-4 workers for them are covered by
// test_continuations and the app tests).
inline const WorkersPolicy kContinuationRuns[] = {{3, heist::SpawnPolicy::work_first},
                                                  {2, heist::SpawnPolicy::adaptive}};

// gtest parameter name, e.g. "w2_help_first".
inline std::string param_name(int workers, heist::SpawnPolicy policy) {
  std::string name = "w";
  name.append(std::to_string(workers)).append("_").append(heist::to_string(policy));
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

// gtest's name generator for a WorkersPolicy parameter, e.g. "w2_help_first".
struct WorkersPolicyName {
  template <class Info>
  std::string operator()(const Info& info) const {
    return param_name(std::get<0>(info.param), std::get<1>(info.param));
  }
};

// fib(n) by iteration: what the task-parallel fibs of the tests must return.
inline long fib_iterative(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; ++i) {
    const long c = a + b;
    a = b;
    b = c;
  }
  return a;
}

// Runs f on a fresh thread with a `stack_bytes` stack and rethrows what it
// threw. The runtime's worker 0 is the thread that creates the Runtime, so
// a test that recurses deeply inline creates its Runtime inside f.
inline void run_on_big_stack(std::size_t stack_bytes, const std::function<void()>& f) {
  struct Call {
    const std::function<void()>* f;
    std::exception_ptr error;
  } call{&f, nullptr};
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  if (pthread_attr_setstacksize(&attr, stack_bytes) != 0) throw std::runtime_error("pthread_attr_setstacksize");
  pthread_t thread;
  const int rc = pthread_create(
      &thread, &attr,
      [](void* p) -> void* {
        auto* c = static_cast<Call*>(p);
        try {
          (*c->f)();
        } catch (...) {
          c->error = std::current_exception();
        }
        return nullptr;
      },
      &call);
  pthread_attr_destroy(&attr);
  if (rc != 0) throw std::runtime_error("pthread_create failed");
  pthread_join(thread, nullptr);
  if (call.error) std::rethrow_exception(call.error);
}

}  // namespace heist_test
