#include "policy/search_driver.hpp"

#include <algorithm>
#include <utility>

namespace heist::policy {

SearchDriver::SearchDriver(const Options& o, const Topology& topology, const SearchSetup& setup)
    : topology_(&topology),
      setup_(setup),
      rng_(o.seed + static_cast<std::uint64_t>(setup.place)),
      chunk_(o.chunk),
      poll_round_(std::max(1, setup.workers_here - 1)),
      remote_max_sleep_us_(std::max(2, o.reacquire_delay_us / 2)) {
  if (topology.places() >= 2) {
    victims_ = make_victim_policy(o.victim, topology, setup.place);
    sweep_ = std::max<std::uint32_t>(1, victims_->sweep());
  }
}

SearchStep SearchDriver::next(bool remote_ok) {
  // The last victim that had tasks, once (another rank only while remote
  // steals are on); else the victim policy's step.
  const std::optional<SearchStep> again = std::exchange(retry_, std::nullopt);
  const SearchStep s =
      again && (again->kind == SearchStep::Kind::steal_here || remote_ok) ? *again : policy_step(remote_ok);
  if (log_ != nullptr) log_->entries.emplace_back(StepRecord{remote_ok, s});
  return s;
}

SearchStep SearchDriver::policy_step(bool remote_ok) {
  const VictimStep v = victims_->step(rng_, remote_ok);
  SearchStep s;
  s.choice = v.choice;
  switch (v.kind) {
    case VictimStep::Kind::request: s.kind = SearchStep::Kind::request; break;
    case VictimStep::Kind::none: s.kind = SearchStep::Kind::none; break;
    case VictimStep::Kind::steal: {
      const int local = v.choice.place - setup_.place_base;
      if (local >= 0 && local < setup_.workers_here) {
        s.kind = SearchStep::Kind::steal_here;
        s.target = local;
      } else if (remote_ok) {  // other processes take part in distributed regions only
        s.kind = SearchStep::Kind::steal_rank;
        s.target = topology_->rank_of(v.choice.place);
      }
      break;
    }
  }
  return s;
}

std::uint32_t SearchDriver::take(std::uint32_t available, Level level) const {
  const std::uint32_t k = chunk_.take(available, level);
  if (log_ != nullptr) log_->entries.emplace_back(ChunkRecord{available, level, k});
  return k;
}

void SearchDriver::on_result(const SearchStep& step, std::uint32_t taken) {
  victims_->on_result(step.choice, taken);
  if (taken > 0) failed_in_sweep_ = 0;
  // A victim that had tasks to spare likely has more (the siblings of those
  // taken): the next search tries it first, once. It wins most where a
  // steal brings one task of a binomial tree (UTS T3L), and costs an
  // attempt where victims rarely hold a second task (nqueens):
  // docs/design/search-and-backoff.md.
  if (taken > 0 && (step.kind == SearchStep::Kind::steal_here || step.kind == SearchStep::Kind::steal_rank))
    retry_ = step;
  if (log_ != nullptr) log_->entries.emplace_back(ResultRecord{step, taken});
}

bool SearchDriver::failed(bool remote_ok, bool answer_awaited) {
  bool poll = false;
  if (remote_ok && (answer_awaited || ++failures_ >= poll_round_)) {
    failures_ = 0;
    poll = true;
  }
  if (log_ != nullptr) log_->entries.emplace_back(FailureRecord{remote_ok, answer_awaited, poll});
  return poll;
}

bool SearchDriver::backs_off() {
  const bool advance = ++failed_in_sweep_ >= sweep_;
  if (advance) failed_in_sweep_ = 0;
  if (log_ != nullptr) log_->entries.emplace_back(BackoffRecord{advance});
  return advance;
}

std::optional<int> SearchDriver::next_rank(platform::Rng& rng, std::span<const std::uint32_t> advertised) {
  return victims_->next_rank(rng, advertised);
}

platform::BackoffLimits SearchDriver::backoff_limits(bool waiting, bool other_processes) const noexcept {
  platform::BackoffLimits limits = waiting ? kWaitBackoff : kIdleBackoff;
  if (other_processes) limits.max_sleep_us = std::min(limits.max_sleep_us, remote_max_sleep_us_);
  return limits;
}

}  // namespace heist::policy
