// Regions: a distributed region's start and end, and its termination.
//
// Termination (Runtime::root / Runtime::pool): every rank runs a finish over
// what it seeds. A task that ran on another rank reports its completion only
// after its escaping descendants there are done (sched::Executor::execute), so a
// rank's finish is drained exactly when every task it seeded, and every
// descendant, is done, and it never fills again. Each rank adds 1 to rank 0's
// regions_done word when its finish drains; the region ends on every rank
// when the word reaches ranks x generation (cumulative: never reset;
// policy::PollPlan::region_over). Then the ranks stop their workers and meet
// in a barrier before anything else touches the windows. The termination
// model is models/termination.pml.
//
// Threads and orderings: begin/end run on worker 0's thread while no other
// worker of the process runs (before activate, after the workers stopped);
// done() runs on worker 0 only (the waiting worker), so generation_,
// reported_ and the check pacer are its own. active_ is read by the
// process's workers and the progress thread: relaxed, because starting and
// stopping the workers orders it against their reads. The progress thread
// reads it again under the serialized-mode lock before each poke, and end()
// clears it under that lock (RmaWindow::store_serialized): under
// MPI_THREAD_SERIALIZED no poke may overlap the barrier and collectives
// that follow a region, which take no lock (MPICH with UCX aborts when two
// threads enter its progress engine at once).
#pragma once

#include <atomic>
#include <cstdint>

#include "policy/poll_plan.hpp"
#include "rma/dist_context.hpp"

namespace heist::rma {

class Regions {
 public:
  Regions(DistContext& ctx, MpiSession& session) noexcept : ctx_(ctx), session_(session) {}

  bool active() const noexcept { return active_.load(std::memory_order_relaxed); }
  const std::atomic<bool>& active_flag() const noexcept { return active_; }
  void begin();
  void end();  // after the workers stopped: flush, barrier
  // Worker 0: whether every rank's finish of this region drained (reports this one's first).
  bool done(sched::Worker& w);

 private:
  DistContext& ctx_;
  MpiSession& session_;
  std::atomic<bool> active_{false};
  std::uint64_t generation_ = 0;
  bool reported_ = false;                   // this region's drain counted
  policy::Pacer<std::int64_t> done_check_;  // reads of rank 0's termination count
};

}  // namespace heist::rma
