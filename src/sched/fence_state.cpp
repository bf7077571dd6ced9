#include "sched/fence_state.hpp"

#include "sched/task_failure.hpp"

namespace heist::sched {

FenceState::FenceState(detail::FinishScope& first_generation, int owner) : owner_(owner) {
  generations_.push_back(&first_generation);
}

void FenceState::advance() noexcept {
  while (first_open_ + 1 < generations_.size() && generations_[first_open_]->drained_for_owner())
    ++first_open_;
}

void FenceState::fence() {
  advance();
  if (first_open_ + 1 == generations_.size() && held_.empty() && current()->drained_for_owner())
    return;  // everything spawned before has completed: nothing to order
  detail::FinishScope& next = storage_.emplace_back();
  next.owner = owner_;
  generations_.push_back(&next);
}

bool FenceState::must_hold() noexcept {
  advance();
  return first_open_ + 1 < generations_.size();
}

void FenceState::hold(const std::byte* slot, std::size_t bytes) {
  held_.push_back(Held{generations_.size() - 1, std::vector<std::byte>(slot, slot + bytes)});
}

void FenceState::hold(DependentTask* task) { held_.push_back(Held{generations_.size() - 1, {}, task}); }

bool FenceState::drained() noexcept {
  advance();
  if (!held_.empty()) return false;
  for (std::size_t g = first_open_; g < generations_.size(); ++g)
    if (!generations_[g]->drained_for_owner()) return false;
  return true;
}

std::exception_ptr FenceState::take_failure() noexcept {
  std::exception_ptr first;
  for (detail::FinishScope* g : generations_) {
    std::exception_ptr e = sched::take_failure(*g);
    if (!first) first = std::move(e);
  }
  return first;
}

}  // namespace heist::sched
