// Dispatcher (worker_dispatch.hpp): construction, the remote poll, and
// stealing: one step of the search driver (try_steal) — a claim on
// another worker's deque, a steal from another rank, or a request — with
// its statistics. The help loop that calls it is in worker_loop.hpp.
#include "sched/worker.hpp"

#include <algorithm>
#include <atomic>
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

std::uint32_t Dispatcher::try_steal(std::int64_t floor) {
  Worker& w = owner();
  const policy::SearchStep step = search_->next(w.remote_region() && policy::may_leave_process(floor, w.sched_.size()));
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
    taken = steal_local(step.target, c.level, floor);
  } else {
    const StealOutcome outcome = w.remote_->steal(w, step.target, c.level);
    if (!outcome.attempted) return 0;  // another worker of this process is stealing remotely
    taken = outcome.tasks;
  }
  search_->on_result(step, taken);
  const int l = policy::index(c.level);
  LevelStealStats& at = w.stats_.levels[l];
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

std::size_t Worker::siblings_public() const noexcept {
  std::size_t n = 0;
  for (int i = 0; i < sched_.size(); ++i)
    if (i != id_) n += sched_.worker(i).queue_.deque_.public_size();
  return n;
}

std::uint32_t Worker::collect_from_siblings(std::uint32_t max) {
  struct UpTo {  // the chunk: what is left to collect
    std::uint32_t left;
    std::uint32_t take(std::uint32_t available, policy::Level) const noexcept { return std::min(available, left); }
  };
  std::uint32_t got = 0;
  for (int i = 0; i < sched_.size() && got < max; ++i) {
    if (i == id_) continue;
    SplitDeque& sibling = sched_.worker(i).queue_.deque_;
    if (sibling.public_size() == 0) continue;
    got += sibling.steal_into(queue_.deque_, UpTo{max - got}, queue_.overflow_);
  }
  return got;
}

void Dispatcher::change_searching(bool searching) noexcept {
  searching_ = searching;
  owner().sched_.add_searching(searching ? 1 : -1);
}

std::uint32_t Dispatcher::steal_local(int victim, policy::Level level, std::int64_t floor) {
  Worker& w = owner();
  WorkerStats& stats = w.stats_;
  ++stats.steal_attempts;
  Worker& target = w.sched_.worker(victim);
  const std::int64_t traced_from = w.trace_ ? platform::now_ns() : 0;
  SplitDeque& victim_deque = target.queue_.deque_;
  bool refused = false;
  const std::uint32_t taken =
      victim_deque.steal_into(w.queue_.deque_, *search_, w.queue_.overflow_, level, floor, &refused);
  if (refused) ++stats.help_floor_refusals;
  // Nothing public left (we failed, or took the last): ask the victim to
  // queue more; its inline fast paths see the request (the flag, or on the
  // store-free path of a body's Context the zeroed limit:
  // WorkerCore::ask_for_work) at its next spawn, so work is ready by the
  // time a thief comes back.
  if (victim_deque.public_size() == 0 && !target.work_wanted.load(std::memory_order_relaxed)) target.ask_for_work();
  if (taken == 0) {
    ++stats.failed_steals;
    return 0;
  }
  ++stats.steals;
  stats.tasks_stolen += taken;
  if (w.trace_) [[unlikely]] w.trace_steal(traced_from, static_cast<int>(w.rank_), victim, taken);
  return taken;
}

void Dispatcher::request_across() {
  const std::int64_t start = platform::now_ns();
  const int l = policy::index(policy::Level::machine);
  if (owner().remote_->request(owner(), *search_)) ++owner().stats_.levels[l].attempts;
  level_ns_[l] += platform::now_ns() - start;
}

Dispatcher::Dispatcher(const Options& options)
    : poll_interval_(options.poll_interval), poll_countdown_(options.poll_interval) {}

void Dispatcher::poll_remote() {
  poll_countdown_ = poll_interval_;
  last_poll_ns_ = pace_clock_.now_ns();
  if (!owner().remote_->region_active()) return;
  // Timed on the pace clock, whose reading the poll needs anyway: two
  // steady_clock reads a poll were 0.3 % of a 2-rank UTS run (vDSO).
  owner().remote_->poll(owner());
  comm_ns_ += pace_clock_.now_ns() - last_poll_ns_;
  if (!owner().joins_.reports().empty()) owner().exec_.send_reports();
}

void Dispatcher::poll_between_tasks() {
  --poll_countdown_;
  const double since = static_cast<double>(pace_clock_.now_ns() - last_poll_ns_);
  if (owner().queue_.spawn_.poll_after_task(poll_countdown_, since)) poll_remote();
}

void Dispatcher::set_places(const policy::Topology& topology, int place_base) {
  const Options& options = owner().sched_.options();
  search_ = std::make_unique<policy::SearchDriver>(options, topology,
                                                   policy::SearchSetup{place_base + owner().id_, place_base, options.workers});
}

void Dispatcher::run_overflow() {
  // Tasks stolen while this worker's deque was at its maximum: run them now.
  std::byte* buffer = owner().exec_.exec_buffer(owner().help_depth_);
  while (owner().queue_.pop_overflow(buffer)) owner().exec_.execute(buffer);
}

// ---------------------------------------------------------------- C API steps

bool Dispatcher::execute_one() {
  Worker& w = owner();
  ++w.help_depth_;
  const std::byte* slot = w.queue_.deque_.pop();  // runs in place
  if (slot != nullptr) w.exec_.execute(slot);
  --w.help_depth_;
  return slot != nullptr;
}

void Dispatcher::out_of_tasks() {
  Joins& joins = owner().joins_;
  if (joins.has_open_proxies()) joins.seal_proxies();
  if (!joins.reports().empty()) owner().exec_.send_reports();
}

std::uint32_t Dispatcher::steal_once() {
  if (owner().sched_.size() == 1) return 0;
  if (owner().at_top_level()) owner().joins_.enter_region();
  out_of_tasks();
  const std::uint32_t taken = try_steal();
  run_overflow();
  return taken;
}

}  // namespace heist::sched
