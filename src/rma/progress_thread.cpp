#include "rma/progress_thread.hpp"

#include <chrono>

#include "rma/or_abort.hpp"

namespace heist::rma {

void ProgressThread::start(int period_us) {
  thread_ = std::thread([this, period_us] { loop(period_us); });
}

void ProgressThread::stop() {
  stop_.store(true, std::memory_order_relaxed);
  if (thread_.joinable()) thread_.join();
}

void ProgressThread::loop(int period_us) {
  const auto period = std::chrono::microseconds(period_us);
  while (!stop_.load(std::memory_order_relaxed)) {
    if (regions_.active())
      or_abort(ctx_.comm(), ctx_.rank(), [&] { ctx_.window().poke_progress(ctx_.comm(), regions_.active_flag()); });
    std::this_thread::sleep_for(period);
  }
}

}  // namespace heist::rma
