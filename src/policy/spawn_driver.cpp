#include "policy/spawn_driver.hpp"

#include <algorithm>

namespace heist::policy {

SpawnDriver::SpawnDriver(const Options& o) noexcept
    : decider_(o), period_ns_(static_cast<double>(o.poll_period_us) * 1000.0) {}

SpawnPolicy SpawnDriver::effective_kind(SpawnPolicy in_force, bool pinned_stack, bool remote_asked) noexcept {
  // A thread's own stack never migrates, so it cannot expose a continuation:
  // under continuation stealing its spawns are queued, to run on fibers.
  // Another process asked for work: continuations never leave this one, so
  // the next spawn is queued as a task that can.
  if ((pinned_stack || remote_asked) && steals_continuations(in_force)) return SpawnPolicy::help_first;
  return in_force;
}

std::int64_t SpawnDriver::paced(std::int64_t wanted, double now_ns) noexcept {
  const double since = now_ns - last_grant_ns_;
  last_grant_ns_ = now_ns;
  if (since > period_ns_) pace_ = std::max<std::int64_t>(1, pace_ / 2);
  else if (since < period_ns_ / 2 && pace_ < wanted) pace_ *= 2;
  return std::min(wanted, pace_);
}

SpawnStep SpawnDriver::decide(SpawnPolicy kind, const SpawnFacts& facts, bool paced_run, double now_ns) {
  SpawnStep step{decider_.decide(kind, facts), 0};
  if (step.action == SpawnAction::run_inline)
    step.credits = paced_run ? paced(decider_.inline_credits(), now_ns) : decider_.inline_credits();
  if (log_ != nullptr) log_->entries.emplace_back(SpawnRecord{kind, facts, paced_run, now_ns, step.action, step.credits});
  return step;
}

}  // namespace heist::policy
