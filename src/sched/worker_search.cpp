// Dispatcher (worker_dispatch.hpp): construction, the remote poll, and
// searching: one iteration of a policy::SearchLoop (search_once) — a claim
// on another worker's deque, a steal from another rank or a request, a poll
// round, the back-off — with its statistics. The loops that call it are in
// worker_loop.hpp and continuations.cpp.
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

policy::SearchLoop Dispatcher::search_loop(bool waiting) const {
  return policy::SearchLoop(*search_, waiting, owner().remote_ != nullptr);
}

policy::SearchView Dispatcher::search_view(std::int64_t floor, bool within_depth) const noexcept {
  const Worker& w = owner();
  policy::SearchView v;
  v.within_depth = within_depth;
  v.remote = w.remote_ != nullptr;
  v.region = w.remote_region();
  v.remote_ok = v.region && policy::may_leave_process(floor, w.sched_.size());
  return v;
}

bool Dispatcher::search_once(policy::SearchLoop& loop, std::int64_t floor, bool within_depth,
                             std::int64_t& searching_since) {
  using Action = policy::SearchAction;
  Worker& w = owner();
  const std::int64_t attempt_start = platform::now_ns();
  if (searching_since == 0) searching_since = attempt_start;
  set_searching(true);
  Action a = loop.search(search_view(floor, within_depth));
  if (a == Action::steal) {
    const StealOutcome outcome = steal_step(loop.step(), floor);
    a = loop.stolen(outcome.tasks, outcome.attempted);
    if (a == Action::found) {
      const std::int64_t stolen_at = platform::now_ns();
      run_overflow();
      steal_ns_ += stolen_at - attempt_start;
      search_ns_ += attempt_start - searching_since;
      searching_since = 0;
      return true;
    }
  } else if (a == Action::request) {
    request_across();  // the answer arrives through a poll
  }
  a = loop.failed(w.remote_ != nullptr && within_depth && w.remote_->awaits_answer(w));
  if (a == Action::poll_round) {
    // Completions and deliveries (they may end the wait), release, and
    // what was offered but nobody took.
    w.remote_->poll(w);
    if (!w.joins_.reports().empty()) w.exec_.send_reports();  // the poll's completions drained some
    const std::int64_t reclaim_start = platform::now_ns();
    a = loop.polled(w.queue_.deque_.size() > 0 || w.remote_->reclaim(w) > 0);
    if (a == Action::found) {
      run_overflow();
      steal_ns_ += platform::now_ns() - reclaim_start;
      search_ns_ += reclaim_start - searching_since;
      searching_since = 0;
      return true;
    }
  }
  if (a == Action::back_off) platform::backoff_wait(loop.backoff());
  else platform::cpu_relax();
  return false;
}

std::uint32_t Dispatcher::try_steal(policy::SearchLoop& loop, std::int64_t floor) {
  const policy::SearchAction a = loop.search(search_view(floor, true));
  if (a == policy::SearchAction::request) request_across();
  if (a != policy::SearchAction::steal) return 0;
  const StealOutcome outcome = steal_step(loop.step(), floor);
  loop.stolen(outcome.tasks, outcome.attempted);
  return outcome.tasks;
}

StealOutcome Dispatcher::steal_step(const policy::SearchStep& step, std::int64_t floor) {
  Worker& w = owner();
  const policy::VictimChoice c = step.choice;
  const std::int64_t start = platform::now_ns();
  StealOutcome outcome;
  if (step.kind == policy::SearchStep::Kind::steal_here) {
    outcome.tasks = steal_local(step.target, c.level, floor);
    outcome.attempted = true;
  } else {
    outcome = w.remote_->steal(w, step.target, c.level);
    if (!outcome.attempted) return outcome;  // another worker of this process is stealing remotely
  }
  const int l = policy::index(c.level);
  LevelStealStats& at = w.stats_.levels[l];
  ++at.attempts;
  if (outcome.tasks > 0) {
    ++at.successes;
    at.tasks += outcome.tasks;
  } else {
    ++at.failures;
  }
  level_ns_[l] += platform::now_ns() - start;
  return outcome;
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
  // Timed on the pace clock, whose reading the poll needs anyway: no
  // steady_clock read of its own (docs/design/paced-grants.md).
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
  policy::SearchLoop loop = search_loop(false);
  const std::uint32_t taken = try_steal(loop);
  run_overflow();
  return taken;
}

}  // namespace heist::sched
