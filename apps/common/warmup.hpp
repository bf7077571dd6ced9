// The warm-up before a benchmark's timed runs (`heist bench --warmup-s`,
// the peers' --warmup-s): the calling thread computes for that long first.
//
// Why: on the project's 2-core VM a fresh process runs slowly until it has
// been busy for about half a second — whatever the code (a spin loop does),
// and for the other threads it starts too. fib(35) in Lace's shape,
// 2 workers: 50-55 ms a run for the first 12 runs without it, 32 ms from the
// first run after a 0.5 s spin (0.2 s: not enough). MPI_Init is such a
// warm-up, so before this `mpirun -n 2` runs were measured warm and
// 2-worker runs cold, and 2 ranks looked faster than 2 threads.
#pragma once

#include <chrono>

namespace heist::apps {

inline constexpr double kDefaultWarmupSeconds = 0.75;

inline void warm_up(double seconds) {
  if (!(seconds > 0)) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  volatile unsigned sink = 0;  // keeps the loop a loop
  while (std::chrono::steady_clock::now() < until)
    for (int i = 0; i < 1000; ++i) sink = sink + 1;
}

}  // namespace heist::apps
