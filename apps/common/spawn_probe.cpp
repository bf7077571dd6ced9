#include "common/spawn_probe.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include <heist/heist.hpp>

namespace heist::apps {

namespace {

constexpr int kBatch = 1000;   // spawns between two waits
constexpr int kBatches = 100;  // per round
constexpr int kRounds = 5;

template <std::size_t N>
struct ProbeIn {
  std::array<unsigned char, N> bytes;
};

// An empty task body the compiler can neither drop nor inline.
template <std::size_t N>
[[gnu::noinline]] void probe_body(const ProbeIn<N>& in) {
  asm volatile("" : : "r"(&in) : "memory");
}

// Registered at static initialisation, like every app task, so that the
// registries of all ranks agree under MPI.
const auto probe_task_8 = heist::register_task<probe_body<8>>("bench.spawn_probe.8");
const auto probe_task_16 = heist::register_task<probe_body<16>>("bench.spawn_probe.16");
const auto probe_task_32 = heist::register_task<probe_body<32>>("bench.spawn_probe.32");
const auto probe_task_64 = heist::register_task<probe_body<64>>("bench.spawn_probe.64");

template <std::size_t N>
auto probe_task() {
  if constexpr (N == 8) return probe_task_8;
  else if constexpr (N == 16) return probe_task_16;
  else if constexpr (N == 32) return probe_task_32;
  else return probe_task_64;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seconds per spawn (or per call, spawn = false) over one round.
template <std::size_t N>
double round_seconds(bool spawn) {
  ProbeIn<N> in{};
  const auto start = std::chrono::steady_clock::now();
  for (int b = 0; b < kBatches; ++b) {
    if (spawn) {
      for (int i = 0; i < kBatch; ++i) {
        in.bytes[0] = static_cast<unsigned char>(i);
        heist::spawn(probe_task<N>(), in);
      }
      heist::wait();
    } else {
      for (int i = 0; i < kBatch; ++i) {
        in.bytes[0] = static_cast<unsigned char>(i);
        probe_body<N>(in);
      }
    }
  }
  return seconds_since(start) / (kBatches * kBatch);
}

// Microseconds a spawn costs beyond a call, under `policy`.
template <std::size_t N>
double overhead_us(const Options& like, SpawnPolicy policy) {
  Options o = like;
  o.workers = 1;
  o.mpi = MpiMode::off;
  o.policy = policy;
  // Options only the measured run's policy reads go back to their defaults:
  // validate() rejects them under the probe's policies.
  const Options defaults;
  o.queue_bound = defaults.queue_bound;
  o.queue_demand = defaults.queue_demand;
  o.slaw_stack_frames = defaults.slaw_stack_frames;
  o.slaw_queue_tasks = defaults.slaw_queue_tasks;
  o.slaw_interval = defaults.slaw_interval;
  o.continuations = defaults.continuations;
  o.trace_file.clear();  // the measured run's trace is not overwritten
  heist::Runtime runtime(o);
  std::vector<double> spawns, calls;
  heist::finish([&] {
    for (int r = 0; r < kRounds; ++r) {
      calls.push_back(round_seconds<N>(false));
      spawns.push_back(round_seconds<N>(true));
    }
  });
  return std::max(0.0, (median(spawns) - median(calls)) * 1e6);
}

template <std::size_t N>
SpawnCost measure(const Options& like) {
  return {overhead_us<N>(like, SpawnPolicy::help_first), overhead_us<N>(like, SpawnPolicy::work_first), N};
}

}  // namespace

SpawnCost measure_spawn_cost(std::size_t input_bytes, const Options& like) {
  if (input_bytes <= 8) return measure<8>(like);
  if (input_bytes <= 16) return measure<16>(like);
  if (input_bytes <= 32) return measure<32>(like);
  return measure<64>(like);
}

}  // namespace heist::apps
