// Fault injection (--kill-rank-after-ms): a thread that kills this process
// with SIGKILL after a delay, unless the timer is destroyed first. SIGKILL
// cannot be caught: the process ends at once, without unwinding, flushing or
// finalising MPI — the way a node failure or the OOM killer ends a rank.
#pragma once

#include <condition_variable>
#include <mutex>
#include <thread>

namespace heist::platform {

class KillTimer {
 public:
  // `who` names the process in the line printed just before the kill.
  KillTimer(int after_ms, int who);
  ~KillTimer();  // cancels the kill if it has not happened
  KillTimer(const KillTimer&) = delete;
  KillTimer& operator=(const KillTimer&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable cancelled_;
  bool cancel_ = false;  // guarded by mutex_
  std::thread thread_;
};

}  // namespace heist::platform
