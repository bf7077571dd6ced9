// Steal micro-benchmark: the mean time of one successful inter-process steal
// of one empty task, SWS against SDC (SWS §5.1 Figure 6; HotSLAW §5
// Figure 4 varies the task's payload the same way). `heist bench stealbench`
// (apps/stealbench) drives it.
//
// Setting: collective over the ranks of `session` (2 or more). It builds its
// own RmaWindow, WindowLayout (ring of config.ring_slots slots of stride
// task::slot_stride(payload) = round_up_16(48 + payload), 1-entry inbox) and
// its own StealProtocol — not the runtime's Distributor, whose workers stay
// parked between regions. Rank 0 is the victim (owner), rank 1 the thief;
// other ranks only join the collectives (window creation, the broadcast of
// the result, the window's release).
//
//   owner (rank 0):  loop { once the thief reported the last offer taken
//                           (spare window word `taken`): if dry() and
//                           room() >= 1, release() one task (arbitrary bytes
//                           stamped with the offer's number: nothing is
//                           executed), then offers += 1 (spare word);
//                           stop once the thief's `done` word is set }
//   thief (rank 1):  loop { wait, untimed, until offers > tasks stolen;
//                           t0; n = steal(victim 0, thief 0); t1;
//                           untimed: flush the pending completion add,
//                           taken += 1, check the slot's stamp }
//                    done += 1 once warmup + steals steals succeeded.
//
// Pacing: the thief starts a steal only once the owner's offer is published,
// so every timed steal is an uncontended successful one: the quantity seed
// 001 Figure 6 plots. Unpaced, a thief hammering an exhausted SWS queue
// would either drop into damping's empty mode (a probe before the fetch-add:
// 4 communications, not 3) or land its failed fetch-adds between the owner's
// read and its release (phantom attempts, which void the new offer), and
// SDC's failed steals (lock, read, unlock) would bounce the owner's cache
// line while it publishes. Failed attempts are still counted (expected 0).
//
// Quiet or busy victim: by default the owner polls only the handshake words
// (another cache line) while a steal is in flight, like a victim busy
// computing — the time is the steal's own. With busy_victim it polls dry()
// all the time, as a runtime's idle owner would: its MPI_NO_OP reads of the
// protocol words then race the thief's atomics for their cache line.
//
// Counts: communications (atomics + gets + puts) and blocking completions
// (flushes) made inside the timed steal() calls, per successful steal.
// Expected: SWS 3 with 2 blocking (fetch-add + flush, get + flush,
// completion add left pending); SDC 6 with 5 blocking (lock CAS, tail/split
// read, tail replace, unlock CAS, get — each flushed — and the itail add left
// pending). The pending add is flushed outside the timed region.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "rma/mpi_session.hpp"
#include "heist/options.hpp"

namespace heist::rma {

struct StealBenchConfig {
  StealProtocolKind protocol = StealProtocolKind::sws;
  std::size_t payload = 8;               // task input bytes after the 48-byte header: [8, 65536]
  int warmup = 100;                      // successful steals before timing starts
  int steals = 2000;                     // successful steals timed
  std::size_t ring_slots = 64;           // public ring of the victim
  std::uint32_t sws_empty_threshold = 20;  // SWS damping threshold (Options::sws_empty_threshold)
  bool busy_victim = false;              // the owner polls dry() during steals (see above)
};

struct StealBenchResult {
  double mean_s = 0;                // mean seconds per successful steal
  double median_s = 0;
  double p99_s = 0;                 // 99th percentile
  double min_s = 0;
  double max_s = 0;
  double comms_per_steal = 0;       // (atomics + gets + puts) inside the timed calls / steals
  double blocking_per_steal = 0;    // flushes inside the timed calls / steals
  double bytes_per_steal = 0;       // bytes moved inside the timed calls / steals
  std::uint64_t steals = 0;         // successful steals timed
  std::uint64_t failed_attempts = 0;  // steal() calls that returned 0 (warm-up included)
  std::uint64_t bad_tasks = 0;      // stolen slots that were not the offer waited for (expected 0)
  std::uint64_t stride = 0;         // slot bytes moved per steal
};

static_assert(std::is_trivially_copyable_v<StealBenchResult>);  // broadcast as bytes

// Throws std::invalid_argument on a bad config or fewer than 2 ranks (on
// every rank alike, before any collective). The result is valid on every rank.
StealBenchResult run_steal_bench(MpiSession& session, const StealBenchConfig& config);

// (48 + payload) rounded up to 16 bytes: the slot stride the bench uses.
std::size_t steal_bench_stride(std::size_t payload) noexcept;

}  // namespace heist::rma
