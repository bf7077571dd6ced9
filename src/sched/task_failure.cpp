#include "sched/task_failure.hpp"

#include <string_view>

namespace heist::detail {

void drop_failure(std::atomic<TaskFailure*>& failure) noexcept {
  delete failure.exchange(nullptr, std::memory_order_acquire);
}

}  // namespace heist::detail

namespace heist::sched {

std::atomic<bool> g_misroute_failures{false};

void record_failure(detail::FinishScope& scope, std::exception_ptr error) noexcept {
  if (scope.failure.load(std::memory_order_relaxed) != nullptr) return;  // the first stays
  detail::TaskFailure* mine = nullptr;
  try {
    mine = new detail::TaskFailure{std::move(error)};
  } catch (...) {
    return;  // no memory for it: the join cannot raise it (std::bad_alloc would be next anyway)
  }
  detail::TaskFailure* none = nullptr;
  // relaxed: the task's completion, after this, publishes it (release) to
  // the join that drains the scope (acquire).
  if (!scope.failure.compare_exchange_strong(none, mine, std::memory_order_relaxed)) delete mine;
}

std::exception_ptr take_failure(detail::FinishScope& scope) noexcept {
  if (scope.failure.load(std::memory_order_relaxed) == nullptr) return nullptr;
  detail::TaskFailure* taken = scope.failure.exchange(nullptr, std::memory_order_acquire);
  if (taken == nullptr) return nullptr;
  std::exception_ptr error = std::move(taken->error);
  delete taken;
  return error;
}

std::string report_text(const std::string& context, const std::exception_ptr& error) {
  std::string what;
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "a non-standard exception";
  }
  // Executor::finish_foreign's prefix, then a report's own words.
  constexpr std::string_view kReported = "heist: ";
  if (what.rfind(kReported, 0) == 0 && what.find(" on rank ") != std::string::npos &&
      (what.rfind("heist: task '", 0) == 0 || what.rfind("heist: an async ", 0) == 0))
    return what.substr(kReported.size());
  return context + what;
}

}  // namespace heist::sched
