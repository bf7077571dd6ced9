// async_any lambdas with internal linkage in two translation units
// (async_any_tu_a.cpp, async_any_tu_b.cpp): their closure types share a
// typeid name, yet each is registered as its own task and runs its own body.
#include <gtest/gtest.h>

#include "heist/heist.hpp"
#include "heist_test.hpp"

int async_any_tu_a(int n);
int async_any_tu_b(int n);

namespace {

class AsyncAnyTus : public ::testing::TestWithParam<heist_test::WorkersPolicy> {};

TEST_P(AsyncAnyTus, SameTypeNameInTwoTranslationUnits) {
  heist::Runtime rt(heist_test::options(std::get<0>(GetParam()), std::get<1>(GetParam())));
  EXPECT_EQ(async_any_tu_a(100), 5050);
  EXPECT_EQ(async_any_tu_b(200), 20100);
  EXPECT_EQ(async_any_tu_a(10), 55);
}

INSTANTIATE_TEST_SUITE_P(Policies, AsyncAnyTus,
                         ::testing::Combine(::testing::Values(1, 2), ::testing::ValuesIn(heist_test::kStackPolicies)), heist_test::WorkersPolicyName());
INSTANTIATE_TEST_SUITE_P(Continuations, AsyncAnyTus, ::testing::ValuesIn(heist_test::kContinuationRuns), heist_test::WorkersPolicyName());

}  // namespace
