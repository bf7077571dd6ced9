#include "platform/kill_timer.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

namespace heist::platform {

KillTimer::KillTimer(int after_ms, int who) {
  thread_ = std::thread([this, after_ms, who] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (cancelled_.wait_for(lock, std::chrono::milliseconds(after_ms), [this] { return cancel_; })) return;
    std::fprintf(stderr, "heist: fault injection (--kill-rank-after-ms): rank %d kills itself with SIGKILL\n", who);
    std::fflush(stderr);
    ::kill(::getpid(), SIGKILL);
  });
}

KillTimer::~KillTimer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    cancel_ = true;
  }
  cancelled_.notify_all();
  thread_.join();
}

}  // namespace heist::platform
