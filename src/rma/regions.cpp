#include "rma/regions.hpp"

#include "platform/timer.hpp"

namespace heist::rma {

namespace {
constexpr std::int64_t kDoneCheckNs = 20'000;  // how often worker 0 reads rank 0's termination count
}

void Regions::begin() {
  session_.set_in_region(true);
  ++generation_;
  reported_ = false;
  done_check_.reset();
  active_.store(true, std::memory_order_relaxed);  // read by this process's workers, which start after activate()
}

void Regions::end() {
  ctx_.window().store_serialized(active_, false);  // no progress poke from here on
  CommCounters& c = ctx_.per_worker()[0].comm;
  ctx_.window().flush_all(c);
  ++c.flushes;
  check(MPI_Barrier(ctx_.comm()), "MPI_Barrier (end of a distributed region)");
  session_.set_in_region(false);
}

bool Regions::done(sched::Worker& w) {
  PerWorker& p = ctx_.of(w);
  if (!reported_) {
    ctx_.flush_pending(p);
    ctx_.window().fetch_add_sync(0, WindowLayout::kRegionsDone, 1, p.comm);
    reported_ = true;
  }
  if (!done_check_.due(platform::now_ns(), kDoneCheckNs)) return false;
  return policy::PollPlan::region_over(ctx_.window().read_sync(0, WindowLayout::kRegionsDone, p.comm), ctx_.ranks(),
                                       generation_);
}

}  // namespace heist::rma
