// TaskFailure: a task's exception on its way to the join that raises it.
//
// The rule (docs/programming.md, "Exceptions"): an exception thrown by a
// task is raised in the task that joins it — at its spawner's wait() (or at
// the spawn itself, where the child ran inline and so was joined there), at
// the finish that governs an async — never further out. A task that ran
// from a queue, or an async, records its exception in the scope its
// completion counts in (FinishScope::failure), before that completion; the
// wait or finish that drains the scope takes it and throws it. A task whose
// body returned but whose joined children failed fails with their
// exception (its implicit wait), and so on up.
//
// Several failures of one scope: the first recorded is kept, the others are
// dropped. A failed task completes by `remote` even on its owner's stack,
// so the scope's `local` count never reaches 0 through it: wait()'s inline
// test (FrameCore::nothing_to_wait_for) then leaves for the slow path,
// which raises it.
//
// Proxies (proxy_scope.hpp) keep their tasks' failures and hand them to the
// scope they stand for when they drain (Joins::release_proxy); a foreign
// proxy sends its first one as text in its report.
#pragma once

#include <atomic>
#include <exception>
#include <string>

#include "heist/detail/abi.hpp"

namespace heist::detail {

struct TaskFailure {
  std::exception_ptr error;
};

}  // namespace heist::detail

namespace heist::sched {

// Records `error` as `scope`'s failure unless it already has one.
void record_failure(detail::FinishScope& scope, std::exception_ptr error) noexcept;
// Takes the scope's failure (null if none).
std::exception_ptr take_failure(detail::FinishScope& scope) noexcept;
// The text of a failure reported to another rank: `context` followed by
// the exception's what(); a failure that already came from another rank
// ("heist: task '...' threw on rank ...") travels on as it is, so a
// failure that crosses ranks back and forth keeps its own words (and stays
// within an inbox entry) instead of gaining a prefix at every hop.
std::string report_text(const std::string& context, const std::exception_ptr& error);

// Self-test of the differential test only (tests/stress/differential.cpp):
// while set, failures go where they went before joins raised them (the
// process-wide slot rethrown at the outermost wait), the fault that test
// must catch. Read only when a task has failed.
extern std::atomic<bool> g_misroute_failures;

}  // namespace heist::sched
