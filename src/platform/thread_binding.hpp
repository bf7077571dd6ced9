// Binding a thread to one processing unit (Options::bind_workers = pus).
// Worker i goes to the i-th PU of the process's CPU set, modulo its size:
// the order hw_topology.hpp places workers in (hwloc's logical order where
// hwloc is built in, so workers fill a core's PUs, then the next core's;
// else the OS numbering of sched_getaffinity), so that the cache groups,
// NUMA domains and sockets the thieves use are where the threads really run.
// An unbound run lets the OS place threads, and it may keep two workers on
// one PU for a while, which a bound run never does.
#pragma once

#include <sched.h>

namespace heist::platform {

class ThreadBinding {
 public:
  // Binds the calling thread to worker `worker`'s PU. With `restore`, the
  // thread's CPU set before the call comes back when the binding ends (the
  // creating thread: it is the user's). A failure leaves the thread as it was.
  ThreadBinding(int worker, bool restore) noexcept;
  ~ThreadBinding();
  ThreadBinding(const ThreadBinding&) = delete;
  ThreadBinding& operator=(const ThreadBinding&) = delete;

 private:
  cpu_set_t saved_{};
  bool restore_ = false;
};

}  // namespace heist::platform
