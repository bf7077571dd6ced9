// The share of a simulated machine's workers that run tasks, over time
// (`heist sim --busy-profile N`): where a run loses its workers — the
// spread of the first tasks, the waits in the middle, the tail.
//
// The engine reports every stretch a worker spends out of tasks (from
// go_idle to become_busy: search, back-off and steals, helped waits that
// found nothing) with idle(); the profile adds it to buckets of equal
// width. The makespan is not known until the end, so the buckets start
// 100 ns wide and double (neighbours merged) whenever a stretch ends past
// the last one: memory stays at N buckets, and a run ending at T comes out
// as between N/2 and N buckets of the smallest width 100 ns · 2^k with
// T <= N · width.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace heist::sim {

class BusyProfile {
 public:
  static constexpr double kFirstWidthNs = 100.0;

  struct Result {
    double bucket_s = 0;        // width of every bucket
    std::vector<double> busy;   // per bucket: the mean share of workers running tasks, in [0, 1]
  };

  // `buckets` = 0: no profile (idle() does nothing).
  explicit BusyProfile(std::size_t buckets = 0) : idle_ns_(buckets, 0.0) {}

  bool enabled() const noexcept { return !idle_ns_.empty(); }

  // One worker ran no task in [from_ns, to_ns).
  void idle(double from_ns, double to_ns) {
    if (!enabled() || !(to_ns > from_ns)) return;
    while (to_ns > width_ns_ * static_cast<double>(idle_ns_.size())) widen();
    auto i = static_cast<std::size_t>(from_ns / width_ns_);
    for (; i < idle_ns_.size(); ++i) {
      const double lo = std::max(from_ns, static_cast<double>(i) * width_ns_);
      const double hi = std::min(to_ns, static_cast<double>(i + 1) * width_ns_);
      if (hi <= lo) break;
      idle_ns_[i] += hi - lo;
    }
  }

  // The profile of a run of `workers` workers that ended at `makespan_ns`.
  Result finish(double makespan_ns, int workers) const {
    Result r;
    if (!enabled() || makespan_ns <= 0 || workers <= 0) return r;
    r.bucket_s = width_ns_ * 1e-9;
    const auto n = std::min(idle_ns_.size(), static_cast<std::size_t>(std::ceil(makespan_ns / width_ns_)));
    r.busy.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      const double length = std::min(width_ns_, makespan_ns - static_cast<double>(i) * width_ns_);
      const double idle_share = idle_ns_[i] / (length * workers);
      r.busy.push_back(std::clamp(1.0 - idle_share, 0.0, 1.0));
    }
    return r;
  }

 private:
  void widen() {
    const std::size_t n = idle_ns_.size();
    for (std::size_t i = 0; i < n; ++i) {  // in place: bucket i reads 2i and 2i + 1, not yet overwritten
      double merged = 0;
      if (2 * i < n) merged += idle_ns_[2 * i];
      if (2 * i + 1 < n) merged += idle_ns_[2 * i + 1];
      idle_ns_[i] = merged;
    }
    width_ns_ *= 2;
  }

  double width_ns_ = kFirstWidthNs;
  std::vector<double> idle_ns_;
};

}  // namespace heist::sim
