// The exception contract (docs/programming.md, "Exceptions") under every
// spawn policy and worker count: a task's exception is raised at the join
// that joins it (its spawner's wait() — or the spawn itself where the child
// ran inline —, the finish that governs an async), never further out; a
// wait() that returns normally found every child complete with its output
// written; a failed task's siblings complete; of several failures the join
// raises one and the rest are dropped. tests/stress/differential.cpp checks
// the same on random trees.
#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>

#include "heist/heist.h"
#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::SpawnPolicy;

struct ChildError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void child_body(const int& n, long* out) {
  if (n < 0) throw ChildError("child " + std::to_string(-n) + " failed");
  *out = n * 10;
}
const auto child_task = heist::register_task<child_body>("test_exceptions.child");

// A parent that waits for two children inside try/catch: 1 if it caught,
// 0 if its wait returned (both outputs then checked), -1 if an output was
// missing after a normal return.
struct ParentIn {
  int first, second;
};
void parent_body(const ParentIn& in, long* out) {
  long a = -1, b = -1;
  try {
    heist::spawn(child_task, in.first, &a);
    heist::spawn(child_task, in.second, &b);
    heist::wait();
  } catch (const ChildError&) {
    *out = 1;
    return;
  }
  *out = (a == in.first * 10 && b == in.second * 10) ? 0 : -1;
}
const auto parent_task = heist::register_task<parent_body>("test_exceptions.parent");

// Tasks that do not wait: the implicit wait at a task's end fails it with
// its child's failure. (Their children write into the spawner's output,
// which outlives them.)
void no_wait_body(const int& n, long* out) { heist::spawn(child_task, n, out); }
const auto no_wait_task = heist::register_task<no_wait_body>("test_exceptions.no_wait");
void spawner_without_wait_body(const int& n, long* out) { heist::spawn(no_wait_task, n, out); }
const auto spawner_without_wait_task = heist::register_task<spawner_without_wait_body>("test_exceptions.spawner_without_wait");

void thrower_async_body(const int& n) { throw ChildError("async " + std::to_string(n) + " failed"); }
const auto thrower_async_task = heist::register_task<thrower_async_body>("test_exceptions.thrower_async");

class Exceptions : public ::testing::TestWithParam<heist_test::WorkersPolicy> {
 protected:
  heist::Options opts() const { return heist_test::options(std::get<0>(GetParam()), std::get<1>(GetParam())); }
};

TEST_P(Exceptions, TheSpawnersWaitRaisesItsChildsException) {
  heist::Runtime rt(opts());
  const int n = 64;
  std::vector<long> out(n, -2);
  heist::finish([&] {
    for (int i = 0; i < n; ++i) {
      const ParentIn in = i % 2 == 0 ? ParentIn{i + 1, -(i + 1)} : ParentIn{i + 1, i + 2};
      heist::spawn(parent_task, in, &out[static_cast<std::size_t>(i)]);
    }
    heist::wait();
  });
  for (int i = 0; i < n; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], i % 2 == 0 ? 1 : 0) << "parent " << i;
}

TEST_P(Exceptions, ATaskWithoutWaitFailsAtItsEndAndItsSpawnersWaitRaises) {
  heist::Runtime rt(opts());
  for (int rep = 0; rep < 20; ++rep) {
    long out = -1;
    bool caught = false;
    try {
      heist::spawn(spawner_without_wait_task, -3, &out);
      heist::wait();
    } catch (const ChildError& e) {
      caught = true;
      EXPECT_STREQ(e.what(), "child 3 failed");
    }
    EXPECT_TRUE(caught) << "rep " << rep;
    EXPECT_EQ(out, -1);  // the failed task wrote nothing
    long ok = -1;
    heist::spawn(spawner_without_wait_task, 4, &ok);
    EXPECT_NO_THROW(heist::wait());  // nothing of the failure is left over
    EXPECT_EQ(ok, 40);
  }
}

TEST_P(Exceptions, ANestedFinishInsideAnAsyncRaisesItsAsyncsExceptions) {
  heist::Runtime rt(opts());
  const int n = 32;
  std::atomic<int> caught{0}, after{0};
  EXPECT_NO_THROW(heist::finish([&] {
    for (int i = 0; i < n; ++i) {
      heist::async([&, i] {
        try {
          heist::finish([&] {
            heist::async(thrower_async_task, i);
            heist::async([i] { throw ChildError("closure " + std::to_string(i) + " failed"); });
          });
        } catch (const ChildError&) {
          caught.fetch_add(1);
        }
        after.fetch_add(1);
      });
    }
  }));
  EXPECT_EQ(caught.load(), n);
  EXPECT_EQ(after.load(), n);
}

TEST_P(Exceptions, AnAsyncNeverThrowsAtItsCallAndItsSiblingsComplete) {
  heist::Runtime rt(opts());
  const int n = 200;
  std::vector<std::atomic<int>> ran(n);
  int thrown_at_call = 0;
  try {
    heist::finish([&] {
      for (int i = 0; i < n; ++i) {
        try {
          heist::async([&ran, i] {
            ran[static_cast<std::size_t>(i)].fetch_add(1);
            if (i % 50 == 7) throw ChildError("async " + std::to_string(i) + " failed");
          });
        } catch (...) {
          ++thrown_at_call;
        }
      }
    });
    ADD_FAILURE() << "the finish did not raise";
  } catch (const ChildError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(what == "async 7 failed" || what == "async 57 failed" || what == "async 107 failed" ||
                what == "async 157 failed")
        << what;  // one of them: the first recorded
  }
  EXPECT_EQ(thrown_at_call, 0);
  for (int i = 0; i < n; ++i) EXPECT_EQ(ran[static_cast<std::size_t>(i)].load(), 1) << i;
  EXPECT_NO_THROW(heist::finish([] {}));  // the dropped failures do not come back
}

TEST_P(Exceptions, QueuedSiblingsOfAFailedChildComplete) {
  heist::Runtime rt(opts());
  for (int rep = 0; rep < 10; ++rep) {
    long out[4] = {-1, -1, -1, -1};
    bool caught = false;
    try {
      // Handles are always queued: none of them raises at its spawn.
      auto h0 = heist::spawn_handle(child_task, 1, &out[0]);
      auto h1 = heist::spawn_handle(child_task, -2, &out[1]);
      auto h2 = heist::spawn_after({h1}, child_task, 3, &out[2]);  // its dependency failed: it still runs
      auto h3 = heist::spawn_handle(child_task, -4, &out[3]);
      heist::wait();
    } catch (const ChildError& e) {
      caught = true;
      const std::string what = e.what();
      EXPECT_TRUE(what == "child 2 failed" || what == "child 4 failed") << what;
    }
    EXPECT_TRUE(caught);
    EXPECT_EQ(out[0], 10);
    EXPECT_EQ(out[1], -1);
    EXPECT_EQ(out[2], 30);
    EXPECT_EQ(out[3], -1);
  }
}

TEST_P(Exceptions, AFencedGenerationsFailureIsRaisedAtTheWait) {
  heist::Runtime rt(opts());
  long a = -1, b = -1;
  bool caught = false;
  try {
    heist::spawn(child_task, -1, &a);
    heist::fence();
    heist::spawn(child_task, 2, &b);
    heist::wait();
  } catch (const ChildError&) {
    caught = true;
  }
  EXPECT_TRUE(caught);
  EXPECT_NO_THROW(heist::wait());
}

INSTANTIATE_TEST_SUITE_P(Policies, Exceptions,
                         ::testing::Combine(::testing::Values(1, 2, 4), ::testing::ValuesIn(heist_test::kAllPolicies)),
                         heist_test::WorkersPolicyName());

// ---------------------------------------------------------------- C API

extern "C" void c_api_child(void* in, void* out) {
  const int n = *static_cast<const int*>(in);
  if (n < 0) throw ChildError("C task " + std::to_string(-n) + " failed");  // a C++ function behind the C API
  *static_cast<long*>(out) = n;
}

TEST(ExceptionsCApi, WaitReturnsTheFailureWithItsMessage) {
  ASSERT_EQ(heist_taskq_set_policy("help-first"), 0);
  ASSERT_EQ(heist_taskq_set_workers(2), 0);
  heist_taskq_t* q = heist_taskq_all_alloc(1, c_api_child, sizeof(int), sizeof(long));
  ASSERT_NE(q, nullptr) << heist_last_error();
  long a = -1, b = -1;
  int ok = 5, bad = -6;
  ASSERT_EQ(heist_taskq_put(q, c_api_child, &ok, &a), 0);
  ASSERT_EQ(heist_taskq_put(q, c_api_child, &bad, &b), 0);  // help-first: queued, raised at the wait
  EXPECT_EQ(heist_taskq_wait(q), -1);
  EXPECT_STREQ(heist_last_error(), "C task 6 failed");
  EXPECT_EQ(a, 5);
  EXPECT_EQ(heist_taskq_fence(q), 0);
  ASSERT_EQ(heist_taskq_put(q, c_api_child, &ok, &b), 0);
  EXPECT_EQ(heist_taskq_wait(q), 0);
  EXPECT_EQ(b, 5);
  heist_taskq_free(q);
}

}  // namespace
