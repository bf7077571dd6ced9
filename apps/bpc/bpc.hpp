// bpc: the Bouncing Producer-Consumer benchmark (SWS §5.2.1, after
// Dinan et al.), which tests how fast a load balancer finds and spreads
// work. A producer task spawns the next producer (until `depth` producers
// exist) and `consumers` consumer tasks. In the bouncing mode the producer
// is spawned first, so it is the oldest task in its queue, the one thieves
// take first: the producer chain bounces from worker to worker.
//
// Tasks do no computation: each busy-waits on the steady clock for its
// duration, so the benchmark measures scheduling (how fast work spreads),
// not arithmetic; it is not CPU-speed dependent.
#pragma once

#include <cstdint>

namespace heist {
class Runtime;
}

namespace heist::apps::bpc {

struct BpcParams {
  std::uint32_t depth = 1000;       // producers in the chain
  std::uint32_t consumers = 100;    // consumers per producer
  std::uint32_t consumer_ns = 5000; // busy-wait of one consumer task
  std::uint32_t producer_ns = 1000; // busy-wait of one producer task
};

struct BpcCounts {
  std::uint64_t producers = 0;
  std::uint64_t consumers = 0;
  friend bool operator==(const BpcCounts&, const BpcCounts&) = default;
};

// Spins on std::chrono::steady_clock for `ns` nanoseconds.
void busy_wait_ns(std::uint32_t ns);

// The same tasks in the same order, run one after the other.
BpcCounts bpc_sequential(const BpcParams& params);

// heist version: every producer and consumer is a registered, escaping
// async (migratable) under one finish; tasks are counted per worker. Call
// inside a heist::Runtime; one run at a time per process.
BpcCounts bpc_heist(const BpcParams& params);
// Every rank (collective): the first producer starts on rank 0; the counts are summed over the ranks.
BpcCounts bpc_heist(heist::Runtime& runtime, const BpcParams& params);

}  // namespace heist::apps::bpc
