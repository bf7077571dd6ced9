// PaceClock: where it reads the time-stamp counter, its scale must agree
// with steady_clock (a wrong rate would pace polls too often or too rarely,
// which no other test would notice), and its readings must not go back.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "platform/pace_clock.hpp"

namespace {

using heist::platform::PaceClock;

TEST(PaceClock, RateIsZeroOrAPlausibleFrequency) {
  const double rate = heist::platform::counter_ns_per_tick();
  EXPECT_TRUE(rate == 0.0 || (rate > 0.01 && rate < 10.0)) << rate;
  EXPECT_EQ(rate, heist::platform::counter_ns_per_tick());  // measured once per process
}

TEST(PaceClock, CalibratedClockAgreesWithSteadyClock) {
  PaceClock clock;
  EXPECT_FALSE(clock.uses_counter());
  clock.calibrate();
  EXPECT_EQ(clock.uses_counter(), heist::platform::counter_ns_per_tick() > 0.0);
  // The same interval on both clocks, each pair of reads back to back: a
  // preemption between the two reads of a pair shifts one end by a time
  // slice, well inside 5 % of 200 ms.
  const std::int64_t pace0 = clock.now_ns(), steady0 = heist::platform::now_ns();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const std::int64_t pace1 = clock.now_ns(), steady1 = heist::platform::now_ns();
  const double ratio = static_cast<double>(pace1 - pace0) / static_cast<double>(steady1 - steady0);
  EXPECT_NEAR(ratio, 1.0, 0.05);
}

TEST(PaceClock, ReadingsDoNotGoBack) {
  PaceClock clock;
  clock.calibrate();
  std::int64_t last = clock.now_ns();
  for (int i = 0; i < 1'000'000; ++i) {
    const std::int64_t now = clock.now_ns();
    ASSERT_GE(now, last) << "read " << i;
    last = now;
  }
}

}  // namespace
