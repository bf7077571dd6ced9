// Worker, stealing: one step of the search driver (try_steal) — a claim on
// another worker's deque, a steal from another rank, or a request — with
// its statistics. The help loop that calls it is in worker_loop.hpp.
#include "sched/worker.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "heist/heist.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker_loop.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

std::uint32_t Worker::try_steal() {
  const policy::SearchStep step = search_->next(remote_region());
  using Kind = policy::SearchStep::Kind;
  if (step.kind == Kind::none) return 0;
  if (step.kind == Kind::request) {
    request_across();
    return 0;  // the answer arrives through a poll
  }
  const policy::VictimChoice c = step.choice;
  const std::int64_t start = platform::now_ns();
  std::uint32_t taken = 0;
  if (step.kind == Kind::steal_here) {
    taken = steal_local(step.target, c.level);
  } else {
    const StealOutcome outcome = remote_->steal(*this, step.target, c.level);
    if (!outcome.attempted) return 0;  // another worker of this process is stealing remotely
    taken = outcome.tasks;
  }
  search_->on_result(step, taken);
  const int l = policy::index(c.level);
  LevelStealStats& at = stats_.levels[l];
  ++at.attempts;
  if (taken > 0) {
    ++at.successes;
    at.tasks += taken;
  } else {
    ++at.failures;
  }
  level_ns_[l] += platform::now_ns() - start;
  return taken;
}

std::uint32_t Worker::steal_local(int victim, policy::Level level) {
  ++stats_.steal_attempts;
  Worker& target = sched_.worker(victim);
  const std::int64_t traced_from = trace_ ? platform::now_ns() : 0;
  const std::uint32_t taken = target.deque_.steal_into(deque_, *search_, overflow_, level);
  // Nothing public left (we failed, or took the last): ask the victim to
  // queue more; its inline fast path sees the flag at its next spawn, so
  // work is ready by the time a thief comes back.
  if (target.deque_.public_size() == 0 && !target.work_wanted.load(std::memory_order_relaxed))
    target.work_wanted.store(true, std::memory_order_relaxed);
  if (taken == 0) {
    ++stats_.failed_steals;
    return 0;
  }
  ++stats_.steals;
  stats_.tasks_stolen += taken;
  if (trace_) [[unlikely]] trace_steal(traced_from, static_cast<int>(rank_), victim, taken);
  return taken;
}

void Worker::request_across() {
  const std::int64_t start = platform::now_ns();
  const int l = policy::index(policy::Level::machine);
  if (remote_->request(*this, *search_)) ++stats_.levels[l].attempts;
  level_ns_[l] += platform::now_ns() - start;
}

}  // namespace heist::sched
