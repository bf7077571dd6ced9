// Distributor: heist between processes — the RemoteWork the scheduler calls
// when the job has more than one rank. It owns the process's MPI window, its
// public queue (SdcQueue or SwsQueue behind StealProtocol), the completion
// inbox, distributed termination, the progress thread and the RMA counters.
//
// Public queue: the workers' deques are the private parts; the window holds
// the process's public part. When a poll finds it dry (every offered task
// taken), the polling worker moves the older half of its deque there
// (migratable tasks only: registered, not local-only, output small enough
// for a completion entry). An idle worker that found nothing in its own
// process first takes tasks back from that queue (acquire), then steals from
// a random other rank.
//
// Owner lock (`owner_`): one thread of the process at a time performs the
// queue's owner operations (dry/release/acquire); try-lock, since a worker
// that finds it busy has other work.
//
// Termination (Runtime::root / Runtime::pool): every rank runs a finish over
// what it seeds. A task that ran on another rank reports its completion only
// after its escaping descendants there are done (Worker::execute), so a
// rank's finish is drained exactly when every task it seeded, and every
// descendant, is done, and it never fills again. Each rank adds 1 to rank 0's
// regions_done word when its finish drains; the region ends on every rank
// when the word reaches ranks x generation (cumulative: never reset). Then
// the ranks stop their workers and meet in a barrier before anything else
// touches the windows. The termination model is models/termination.pml.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "dist/completion_inbox.hpp"
#include "dist/mpi_session.hpp"
#include "dist/rma_window.hpp"
#include "dist/steal_protocol.hpp"
#include "dist/window_layout.hpp"
#include "heist/options.hpp"
#include "heist/stats.hpp"
#include "platform/rng.hpp"
#include "sched/remote_work.hpp"

namespace heist::sched {
class Scheduler;
}

namespace heist::dist {

class Distributor final : public sched::RemoteWork {
 public:
  // Collective over the session's ranks: allocates the windows and checks
  // that every rank registered the same tasks with the same options.
  Distributor(MpiSession& session, sched::Scheduler& scheduler);
  ~Distributor() override;  // collective

  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return ranks_; }
  int window_model() const noexcept { return window_.model(); }

  // ---- regions (worker 0's thread) ----
  void begin_region();
  void end_region();  // after the workers stopped: flush, barrier

  // ---- sched::RemoteWork ----
  bool region_active() const noexcept override { return active_.load(std::memory_order_relaxed); }
  void poll(sched::Worker& w) override;
  std::uint32_t steal(sched::Worker& w) override;
  void send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out, std::size_t out_size,
                       std::string_view error) override;
  bool region_done(sched::Worker& w) override;

  // Adds the RMA counters to the workers' statistics (the progress thread's to worker 0's).
  void add_counters(RunStats& stats) const;
  void reset_counters() noexcept;
  // Gathers every rank's statistics on rank 0 (collective; other ranks get theirs back).
  RunStats gather(const RunStats& local) const;
  std::uint64_t all_reduce(std::uint64_t value, bool max) const;
  // Largest output a migratable task may have.
  std::size_t max_output() const noexcept { return inbox_.payload_capacity(); }

 private:
  struct alignas(64) PerWorker {
    CommCounters comm;
    platform::Rng rng;
    std::vector<std::byte> buffer;  // slots moving in or out
    int pending_target = -1;        // a non-blocking call awaits its flush
  };

  // Tasks released to the public queue (0: none may leave; the queue being full counts as 1).
  std::uint32_t release_from(sched::Worker& w, PerWorker& p);
  std::uint32_t accept(sched::Worker& w, PerWorker& p, int from);
  void flush_pending(PerWorker& p);
  void drain_inbox(sched::Worker& w, PerWorker& p);
  void check_same_program(MpiSession& session);
  void progress_loop();

  sched::Scheduler& sched_;
  MPI_Comm comm_;
  int rank_;
  int ranks_;
  std::size_t stride_;
  WindowLayout layout_;
  RmaWindow window_;
  std::unique_ptr<StealProtocol> protocol_;
  CompletionInbox inbox_;
  std::mutex owner_;
  std::vector<PerWorker> per_worker_;
  std::atomic<bool> active_{false};
  std::uint64_t generation_ = 0;
  bool reported_ = false;             // worker 0: this region's drain counted
  std::int64_t next_done_check_ns_ = 0;

  // Progress thread (--progress thread).
  int progress_period_us_;
  std::atomic<bool> stop_progress_{false};
  CommCounters progress_comm_;
  std::thread progress_;
};

}  // namespace heist::dist
