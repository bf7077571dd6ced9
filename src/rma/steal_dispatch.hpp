// StealDispatch: the process's public queue (SdcQueue or SwsQueue behind
// StealProtocol) and one-sided steals between processes.
//
// Owner side: the workers' deques are the private parts; the window holds
// the process's public part. When a poll finds it dry (every offered task
// taken), the polling worker moves the older half of its deque there
// (migratable tasks only: registered, not local-only, output small enough
// for a completion entry); policy::PollPlan decides what to release and
// when. An idle worker that found nothing in its own process first takes
// tasks back from that queue (reclaim), then steals from another rank.
//
// Threads and orderings:
//  * on_poll and the take-back in reclaim run under the owner lock
//    (DistContext): the protocol's owner operations are one thread's at a time.
//  * reserved_until_ns_: tasks released because a thief of another rank
//    asked are reserved for thieves until then (else a lazily created task
//    offered to a waiting rank goes back to its owner, idle in wait(),
//    before the thief's next attempt). Written under the owner lock, read
//    without it: relaxed, a hint — a stale value only shifts one take-back
//    by a reservation period.
//  * steal() runs on any worker with that worker's own buffers; the
//    protocol's thief side keeps per-thief state only (sws_queue.hpp).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "policy/poll_plan.hpp"
#include "rma/dist_context.hpp"
#include "rma/steal_protocol.hpp"
#include "sched/remote_work.hpp"

namespace heist::rma {

class StealDispatch {
 public:
  StealDispatch(DistContext& ctx, const policy::PollPlan& plan);

  // Owner lock held: the public queue's part of w's poll.
  // inbox_posted: the inbox's posted count, where the protocol read it on the way (StealProtocol::dry).
  void on_poll(sched::Worker& w, PerWorker& p, std::optional<std::uint64_t>& inbox_posted);
  // Tasks this process offered and nobody took, back on w's deque.
  std::uint32_t reclaim(sched::Worker& w);
  // One steal from `victim`'s public queue, met at `level`.
  sched::StealOutcome steal(sched::Worker& w, int victim, policy::Level level);
  int window_model() const noexcept { return ctx_.window().model(); }

 private:
  // Tasks released to the public queue (0: none may leave, or the queue is full).
  std::uint32_t release_from(sched::Worker& w, PerWorker& p);

  DistContext& ctx_;
  const policy::PollPlan& plan_;
  std::unique_ptr<StealProtocol> protocol_;
  std::atomic<std::int64_t> reserved_until_ns_{0};  // relaxed: see the top comment
  std::int64_t reacquire_delay_ns_;
};

}  // namespace heist::rma
