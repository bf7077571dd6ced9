// bpc: producer and consumer tasks (SWS §5.2.1), sequential and on
// heist with registered escaping asyncs. Public heist API only.
#include <chrono>
#include <vector>

#include <heist/heist.hpp>

#include "bpc/bpc.hpp"
#include "common/task_io.hpp"

namespace heist::apps::bpc {

void busy_wait_ns(std::uint32_t ns) {
  if (ns == 0) return;
  const auto until = std::chrono::steady_clock::now() + std::chrono::nanoseconds(ns);
  while (std::chrono::steady_clock::now() < until) {
  }
}

BpcCounts bpc_sequential(const BpcParams& p) {
  BpcCounts counts;
  for (std::uint32_t level = 0; level < p.depth; ++level) {
    busy_wait_ns(p.producer_ns);
    ++counts.producers;
    for (std::uint32_t c = 0; c < p.consumers; ++c) {
      busy_wait_ns(p.consumer_ns);
      ++counts.consumers;
    }
  }
  return counts;
}

namespace {

// Tasks executed, per worker (each worker writes only its own line; finish
// orders the writes before the sum).
struct alignas(64) Tally {
  BpcCounts counts;
};
std::vector<Tally> g_tallies;

BpcCounts& my_counts() { return g_tallies[static_cast<std::size_t>(heist::worker_id())].counts; }

// A task carries all it needs, so it may run in any process.
struct ProducerIn {
  BpcParams params;
  std::uint32_t level;
};

void consumer(const std::uint32_t& ns) {
  busy_wait_ns(ns);
  ++my_counts().consumers;
}
const auto consumer_task = heist::register_task<consumer>("apps.bpc.consumer");

// Bouncing: the next producer first, so under help-first it is the oldest
// task here and thieves take it. A policy that runs children first (inline,
// work-first) nests the chain on the stack, one producer per level; the
// inline policies queue once the stack is nearly full.
void producer(const ProducerIn& in);
const auto producer_task = heist::register_task<producer>("apps.bpc.producer");

void producer(const ProducerIn& in) {
  busy_wait_ns(in.params.producer_ns);
  ++my_counts().producers;
  if (in.level + 1 < in.params.depth) heist::async(producer_task, ProducerIn{in.params, in.level + 1});
  for (std::uint32_t c = 0; c < in.params.consumers; ++c) heist::async(consumer_task, in.params.consumer_ns);
}

BpcCounts sum_tallies() {
  BpcCounts total;
  for (const Tally& t : g_tallies) {
    total.producers += t.counts.producers;
    total.consumers += t.counts.consumers;
  }
  return total;
}

}  // namespace

BpcCounts bpc_heist(const BpcParams& params) {
  g_tallies.assign(static_cast<std::size_t>(heist::num_workers()), Tally{});
  if (params.depth > 0) heist::finish([&] { heist::async(producer_task, ProducerIn{params, 0}); });
  return sum_tallies();
}

BpcCounts bpc_heist(heist::Runtime& runtime, const BpcParams& params) {
  g_tallies.assign(static_cast<std::size_t>(heist::num_workers()), Tally{});  // every rank counts what it runs
  runtime.root([&] {
    if (params.depth > 0) heist::async(producer_task, ProducerIn{params, 0});
  });
  const BpcCounts mine = sum_tallies();
  return {runtime.sum_over_ranks(mine.producers), runtime.sum_over_ranks(mine.consumers)};
}

std::vector<TaskIo> bpc_task_io() {
  return {task_io_of(producer_task, "apps.bpc.producer"), task_io_of(consumer_task, "apps.bpc.consumer")};
}

}  // namespace heist::apps::bpc
