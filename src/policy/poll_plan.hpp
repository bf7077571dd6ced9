// PollPlan (the policy layer of docs/architecture.md): every decision a process takes about work
// between processes when one of its workers polls — pure, deterministic
// code (no threads, clocks, MPI or thread-locals: times and counts come in
// as arguments), called by the runtime (rma::Distributor and its parts) and
// by the simulator (sim/engine_window.hpp, engine_mailbox.hpp) alike, so a
// simulated figure is a statement about the runtime's own decisions.
//
// A poll, in order:
//   1. the mailbox (success-only answers, pushes) is drained when either
//      balancing is on (drains_mailbox);
//   2. success-only: the process's load is advertised on the boards when it
//      turns zero or non-zero (publish_at_poll), and waiting requests are
//      answered, one per requesting rank in rank order (RequestBook,
//      serve_requests), each with answer_size tasks drawn from the whole
//      process: the polling worker's deque, then its siblings' public tasks
//      (collected with the thieves' protocol); a request is never
//      declined: with nothing to spare the next spawn queues work for it;
//   3. push: every push interval (Pacer) the load is published when it
//      changed (publish_at_push), the board read, and the transfers this rank
//      sends planned (plan_push, push_size);
//   4. when another rank may steal one-sidedly (watches_public_queue) and the
//      public queue ran dry: on_dry says whether to release the older half of
//      the deque (offer) and whether to ask the next spawn for work (a thief
//      asked); after_release whether to reserve the offer for thieves
//      (reacquire delay).
// An idle worker of the process takes back an unclaimed offer only when
// may_reclaim. Termination: region_over.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "policy/chunk_policy.hpp"
#include "policy/locality_plan.hpp"
#include "policy/push_balance.hpp"

namespace heist::policy {

// The load a process advertises before its first publication (none yet).
inline constexpr std::uint32_t kNothingPublished = 0xFFFFFFFFu;

// A worker's share of its process's load: its queued tasks, plus the one it runs.
constexpr std::uint32_t worker_load(std::size_t queued, bool running) noexcept {
  return static_cast<std::uint32_t>(queued) + (running ? 1u : 0u);
}

// A periodic action: due once per period, at the first call at or after its time.
template <class Time>
class Pacer {
 public:
  bool due(Time now, Time period) noexcept {
    if (now < next_) return false;
    next_ = now + period;
    return true;
  }
  void reset() noexcept { next_ = Time{}; }

 private:
  Time next_{};
};

// Requests of other ranks at this (victim) process: how many each rank
// asked (cumulative) and how many were answered. The runtime sets the asked
// counts from its window, the simulator counts deliveries.
class RequestBook {
 public:
  RequestBook() = default;
  explicit RequestBook(int ranks) : asked_(static_cast<std::size_t>(ranks), 0), served_(asked_) {}

  void set_asked(int rank, std::uint64_t cumulative) { asked_.at(static_cast<std::size_t>(rank)) = cumulative; }
  void add_asked(int rank) { ++asked_.at(static_cast<std::size_t>(rank)); }
  void answered(int rank) { ++served_.at(static_cast<std::size_t>(rank)); }
  bool waiting(int rank) const { return asked_.at(static_cast<std::size_t>(rank)) > served_.at(static_cast<std::size_t>(rank)); }
  // The first rank at or after `from` whose request waits; -1 if none.
  int next_waiting(int from) const noexcept {
    for (std::size_t r = static_cast<std::size_t>(std::max(from, 0)); r < asked_.size(); ++r)
      if (asked_[r] > served_[r]) return static_cast<int>(r);
    return -1;
  }
  int ranks() const noexcept { return static_cast<int>(asked_.size()); }
  // Ranks whose request waits.
  std::uint32_t waiting_count() const noexcept {
    std::uint32_t n = 0;
    for (std::size_t r = 0; r < asked_.size(); ++r) n += asked_[r] > served_[r] ? 1u : 0u;
    return n;
  }

 private:
  std::vector<std::uint64_t> asked_, served_;
};

// Answers the waiting requests, one per requesting rank, in rank order:
// answer(rank, waiting) sends the answer and returns false when it could
// not (nothing to spare); `waiting` is how many requests waited when the
// round began (they share what the process spares: PollPlan::answer_size).
// Stops there: returns false (some request still waits), else true.
template <class Answer>
bool serve_requests(RequestBook& book, Answer&& answer) {
  const std::uint32_t waiting = book.waiting_count();
  for (int t = book.next_waiting(0); t >= 0; t = book.next_waiting(t + 1)) {
    if (!answer(t, waiting)) return false;
    book.answered(t);
  }
  return true;
}

// What a poll does on finding the public queue dry.
struct DryStep {
  bool release = false;    // move the older half of the polling worker's deque there
  bool want_work = false;  // a thief asked: the next spawn is the thief's (SpawnFacts::thief_asked)
};

// After a release of `released` tasks.
struct ReleaseStep {
  bool reserve = false;  // reserve the offer for other ranks' thieves (a thief asked)
};

class PollPlan {
 public:
  PollPlan() = default;
  // `answer_slots`: the largest answer (answer_slots_for); 0: half a mailbox.
  PollPlan(const LocalityPlan& locality, const ChunkPolicy& chunk, std::size_t mailbox_slots,
           std::uint32_t answer_slots = 0) noexcept
      : locality_(locality),
        chunk_(chunk),
        mailbox_half_(static_cast<std::uint32_t>(mailbox_slots / 2)),
        answer_max_(answer_slots > 0 ? answer_slots : mailbox_half_) {}

  const LocalityPlan& locality() const noexcept { return locality_; }

  // ---- 1 to 3: balancing through the mailbox ----
  bool drains_mailbox() const noexcept { return locality_.success_only || locality_.push; }
  bool publish_at_poll(std::uint32_t load, std::uint32_t published) const noexcept {
    return locality_.success_only && ((load > 0) != (published > 0) || published == kNothingPublished);
  }
  static bool publish_at_push(std::uint32_t load, std::uint32_t published) noexcept { return load != published; }
  // Tasks answering a request of a rank at `level`, from what the process
  // can spare: the polling worker's `queued` tasks and its siblings'
  // `siblings_public` ones (a request is for the process: an answer sized
  // from one worker's deque alone sent a task or two where the process held
  // dozens; docs/design/work-between-processes.md). A searching worker keeps
  // one: without that, the tasks an idle process's own request just
  // brought are passed on to the next requester before anyone runs them,
  // and at the end of a run, with every rank idle and asking, the last
  // tasks travel from rank to rank forever (the simulator found this
  // livelock; docs/simulator.md). The `requesters` waiting in this round
  // share the process's half (ChunkPolicy::take): answered a half each, one
  // after the other, many requests emptied their victims, which then asked
  // in turn.
  //
  // `reporting`: the polling worker's deque holds tasks that report back by
  // themselves (task::reports_back: joined, or with an output or handle).
  // Their answers carry at most kReportingAnswerMax: each such task sent
  // away leaves a frame of this process waiting for a completion from
  // another one, and a waiting worker takes nothing from other processes
  // (--waiter-steals auto). Escaping tasks (UTS) report in bulk and keep
  // the larger answers, which they need (docs/design/work-between-processes.md).
  //
  // `idle`: workers of this process looking for work (Scheduler::
  // searching_workers, a hint). Half as many tasks as they are stay home:
  // a task one of them takes costs an in-process steal, one sent away a
  // round trip and the wait for the victim's poll, and the idle worker here
  // then asks another process in turn. Answered from the whole spare, many
  // nodes forwarded tasks they had just been sent; keeping one for every
  // idle worker cost small machines (docs/design/work-between-processes.md).
  static constexpr std::uint32_t kReportingAnswerMax = 4;
  std::uint32_t answer_size(std::size_t queued, std::size_t siblings_public, bool searching, Level level,
                            std::uint32_t requesters = 1, bool reporting = false,
                            std::size_t idle = 0) const noexcept {
    const std::size_t keep = std::max<std::size_t>(searching ? 1 : 0, idle / 2);
    const std::size_t held = queued + siblings_public;
    const std::size_t spare = held > keep ? held - keep : 0;
    const auto available = static_cast<std::uint32_t>(std::min<std::size_t>(spare, 0xFFFFFFFFu));
    const std::uint32_t most = reporting ? std::min(answer_max_, kReportingAnswerMax) : answer_max_;
    return std::min(chunk_.take(available, level, requesters), most);
  }
  // An answer of `n` from a worker with `queued` tasks of its own: it cannot
  // tell whether its siblings' public tasks report back until it holds
  // them, so with an empty deque it collects this many first (0: it can
  // tell already) and sizes the answer again by what it got (probed_answer).
  static std::uint32_t probe_size(std::uint32_t n, std::size_t queued) noexcept {
    return queued == 0 && n > kReportingAnswerMax ? kReportingAnswerMax : 0;
  }
  static std::uint32_t probed_answer(std::uint32_t n, bool reporting) noexcept {
    return reporting ? std::min(n, kReportingAnswerMax) : n;
  }
  std::uint32_t answer_max() const noexcept { return answer_max_; }
  // The polling worker just took `received` tasks from success-only answers
  // into its deque: publish the older half of its private tasks at once
  // (SplitDeque::release)? Its process asked because workers of it were
  // idle, and they take only public tasks; kept private, an answer reached
  // them one failed steal and one of the receiver's pops at a time, so a
  // large answer fed its process slowly (docs/design/work-between-processes.md).
  static bool release_answered(std::uint32_t received) noexcept { return received > 0; }
  // The transfers this rank sends, of those plan_push plans from every
  // rank's load as read on the board ([rank]), with this rank's own `load`
  // (fresher than its board entry) in place of its entry.
  template <class Word>
  std::vector<PushTransfer> pushes_from(int rank, std::uint32_t load, std::span<const Word> board) const {
    std::vector<RankLoad> loads;
    loads.reserve(board.size());
    for (std::size_t r = 0; r < board.size(); ++r)
      loads.push_back({static_cast<int>(r), static_cast<int>(r) == rank ? load : static_cast<std::uint32_t>(board[r])});
    std::vector<PushTransfer> mine;
    for (const PushTransfer& t : plan_push(loads, locality_.push_thresholds))
      if (t.from == rank) mine.push_back(t);
    return mine;
  }
  std::uint32_t push_size(const PushTransfer& t, std::size_t queued) const noexcept {
    return std::min({t.tasks, static_cast<std::uint32_t>(std::min<std::size_t>(queued, 0xFFFFFFFFu)), mailbox_half_});
  }

  // ---- 4: the public queue ----
  bool watches_public_queue() const noexcept { return locality_.one_sided_thieves; }
  // A thief that asked is told to the next spawn whether or not tasks are
  // released now, as a failed steal inside the process is: what the deque
  // holds may be the deepest, smallest tasks, while the work is in inline
  // frames, which only the spawn decision (SpawnStep::reroot) can reach.
  // Releasing alone fed a remote thief of UTS T1L tens of thousands of tiny
  // tasks (docs/design/work-between-processes.md).
  static DryStep on_dry(bool asked, std::size_t queued) noexcept { return {queued >= 1, asked}; }
  // Tasks to offer: the older half of the deque, within the queue's room and the SWS cap.
  std::uint32_t offer(std::uint32_t room, std::size_t queued) const noexcept {
    if (room == 0) return 0;
    const auto half = static_cast<std::uint32_t>(std::min<std::size_t>((queued + 1) / 2, 0xFFFFFFFFu));
    std::uint32_t n = std::min(room, half);
    if (locality_.sws_offer_cap > 0) n = std::min(n, locality_.sws_offer_cap);
    return n;
  }
  static ReleaseStep after_release(std::uint32_t released, bool asked) noexcept { return {asked && released > 0}; }
  // An idle worker may take back its process's unclaimed offer.
  template <class Time>
  static bool may_reclaim(bool offering, Time now, Time reserved_until) noexcept {
    return offering && !(now < reserved_until);
  }

  // ---- termination ----
  // Every rank's finish of region `generation` drained (rank 0's count is cumulative).
  static bool region_over(std::uint64_t regions_done, int ranks, std::uint64_t generation) noexcept {
    return regions_done >= static_cast<std::uint64_t>(ranks) * generation;
  }

 private:
  LocalityPlan locality_;
  ChunkPolicy chunk_;
  std::uint32_t mailbox_half_ = 0;  // tasks per mailbox batch, at most
  std::uint32_t answer_max_ = 0;    // tasks per success-only answer, at most (its slot area's)
};

}  // namespace heist::policy
