// ProgressThread (--progress thread): pokes MPI's progress engine every
// --progress-interval-us while a region is active, for MPI libraries whose
// one-sided operations advance only inside MPI calls at the target.
//
// Threads and orderings: stop_ is written by the owning thread (stop(), the
// destructor) and read by the loop. Relaxed: it guards no data — the loop
// only decides whether to go round again, and join() orders everything the
// thread did before the owner continues.
#pragma once

#include <atomic>
#include <thread>

#include "rma/dist_context.hpp"
#include "rma/regions.hpp"

namespace heist::rma {

class ProgressThread {
 public:
  ProgressThread(DistContext& ctx, const Regions& regions) noexcept : ctx_(ctx), regions_(regions) {}
  ~ProgressThread() { stop(); }
  ProgressThread(const ProgressThread&) = delete;
  ProgressThread& operator=(const ProgressThread&) = delete;

  void start(int period_us);
  void stop();
  const CommCounters& counters() const noexcept { return comm_; }

 private:
  void loop(int period_us);

  DistContext& ctx_;
  const Regions& regions_;
  std::atomic<bool> stop_{false};
  CommCounters comm_;
  std::thread thread_;
};

}  // namespace heist::rma
