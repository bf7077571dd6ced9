// A task that overflows its worker's stack is reported before the process
// dies: "stack overflow" with the worker and the option that raises the
// bound (platform/stack_guard.hpp). Death tests: each case runs in a child
// process (threadsafe style: re-executed, so the parent's threads do not matter).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <atomic>
#include <cstdint>

#include <heist/heist.hpp>

namespace {

// Recursion the compiler can neither turn into a loop nor shrink: each frame
// keeps a 1 KiB buffer live across the call.
[[gnu::noinline]] std::uint64_t deep(std::uint64_t n) {
  if (n == UINT64_MAX) return 0;  // never: the stack ends first
  volatile char frame[1024];
  frame[n % sizeof frame] = static_cast<char>(n);
  const std::uint64_t below = deep(n + 1);
  return below + static_cast<std::uint64_t>(frame[(n * 7) % sizeof frame]);
}

std::atomic<bool> g_on_worker_1{false};
void recurse_on_worker_1(const int&) {
  if (heist::worker_id() != 1) return;
  g_on_worker_1.store(true);
  volatile std::uint64_t sink = deep(0);
  (void)sink;
}
const auto recurse_task = heist::register_task<recurse_on_worker_1>("test_stack_overflow.recurse");

// Any death: by the signal (no sanitizer), or the exit status a sanitizer's
// own stack-overflow report ends with (it runs after heist's message).
bool died(int status) { return WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) != 0); }

void overflow_a_worker_thread() {
  heist::Options o;
  o.workers = 2;
  o.policy = heist::SpawnPolicy::help_first;
  o.worker_stack_bytes = std::size_t{256} << 10;
  heist::Runtime rt(o);
  // Worker 0 keeps offering tasks until worker 1 has stolen one and recursed.
  heist::finish([] {
    while (!g_on_worker_1.load()) heist::async(recurse_task, 0);
  });
}

void overflow_worker_0() {
  heist::Options o;
  o.workers = 1;
  heist::Runtime rt(o);
  heist::finish([] {
    heist::async([] {
      volatile std::uint64_t sink = deep(0);
      (void)sink;
    });
  });
}

TEST(StackOverflowDeathTest, WorkerThreadNamesItsStackOption) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_a_worker_thread(), died,
              "heist: rank 0 worker 1: stack overflow: its [0-9]+-byte stack is exhausted.*--stack-bytes");
}

TEST(StackOverflowDeathTest, WorkerZeroNamesTheCreatingThreadsStack) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(overflow_worker_0(), died, "heist: rank 0 worker 0: stack overflow.*ulimit -s");
}

}  // namespace
