// The share of a simulated machine's workers that run tasks, over time
// (`heist sim --busy-profile N`): where a run loses its workers — the
// spread of the first tasks, the waits in the middle, the tail — and two
// causes beside it: the share of workers inside a steal from another
// process (its round trips), and how many waits sit suspended (their
// stacks set aside until a completion, often one from another process,
// drains their count).
//
// The engine reports every stretch a worker spends out of tasks (from
// go_idle to become_busy: search, back-off and steals, helped waits that
// found nothing) with idle(), every steal attempt on another process's
// window from its first operation to its answer with remote(), and every
// suspended stack from its suspension to its resumption with suspended();
// the profile adds each to buckets of equal width. The makespan is not
// known until the end, so the buckets start 100 ns wide and double
// (neighbours merged) whenever a stretch ends past the last one: memory
// stays at N buckets, and a run ending at T comes out as between N/2 and N
// buckets of the smallest width 100 ns · 2^k with
// T <= N · width.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <initializer_list>
#include <vector>

namespace heist::sim {

class BusyProfile {
 public:
  static constexpr double kFirstWidthNs = 100.0;

  struct Result {
    double bucket_s = 0;            // width of every bucket
    std::vector<double> busy;       // per bucket: the mean share of workers running tasks, in [0, 1]
    std::vector<double> remote;     // the mean share of workers inside a steal from another process, in [0, 1]
    std::vector<double> suspended;  // the mean number of suspended stacks (waits set aside)
  };

  // `buckets` = 0: no profile (the reports do nothing).
  explicit BusyProfile(std::size_t buckets = 0)
      : idle_ns_(buckets, 0.0), remote_ns_(buckets, 0.0), suspended_ns_(buckets, 0.0) {}

  bool enabled() const noexcept { return !idle_ns_.empty(); }

  // One worker ran no task in [from_ns, to_ns).
  void idle(double from_ns, double to_ns) { add(idle_ns_, from_ns, to_ns); }
  // One worker's steal from another process took [from_ns, to_ns) (a part of its idle time).
  void remote(double from_ns, double to_ns) { add(remote_ns_, from_ns, to_ns); }
  // One stack was suspended in [from_ns, to_ns).
  void suspended(double from_ns, double to_ns) { add(suspended_ns_, from_ns, to_ns); }

  // The profile of a run of `workers` workers that ended at `makespan_ns`.
  Result finish(double makespan_ns, int workers) const {
    Result r;
    if (!enabled() || makespan_ns <= 0 || workers <= 0) return r;
    r.bucket_s = width_ns_ * 1e-9;
    const auto n = std::min(idle_ns_.size(), static_cast<std::size_t>(std::ceil(makespan_ns / width_ns_)));
    r.busy.reserve(n);
    r.remote.reserve(n);
    r.suspended.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double length = std::min(width_ns_, makespan_ns - static_cast<double>(i) * width_ns_);
      const double worker_time = length * workers;
      r.busy.push_back(std::clamp(1.0 - idle_ns_[i] / worker_time, 0.0, 1.0));
      // A steal still in flight when the last task completed may have
      // ended past the makespan: the run's last bucket keeps only what fits
      // in its idle time.
      r.remote.push_back(std::clamp(std::min(remote_ns_[i], idle_ns_[i]) / worker_time, 0.0, 1.0));
      r.suspended.push_back(suspended_ns_[i] / length);
    }
    return r;
  }

 private:
  void add(std::vector<double>& series, double from_ns, double to_ns) {
    if (!enabled() || !(to_ns > from_ns)) return;
    while (to_ns > width_ns_ * static_cast<double>(series.size())) widen();
    auto i = static_cast<std::size_t>(from_ns / width_ns_);
    for (; i < series.size(); ++i) {
      const double lo = std::max(from_ns, static_cast<double>(i) * width_ns_);
      const double hi = std::min(to_ns, static_cast<double>(i + 1) * width_ns_);
      if (hi <= lo) break;
      series[i] += hi - lo;
    }
  }

  // Every series doubles its width together.
  void widen() {
    for (std::vector<double>* series : {&idle_ns_, &remote_ns_, &suspended_ns_}) {
      std::vector<double>& s = *series;
      const std::size_t n = s.size();
      for (std::size_t i = 0; i < n; ++i) {  // in place: bucket i reads 2i and 2i + 1, not yet overwritten
        double merged = 0;
        if (2 * i < n) merged += s[2 * i];
        if (2 * i + 1 < n) merged += s[2 * i + 1];
        s[i] = merged;
      }
    }
    width_ns_ *= 2;
  }

  double width_ns_ = kFirstWidthNs;
  std::vector<double> idle_ns_;       // worker-time out of tasks
  std::vector<double> remote_ns_;     // worker-time in steals from another process
  std::vector<double> suspended_ns_;  // stack-time suspended
};

}  // namespace heist::sim
