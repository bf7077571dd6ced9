#include "policy/spawn_driver.hpp"

#include <algorithm>

namespace heist::policy {

SpawnDriver::SpawnDriver(const Options& o, int process_workers, int processes) noexcept
    : decider_(o, process_workers, processes), period_ns_(static_cast<double>(o.poll_period_us) * 1000.0) {}

std::int64_t SpawnDriver::paced(std::int64_t wanted, std::int64_t soft_cap, std::uint64_t inlined,
                                double now_ns) noexcept {
  const double since = now_ns - last_grant_ns_;
  const double ran = static_cast<double>(inlined - inlined_at_grant_);
  last_grant_ns_ = now_ns;
  inlined_at_grant_ = inlined;
  // Slow paths further apart than the period: one spawn alone outlasts it,
  // so a single credit would already skip the poll that is due by then (a
  // long task inlined through the fast path runs with nobody polling); the
  // pace falls to 0 and every spawn takes the slow path. Closer than half
  // the period: it grows again (0 to 1, then doubling). Past soft_cap it
  // grows only while the inline spawns since the last grant came so fast
  // that the pace's worth of them takes under an eighth of the period (a
  // grant cut short, by a pop or a thief, also counts only what ran).
  const bool grow = pace_ < soft_cap ? since < period_ns_ / 2
                                     : since * static_cast<double>(pace_) * 8 < period_ns_ * ran;
  if (since > period_ns_) pace_ /= 2;
  else if (grow && pace_ < wanted) pace_ = std::max<std::int64_t>(1, pace_ * 2);
  return std::min(wanted, pace_);
}

void SpawnDriver::record(SpawnPolicy kind, SpawnFacts facts, bool paced_run, double now_ns, SpawnStep step) {
  log_->entries.emplace_back(SpawnRecord{kind, facts, paced_run, now_ns, step.action, step.credits, step.release, step.reroot,
                                          step.publish_one});
}

}  // namespace heist::policy
