// SimDeque: a simulated worker's task queue with the semantics of the
// runtime's SplitDeque (src/sched/split_deque.hpp), minus the atomics: the
// simulator is single-threaded and applies each thief's claim at the
// simulated instant it reaches the victim.
//
// Indices only grow; tail <= split <= head:
//     [tail, split)  public  — thieves claim from the old end (FIFO)
//     [split, head)  private — the owner pushes and pops at head (LIFO)
// Owner: push (then release if a thief flagged `wanted`); pop (when the
// private part is empty, first take back the newer half of the public part:
// SplitDeque's acquire); release publishes ceil(private / 2); take_oldest
// publishes everything and claims from the old end (the runtime's release to
// the process's window). Thief: steal claims chunk.take(public) from the old
// end, or flags `wanted` when nothing is public.
//
// Storage: a power-of-two ring that doubles when full and never shrinks, so
// its size is the largest queue length seen (bounded by the spawn policy and
// by max_tasks, as in the runtime), never the number of tasks run.
#pragma once

#include <cstdint>
#include <vector>

namespace heist::sim {

template <class Task>
class SimDeque {
 public:
  explicit SimDeque(std::uint64_t max_tasks) : max_tasks_(max_tasks) {}

  std::uint64_t size() const noexcept { return head_ - tail_; }
  std::uint64_t public_size() const noexcept { return split_ - tail_; }
  std::uint64_t private_size() const noexcept { return head_ - split_; }
  std::uint64_t head() const noexcept { return head_; }
  bool full() const noexcept { return size() >= max_tasks_; }
  bool wanted() const noexcept { return wanted_; }
  std::uint64_t releases() const noexcept { return releases_; }
  std::uint64_t acquires() const noexcept { return acquires_; }

  // The oldest public task (precondition: public_size() > 0): what a
  // thief under a help floor looks at before it claims.
  const Task& oldest_public() const noexcept { return ring_[tail_ & mask_]; }

  // ---- owner ----
  // SplitDeque::end_push: a push releases when a thief flagged `wanted`;
  // a thief copying stolen tasks in (steal_into) releases only after the last.
  void push(const Task& t, bool release_if_wanted = true) {
    if (size() == ring_.size()) grow();
    ring_[head_ & mask_] = t;
    ++head_;
    if (release_if_wanted && wanted_) release();
  }

  bool pop(Task& out) noexcept {
    if (head_ == split_) {
      if (tail_ == split_) return false;
      split_ = tail_ + (split_ - tail_) / 2;  // keep the older half public
      ++acquires_;
    }
    --head_;
    out = ring_[head_ & mask_];
    if (wanted_) release();
    return true;
  }

  // SplitDeque::publish_one and release(): the oldest private tasks become public.
  void publish_one() noexcept {
    if (head_ == split_) return;
    ++split_;
    ++releases_;
  }
  void release() noexcept {
    wanted_ = false;
    const std::uint64_t priv = head_ - split_;
    if (priv == 0) return;
    split_ += (priv + 1) / 2;
    ++releases_;
  }

  // Up to `max` of the oldest tasks, public or private, appended to `out`.
  template <class Out>
  std::uint32_t take_oldest(std::uint32_t max, Out& out) {
    split_ = head_;
    return claim(max, out);
  }

  // ---- thief ----
  // Claims `k` = take(public) tasks (0 < k <= public) into `out`; with nothing
  // public, flags `wanted` and returns 0.
  template <class Take, class Out>
  std::uint32_t steal(Take&& take, Out& out) {
    const std::uint64_t available = split_ - tail_;
    if (available == 0) {
      wanted_ = true;
      return 0;
    }
    const std::uint64_t capped = available < 0xFFFFFFFFu ? available : 0xFFFFFFFFu;
    return claim(static_cast<std::uint32_t>(take(static_cast<std::uint32_t>(capped))), out);
  }

 private:
  template <class Out>
  std::uint32_t claim(std::uint32_t max, Out& out) {
    const std::uint64_t available = split_ - tail_;
    const std::uint64_t k = max < available ? max : available;
    for (std::uint64_t i = 0; i < k; ++i) out.push_back(ring_[(tail_ + i) & mask_]);
    tail_ += k;
    return static_cast<std::uint32_t>(k);
  }

  void grow() {
    const std::size_t old = ring_.size();
    std::vector<Task> bigger(old == 0 ? 64 : old * 2);
    const std::uint64_t new_mask = bigger.size() - 1;
    for (std::uint64_t i = tail_; i < head_; ++i) bigger[i & new_mask] = ring_[i & mask_];
    ring_.swap(bigger);
    mask_ = new_mask;
  }

  std::vector<Task> ring_;
  std::uint64_t mask_ = 0;
  std::uint64_t tail_ = 0, split_ = 0, head_ = 0;
  std::uint64_t max_tasks_;
  bool wanted_ = false;
  std::uint64_t releases_ = 0, acquires_ = 0;
};

}  // namespace heist::sim
