// platform::Context / switch_to: messages go both ways, a fiber suspended on
// one thread resumes on another (and sees that thread), a fiber given up in
// the middle of its frames can be started afresh on the same stack, and a
// stack is reused many times.
#include <gtest/gtest.h>

#include <pthread.h>

#include <atomic>
#include <cstdint>
#include <thread>

#include "platform/fiber.hpp"

namespace {

using heist::platform::Context;
using heist::platform::FiberStack;

// ---------------------------------------------------------------- ping-pong

struct PingPong {
  Context native;
  Context fiber;
  long rounds = 0;
};

PingPong* g_pp = nullptr;

void ping_entry(void* message) {
  // Echo every number back, doubled, until 0 arrives; then give up for good.
  auto value = reinterpret_cast<std::intptr_t>(message);
  while (value != 0) {
    ++g_pp->rounds;
    value = reinterpret_cast<std::intptr_t>(
        heist::platform::switch_to(g_pp->fiber, g_pp->native, reinterpret_cast<void*>(value * 2)));
  }
  heist::platform::switch_to(g_pp->fiber, g_pp->native, nullptr, true);
}

TEST(Fiber, MessagesGoBothWays) {
  PingPong pp;
  g_pp = &pp;
  FiberStack stack(64 << 10);
  heist::platform::adopt_native(pp.native);
  EXPECT_NE(pp.native.stack_size, 0u);
  heist::platform::prepare(pp.fiber, stack, &ping_entry);
  for (std::intptr_t i = 1; i <= 1000; ++i) {
    void* back = heist::platform::switch_to(pp.native, pp.fiber, reinterpret_cast<void*>(i));
    EXPECT_EQ(reinterpret_cast<std::intptr_t>(back), 2 * i);
  }
  EXPECT_EQ(heist::platform::switch_to(pp.native, pp.fiber, nullptr), nullptr);
  EXPECT_EQ(pp.rounds, 1000);
  heist::platform::retire(pp.fiber);
}

// ---------------------------------------------------------------- migration

struct Migration {
  Context natives[2];
  Context fiber;
  pthread_t seen[2] = {};
  std::atomic<bool> suspended{false};
};

Migration* g_mig = nullptr;

void migrating_entry(void*) {
  g_mig->seen[0] = pthread_self();
  // Back to thread A's native context; thread B resumes us.
  void* resumer = heist::platform::switch_to(g_mig->fiber, g_mig->natives[0], nullptr);
  g_mig->seen[1] = pthread_self();
  heist::platform::switch_to(g_mig->fiber, *static_cast<Context*>(resumer), nullptr, true);
}

TEST(Fiber, SuspendedOnOneThreadResumesOnAnother) {
  Migration m;
  g_mig = &m;
  FiberStack stack(64 << 10);
  heist::platform::prepare(m.fiber, stack, &migrating_entry);
  pthread_t a{}, b{};
  std::thread ta([&] {
    a = pthread_self();
    heist::platform::adopt_native(m.natives[0]);
    heist::platform::switch_to(m.natives[0], m.fiber, nullptr);
    m.suspended.store(true, std::memory_order_release);  // the fiber's registers are saved
  });
  ta.join();
  ASSERT_TRUE(m.suspended.load(std::memory_order_acquire));
  std::thread tb([&] {
    b = pthread_self();
    heist::platform::adopt_native(m.natives[1]);
    heist::platform::switch_to(m.natives[1], m.fiber, &m.natives[1]);
  });
  tb.join();
  EXPECT_TRUE(pthread_equal(m.seen[0], a));
  EXPECT_TRUE(pthread_equal(m.seen[1], b));
  heist::platform::retire(m.fiber);
}

// ---------------------------------------------------------------- restart

struct Restart {
  Context native;
  Context fiber;
  int starts = 0;
};

Restart* g_rs = nullptr;

void restart_entry(void* message) {
  ++g_rs->starts;
  // Deep-ish frames left behind when we abandon: a fresh start must not care.
  volatile char scratch[4096];
  scratch[0] = static_cast<char>(reinterpret_cast<std::intptr_t>(message));
  heist::platform::switch_to(g_rs->fiber, g_rs->native, const_cast<char*>(&scratch[0]), true);
}

TEST(Fiber, AbandonedFiberStartsAfreshOnTheSameStack) {
  Restart rs;
  g_rs = &rs;
  FiberStack stack(128 << 10);
  heist::platform::adopt_native(rs.native);
  for (int i = 1; i <= 100; ++i) {
    heist::platform::prepare(rs.fiber, stack, &restart_entry);
    void* back = heist::platform::switch_to(rs.native, rs.fiber, reinterpret_cast<void*>(std::intptr_t{i}));
    EXPECT_GE(static_cast<char*>(back), stack.low());
    EXPECT_LT(static_cast<char*>(back), stack.high());
  }
  EXPECT_EQ(rs.starts, 100);
  heist::platform::retire(rs.fiber);
}

TEST(Fiber, StackRoundsUpToPages) {
  FiberStack stack(1000);
  EXPECT_GE(stack.size(), 1000u);
  EXPECT_EQ(stack.high() - stack.low(), static_cast<std::ptrdiff_t>(stack.size()));
  stack.low()[0] = 1;  // usable from the lowest byte
  stack.high()[-1] = 1;
}

}  // namespace
