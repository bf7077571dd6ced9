// The checked mode of the Context rule (HEIST_CHECK_CONTEXT, set for this
// test whatever the build type): inside a task body that takes a
// heist::Context every runtime call goes through that Context; a plain call
// there, and a call given a Context outside the body that received it,
// throw std::logic_error naming the call. Calls that keep the rule never
// throw, under every spawn policy (fibers and stolen continuations
// included) with 1 and 2 workers, and their results are right.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <string>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

static_assert(HEIST_CHECK_CONTEXT, "this test builds with the checked mode");

namespace {

using heist::Context;
using heist::SpawnPolicy;

// What a broken call threw, if it threw std::logic_error; "" if nothing.
template <class F>
std::string thrown_by(F&& f) {
  try {
    f();
  } catch (const std::logic_error& e) {
    return e.what();
  }
  return "";
}

// ---------------------------------------------------------------- calls that keep the rule

long fib_body(Context c, int n);
const auto fib_task = heist::register_task<fib_body>("test_context_checked.fib");
long plain_fib(int n);
const auto plain_fib_task = heist::register_task<plain_fib>("test_context_checked.plain_fib");

long fib_body(Context c, int n) {
  if (n < 2) return n;
  long a = -1, b = -1, d = -1;
  heist::spawn(c, fib_task, n - 1, &a);
  heist::finish(c, [&] { heist::spawn(c, fib_task, n - 2, &b); });
  if (n == 12) heist::spawn(c, plain_fib_task, 5, &d);  // a plain body below a Context body
  heist::wait(c);
  if (n == 12 && d != 5) return -1000000;
  return a + b;
}

// A plain body makes plain calls, also below a Context body; a Context
// body below it gets its own Context.
long plain_fib(int n) {
  if (n < 2) return n;
  long a = -1, b = -1;
  heist::spawn(plain_fib_task, n - 1, &a);
  heist::spawn(fib_task, n - 2, &b);
  heist::wait();
  return a + b;
}

class ContextChecked : public ::testing::TestWithParam<std::tuple<SpawnPolicy, int>> {};

TEST_P(ContextChecked, CallsThatKeepTheRuleDoNotThrow) {
  heist::Options o;
  o.policy = std::get<0>(GetParam());
  o.workers = std::get<1>(GetParam());
  heist::Runtime rt(o);
  long ctx_result = -1, plain_result = -1;
  rt.root([&] {
    heist::spawn(fib_task, 18, &ctx_result);
    heist::spawn(plain_fib_task, 16, &plain_result);
    heist::wait();
  });
  EXPECT_EQ(ctx_result, heist_test::fib_iterative(18));
  EXPECT_EQ(plain_result, heist_test::fib_iterative(16));
}

INSTANTIATE_TEST_SUITE_P(Policies, ContextChecked,
                         ::testing::Combine(::testing::Values(SpawnPolicy::help_first, SpawnPolicy::inline_child,
                                                             SpawnPolicy::bounded, SpawnPolicy::slaw,
                                                             SpawnPolicy::work_first, SpawnPolicy::adaptive),
                                            ::testing::Values(1, 2)));

// ---------------------------------------------------------------- plain calls inside a Context body

std::vector<std::string> g_messages;  // what each broken call threw, in the body's order (one body at a time)

void leaf(int) {}
const auto leaf_task = heist::register_task<leaf>("test_context_checked.leaf");

void breaks_plain(Context c, int) {
  g_messages.push_back(thrown_by([] { heist::wait(); }));
  g_messages.push_back(thrown_by([] { heist::spawn(leaf_task, 1); }));
  g_messages.push_back(thrown_by([] { heist::async(leaf_task, 1); }));
  g_messages.push_back(thrown_by([] { heist::async([] {}); }));
  g_messages.push_back(thrown_by([] { heist::finish([] {}); }));
  g_messages.push_back(thrown_by([] { heist::fence(); }));
  g_messages.push_back(thrown_by([] { (void)heist::spawn_handle(leaf_task, 1); }));
  // Inside finish(ctx, f) f is still the body: its plain calls break the rule too.
  heist::finish(c, [&] { g_messages.push_back(thrown_by([] { heist::async(leaf_task, 2); })); });
  heist::wait(c);
}
const auto breaks_plain_task = heist::register_task<breaks_plain>("test_context_checked.breaks_plain");

TEST(ContextCheckedRule, PlainCallInsideAContextBodyThrowsNamingTheCall) {
  for (const SpawnPolicy policy : {SpawnPolicy::help_first, SpawnPolicy::bounded, SpawnPolicy::work_first}) {
    heist::Options o;
    o.policy = policy;
    o.workers = 1;
    heist::Runtime rt(o);
    g_messages.clear();
    rt.root([] { heist::spawn(breaks_plain_task, 0); });
    const std::vector<std::string> calls = {"heist::wait()", "heist::spawn", "heist::async", "heist::async",
                                            "heist::finish", "heist::fence()", "heist::spawn_handle",
                                            "heist::async"};
    ASSERT_EQ(g_messages.size(), calls.size()) << heist::to_string(policy);
    for (std::size_t i = 0; i < calls.size(); ++i) {
      EXPECT_EQ(g_messages[i].rfind(calls[i] + ": a plain call inside a task body that takes a heist::Context", 0), 0u)
          << heist::to_string(policy) << " call " << i << ": '" << g_messages[i] << "'";
    }
  }
}

// ---------------------------------------------------------------- a Context outside its body

Context g_kept = heist::detail::ContextAccess::at(nullptr, 0);

void keeps_its_context(Context c, int) {
  g_kept = c;
  // A closure is a task of its own, without a Context: the body's is not its.
  heist::finish(c, [c] { heist::async(c, [c] { g_messages.push_back(thrown_by([c] { heist::wait(c); })); }); });
  heist::wait(c);
}
const auto keeps_task = heist::register_task<keeps_its_context>("test_context_checked.keeps");

TEST(ContextCheckedRule, ContextOutsideItsBodyThrowsNamingTheCall) {
  heist::Options o;
  o.workers = 1;
  heist::Runtime rt(o);
  g_messages.clear();
  rt.root([] {
    heist::spawn(keeps_task, 0);
    heist::wait();
    // After the body returned: its Context belongs to nobody.
    g_messages.push_back(thrown_by([] { heist::spawn(g_kept, leaf_task, 1); }));
    g_messages.push_back(thrown_by([] { heist::finish(g_kept, [] {}); }));
  });
  const std::vector<std::string> calls = {"heist::wait(ctx)", "heist::spawn(ctx, ...)", "heist::finish(ctx, ...)"};
  ASSERT_EQ(g_messages.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i)
    EXPECT_EQ(g_messages[i].rfind(calls[i] + ": given a heist::Context outside the body that received it", 0), 0u)
        << "call " << i << ": '" << g_messages[i] << "'";
}

}  // namespace
