// Victim selection (DESIGN layer 5): pure logic, no threads, no MPI, so the
// runtime and the simulator run the same objects. A VictimPolicy names the
// next worker a thief should try; it is told nothing about queues, only the
// thief's identity and an RNG, which keeps it replayable.
#pragma once

#include <concepts>
#include <cstdint>

#include "platform/rng.hpp"

namespace heist::policy {

template <class P>
concept VictimPolicy = requires(P& p, platform::Rng& rng) {
  { p.next(rng) } -> std::convertible_to<int>;  // a worker index, never the thief itself
};

// Uniformly random victim among the other workers (the classic choice,
// Blumofe & Leiserson; the baseline of every seed).
class RandomVictims {
 public:
  RandomVictims(int self, int workers) noexcept : self_(self), workers_(workers) {}

  // Precondition: workers > 1.
  int next(platform::Rng& rng) const noexcept {
    const int pick = static_cast<int>(rng.below(static_cast<std::uint32_t>(workers_ - 1)));
    return pick >= self_ ? pick + 1 : pick;
  }

  int workers() const noexcept { return workers_; }

 private:
  int self_;
  int workers_;
};

static_assert(VictimPolicy<RandomVictims>);

}  // namespace heist::policy
