#include "rma/steal_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "rma/rma_window.hpp"
#include "rma/sdc_queue.hpp"
#include "rma/sws_queue.hpp"
#include "rma/window_layout.hpp"
#include "task/task_slot.hpp"

namespace heist::rma {

namespace {

// Header words no protocol uses (window_layout.hpp ends at kRegionsDone),
// on the cache line after the protocols' words, so the handshake below
// never touches the line the timed steals work on. Each is updated with
// MPI_SUM only and read with MPI_NO_OP fetches (RmaWindow's atomicity rule).
constexpr MPI_Aint kOffers = 88;  // rank 0's: offers published (the owner adds 1 per offer)
constexpr MPI_Aint kTaken = 96;   // rank 0's: tasks stolen (the thief adds 1 after each steal)
constexpr MPI_Aint kDone = 104;   // rank 0's: the thief adds 1 when it has stolen enough
static_assert(kOffers >= WindowLayout::kRegionsDone + 8 && kDone + 8 <= WindowLayout::kHeaderBytes);
static_assert(kOffers / 64 == 1 && kDone / 64 == 1 && WindowLayout::kSdcItail / 64 == 0);

constexpr int kVictim = 0;
constexpr int kThief = 1;
constexpr std::size_t kMaxPayload = std::size_t{64} << 10;

std::unique_ptr<StealProtocol> make_queue(const StealBenchConfig& config, RmaWindow& window,
                                          const WindowLayout& layout, int rank, int ranks) {
  if (config.protocol == StealProtocolKind::sdc)
    return std::make_unique<SdcQueue>(window, layout, rank, ChunkSpec{ChunkSpec::Kind::fixed, 1});
  return std::make_unique<SwsQueue>(window, layout, rank, ranks, /*thieves=*/1, config.sws_empty_threshold);
}

// The task a slot carries: its offer number at both ends of the slot, so the
// thief can check it received the whole slot of the offer it waited for.
void stamp(std::byte* slot, std::size_t stride, std::uint64_t offer) {
  std::memcpy(slot, &offer, sizeof offer);
  std::memcpy(slot + stride - sizeof offer, &offer, sizeof offer);
}
bool stamped(const std::byte* slot, std::size_t stride, std::uint64_t offer) {
  std::uint64_t head = 0;
  std::uint64_t tail = 0;
  std::memcpy(&head, slot, sizeof head);
  std::memcpy(&tail, slot + stride - sizeof tail, sizeof tail);
  return head == offer && tail == offer;
}

// Rank 0: publish one task whenever the queue is dry, until the thief is
// done. A quiet victim looks at its queue (dry()) only once the thief said it
// took the last offer; a busy one polls dry() all the time, its reads of the
// protocol words racing the thief's steal for their cache line.
void run_owner(RmaWindow& window, StealProtocol& queue, std::size_t stride, bool busy) {
  CommCounters c;
  std::vector<std::byte> slot(stride, std::byte{0x5a});
  std::vector<std::byte> returned;
  std::uint64_t offers = 0;
  for (;;) {
    const bool taken = window.read_sync(kVictim, kTaken, c) == offers;
    std::optional<std::uint64_t> inbox_posted;  // unused: the bench has no inbox
    if ((taken || busy) && queue.dry(c, inbox_posted) && queue.room() >= 1) {
      stamp(slot.data(), stride, offers);
      returned.clear();
      queue.release(slot.data(), 1, returned, c);
      if (!returned.empty()) continue;  // SWS phantom skip: the task came back, publish it again
      ++offers;
      window.add(kVictim, kOffers, 1, c);
      window.flush(kVictim, c);
    } else if (!taken && window.read_sync(kVictim, kDone, c) != 0) {
      return;
    }
  }
}

struct ThiefRecord {
  std::vector<double> seconds;  // successful timed steals
  CommCounters timed;           // summed over the successful timed calls
  std::uint64_t failed = 0;
  std::uint64_t bad = 0;        // stolen slots that were not the offer waited for
};

// Rank 1: wait for an offer (untimed), steal it (timed), complete and
// report it (untimed).
ThiefRecord run_thief(RmaWindow& window, StealProtocol& queue, std::size_t stride, const StealBenchConfig& config) {
  ThiefRecord rec;
  rec.seconds.reserve(static_cast<std::size_t>(config.steals));
  CommCounters untimed;
  std::vector<std::byte> out;
  out.reserve(stride);
  const std::uint64_t total = static_cast<std::uint64_t>(config.warmup) + static_cast<std::uint64_t>(config.steals);
  std::uint64_t taken = 0;
  while (taken < total) {
    while (window.read_sync(kVictim, kOffers, untimed) <= taken) {
    }
    out.clear();
    CommCounters c;
    const auto start = std::chrono::steady_clock::now();
    const std::uint32_t n = queue.steal(kVictim, 0, policy::Level::node, out, c);
    const auto stop = std::chrono::steady_clock::now();
    window.flush(kVictim, untimed);  // the completion add each protocol leaves pending
    if (n == 0) {
      ++rec.failed;
      continue;
    }
    window.add(kVictim, kTaken, 1, untimed);
    window.flush(kVictim, untimed);
    if (n != 1 || out.size() != stride || !stamped(out.data(), stride, taken)) ++rec.bad;
    if (taken >= static_cast<std::uint64_t>(config.warmup)) {
      rec.seconds.push_back(std::chrono::duration<double>(stop - start).count());
      rec.timed.atomics += c.atomics;
      rec.timed.gets += c.gets;
      rec.timed.puts += c.puts;
      rec.timed.flushes += c.flushes;
      rec.timed.bytes += c.bytes;
    }
    ++taken;
  }
  window.add(kVictim, kDone, 1, untimed);
  window.flush(kVictim, untimed);
  return rec;
}

StealBenchResult summarize(ThiefRecord& rec, std::size_t stride) {
  StealBenchResult r;
  std::vector<double>& t = rec.seconds;
  const double n = static_cast<double>(t.size());
  r.steals = t.size();
  r.failed_attempts = rec.failed;
  r.bad_tasks = rec.bad;
  r.stride = stride;
  r.mean_s = std::accumulate(t.begin(), t.end(), 0.0) / n;
  std::sort(t.begin(), t.end());
  r.median_s = t.size() % 2 == 1 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
  r.p99_s = t[std::min(t.size() - 1, t.size() * 99 / 100)];
  r.min_s = t.front();
  r.max_s = t.back();
  r.comms_per_steal = static_cast<double>(rec.timed.atomics + rec.timed.gets + rec.timed.puts) / n;
  r.blocking_per_steal = static_cast<double>(rec.timed.flushes) / n;
  r.bytes_per_steal = static_cast<double>(rec.timed.bytes) / n;
  return r;
}

}  // namespace

std::size_t steal_bench_stride(std::size_t payload) noexcept { return task::slot_stride(payload); }

StealBenchResult run_steal_bench(MpiSession& session, const StealBenchConfig& config) {
  if (session.size() < 2) throw std::invalid_argument("stealbench: run with mpirun -n 2");
  if (config.payload < 8 || config.payload > kMaxPayload)
    throw std::invalid_argument("stealbench: payload must be in [8, 65536] bytes");
  if (config.warmup < 0) throw std::invalid_argument("stealbench: warmup must be >= 0");
  if (config.steals < 1) throw std::invalid_argument("stealbench: steals must be >= 1");
  if (config.ring_slots < 2 || config.ring_slots > 4096)
    throw std::invalid_argument("stealbench: ring slots must be in [2, 4096]");

  const int rank = session.rank();
  const std::size_t stride = steal_bench_stride(config.payload);
  const WindowLayout layout(config.ring_slots, stride, /*inbox_slots=*/1, /*inbox_entry=*/16);
  RmaWindow window(session.comm(), layout.bytes(), session.serialized(), /*delay_us=*/0, /*seed=*/1);
  std::unique_ptr<StealProtocol> queue = make_queue(config, window, layout, rank, session.size());

  StealBenchResult result;
  try {
    if (rank == kVictim) run_owner(window, *queue, stride, config.busy_victim);
    if (rank == kThief) {
      ThiefRecord rec = run_thief(window, *queue, stride, config);
      result = summarize(rec, stride);
    }
  } catch (const std::exception& e) {
    // The other ranks wait in a collective or a polling loop for this one.
    std::fprintf(stderr, "heist: stealbench failed on rank %d: %s\n", rank, e.what());
    MPI_Abort(session.comm(), 1);
  }
  check(MPI_Bcast(&result, sizeof result, MPI_BYTE, kThief, session.comm()), "MPI_Bcast (stealbench result)");
  return result;  // the window is freed (collectively) on the way out
}

}  // namespace heist::rma
