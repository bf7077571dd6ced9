// What test_finish_async.cpp and test_finish_async_deep.cpp share: the
// FinishAsync fixture (workers x spawn policy), the per-id execution counters
// every test checks, and the name of a (workers, policy) instance.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <string>
#include <tuple>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace finish_async_test {

class FinishAsync : public ::testing::TestWithParam<heist_test::WorkersPolicy> {
 protected:
  int workers() const { return std::get<0>(GetParam()); }
  heist::SpawnPolicy policy() const { return std::get<1>(GetParam()); }
  heist::Options opts() const { return heist_test::options(workers(), policy()); }
};

inline std::vector<std::atomic<int>> make_counters(std::size_t n) {
  std::vector<std::atomic<int>> v(n);
  for (auto& c : v) c.store(0, std::memory_order_relaxed);
  return v;
}

inline int count_not_one(const std::vector<std::atomic<int>>& v) {
  int bad = 0;
  for (const auto& c : v) bad += c.load() != 1;
  return bad;
}

// INSTANTIATE_TEST_SUITE_P's name generator: w2_help_first.
inline std::string instance_name(const ::testing::TestParamInfo<heist_test::WorkersPolicy>& info) {
  return heist_test::WorkersPolicyName{}(info);
}

}  // namespace finish_async_test
