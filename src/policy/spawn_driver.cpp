#include "policy/spawn_driver.hpp"

#include <algorithm>

namespace heist::policy {

SpawnDriver::SpawnDriver(const Options& o, int process_workers, int processes) noexcept
    : decider_(o, process_workers, processes), period_ns_(static_cast<double>(o.poll_period_us) * 1000.0) {}

std::int64_t SpawnDriver::paced(std::int64_t wanted, double now_ns, bool timed) noexcept {
  if (!timed) return std::min(wanted, pace_);  // between clock reads: the pace stands
  const double since = now_ns - last_grant_ns_;
  const double spacing = since / static_cast<double>(std::max<std::int64_t>(1, slow_paths_));
  last_grant_ns_ = now_ns;
  slow_paths_ = 0;
  // Slow paths further apart than the period: one spawn alone outlasts it,
  // so a single credit would already skip the poll that is due by then (a
  // long task inlined through the fast path runs with nobody polling); the
  // pace falls to 0 and every spawn takes the slow path. Closer than half
  // the period: it grows again (0 to 1, then doubling).
  if (since > period_ns_) pace_ /= 2;
  else if (since < period_ns_ / 2 && pace_ < wanted) pace_ = std::max<std::int64_t>(1, pace_ * 2);
  const std::int64_t credits = std::min(wanted, pace_);
  // Slow paths `spacing` apart: the next ones skip the clock for about a
  // quarter of the period (none once they come a quarter period apart), and
  // for at most kMaxUnclockedSpawns spawns, since the spacing is the past's:
  // a loop that turns from 4 ns spawns to 6 ms ones is heard that late.
  const double by_time = period_ns_ / 4 / std::max(spacing, 1.0) - 1;
  const auto by_spawns = static_cast<double>(kMaxUnclockedSpawns / std::max<std::int64_t>(1, credits) - 1);
  clock_skips_ = static_cast<int>(std::clamp(std::min(by_time, by_spawns), 0.0, double{kMaxClockSkips}));
  return credits;
}

void SpawnDriver::record(SpawnPolicy kind, SpawnFacts facts, bool paced_run, double now_ns, bool timed,
                         SpawnStep step) {
  log_->entries.emplace_back(SpawnRecord{kind, facts, paced_run, now_ns, timed, step.action, step.credits, step.release,
                                          step.reroot, step.publish_one});
}

}  // namespace heist::policy
