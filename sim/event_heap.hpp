// The simulator's event queues.
//
// WorkerHeap: every simulated worker has exactly one pending event (its next
// action: a busy worker's clock, or a thief's next message arrival or local
// step), so the queue is an indexed 4-ary min-heap over worker ids whose keys
// change in place. Keys order by time, then class (so that at equal times a
// message lands before a worker acts on the state it changes), then worker
// id: the order of events, and so the whole run, is a function of the seed.
//
// ArrivalTimes: the pending arrival times at one target (a worker's deque or
// a rank's window). Events reach a target in time order, so the earliest is
// always the next to leave: a binary min-heap with pop-the-minimum suffices.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <queue>
#include <vector>

namespace heist::sim {

struct EventKey {
  double time;
  std::uint32_t cls;  // 0 message, 1 thief step, 2 busy worker
  std::uint32_t id;
  friend bool operator<(const EventKey& a, const EventKey& b) noexcept {
    if (a.time != b.time) return a.time < b.time;
    if (a.cls != b.cls) return a.cls < b.cls;
    return a.id < b.id;
  }
};

class WorkerHeap {
 public:
  explicit WorkerHeap(std::uint32_t workers) : pos_(workers, kAbsent) { heap_.reserve(workers); }

  bool empty() const noexcept { return heap_.empty(); }
  const EventKey& top() const noexcept { return heap_.front(); }

  // Inserts `id` or moves it to `key`.
  void set(const EventKey& key) {
    std::uint32_t at = pos_[key.id];
    if (at == kAbsent) {
      at = static_cast<std::uint32_t>(heap_.size());
      heap_.push_back(key);
      pos_[key.id] = at;
      up(at);
      return;
    }
    const bool earlier = key < heap_[at];
    heap_[at] = key;
    if (earlier) up(at);
    else down(at);
  }

  void remove(std::uint32_t id) {
    const std::uint32_t at = pos_[id];
    if (at == kAbsent) return;
    pos_[id] = kAbsent;
    const std::uint32_t last = static_cast<std::uint32_t>(heap_.size() - 1);
    if (at != last) {
      heap_[at] = heap_[last];
      pos_[heap_[at].id] = at;
      heap_.pop_back();
      if (at > 0 && heap_[at] < heap_[(at - 1) / kArity]) up(at);
      else down(at);
    } else {
      heap_.pop_back();
    }
  }

 private:
  static constexpr std::uint32_t kArity = 4;
  static constexpr std::uint32_t kAbsent = std::numeric_limits<std::uint32_t>::max();

  void up(std::uint32_t at) {
    const EventKey key = heap_[at];
    while (at > 0) {
      const std::uint32_t parent = (at - 1) / kArity;
      if (!(key < heap_[parent])) break;
      heap_[at] = heap_[parent];
      pos_[heap_[at].id] = at;
      at = parent;
    }
    heap_[at] = key;
    pos_[key.id] = at;
  }

  void down(std::uint32_t at) {
    const EventKey key = heap_[at];
    const auto n = static_cast<std::uint32_t>(heap_.size());
    for (;;) {
      const std::uint32_t first = at * kArity + 1;
      if (first >= n) break;
      std::uint32_t best = first;
      const std::uint32_t end = first + kArity < n ? first + kArity : n;
      for (std::uint32_t c = first + 1; c < end; ++c)
        if (heap_[c] < heap_[best]) best = c;
      if (!(heap_[best] < key)) break;
      heap_[at] = heap_[best];
      pos_[heap_[at].id] = at;
      at = best;
    }
    heap_[at] = key;
    pos_[key.id] = at;
  }

  std::vector<EventKey> heap_;
  std::vector<std::uint32_t> pos_;
};

class ArrivalTimes {
 public:
  void add(double t) { times_.push(t); }
  void remove_earliest() { times_.pop(); }
  double earliest() const noexcept {
    return times_.empty() ? std::numeric_limits<double>::infinity() : times_.top();
  }

 private:
  std::priority_queue<double, std::vector<double>, std::greater<double>> times_;
};

}  // namespace heist::sim
