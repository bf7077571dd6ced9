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
// queue's owner operations (dry/release/acquire), and serves requests and
// pushes (below); try-lock, since a worker that finds it busy has other work.
//
// Locality (distributor_locality.cpp). The victim policy picks the rank and
// the level a thief meets it at; the chunk policy sizes SDC steals by that
// level, and SWS offers (a block of the steal-half sequence is at most
// half the offer, so offers are capped at 2k when every remote level asks
// for at most k). Success-only (HabaneroUPC++): every rank advertises its load
// (tasks queued, plus workers busy with a task) on a board at each node's
// first rank when it turns zero or non-zero; a thief reads its node's board
// (one RMA get), queues a request (MPI_SUM on the victim's requests[thief],
// then on its doorbell) at a rank of another node that advertises work, and
// the victim's next poll with tasks queued answers it through the thief's
// TaskMailbox (or queues its next spawn to answer with); a request is never
// declined, so an inter-node steal never fails. A poll reads one word, the
// doorbell, to learn of requests and deliveries. Push (Chameleon, PGAS-WS §3.2): every
// --push-interval-us a rank publishes its load, reads the board, plans with
// policy::plan_push and sends its share to the paired rank's mailbox.
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
//
// Errors: inside a region, anything that goes wrong in this layer (an MPI
// call fails, data from another rank fails received_checks.hpp, a protocol
// invariant breaks) ends the whole job through abort_job ("heist: rank R:
// ..." and MPI_Abort): an exception would unwind into the scheduler and
// leave the other ranks waiting for this rank's tasks forever. Task
// exceptions are the user's: they travel with completions and, at the end
// of the region, agree_on_error makes every rank throw.
#pragma once

#include <atomic>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "rma/completion_inbox.hpp"
#include "rma/mpi_session.hpp"
#include "rma/rma_window.hpp"
#include "rma/steal_protocol.hpp"
#include "rma/task_mailbox.hpp"
#include "rma/window_layout.hpp"
#include "heist/options.hpp"
#include "heist/stats.hpp"
#include "platform/rng.hpp"
#include "policy/chunk_policy.hpp"
#include "policy/push_balance.hpp"
#include "sched/remote_work.hpp"

namespace heist::sched {
class Scheduler;
}

namespace heist::rma {

class Distributor final : public sched::RemoteWork {
 public:
  // Collective over the session's ranks: allocates the windows and checks
  // that every rank registered the same tasks with the same options.
  Distributor(MpiSession& session, sched::Scheduler& scheduler);
  ~Distributor() override;  // collective

  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return ranks_; }
  int window_model() const noexcept { return window_.model(); }
  int node_of(int rank) const noexcept { return nodes_[static_cast<std::size_t>(rank)]; }

  // ---- regions (worker 0's thread) ----
  void begin_region();
  void end_region();  // after the workers stopped: flush, barrier
  // After end_region, collective: every rank learns whether a task failed
  // anywhere. Returns `mine` if set, else an exception carrying the message
  // of the lowest rank whose region recorded one ("heist: rank R: ..."), else null.
  std::exception_ptr agree_on_error(std::exception_ptr mine);

  // ---- sched::RemoteWork ----
  bool region_active() const noexcept override { return active_.load(std::memory_order_relaxed); }
  void poll(sched::Worker& w) override;
  std::uint32_t reclaim(sched::Worker& w) override;
  sched::StealOutcome steal(sched::Worker& w, int victim, policy::Level level) override;
  bool request(sched::Worker& w, policy::SearchDriver& search) override;
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
    std::vector<std::uint64_t> words;  // one word per rank: a copy of the board, or of the requests
    int pending_target = -1;        // a non-blocking call awaits its flush
    std::atomic<std::uint32_t> load{0};  // written by the worker at its polls, summed by the owner (relaxed: an estimate)
  };

  // Tasks released to the public queue (0: none may leave, or the queue is full).
  std::uint32_t release_from(sched::Worker& w, PerWorker& p);
  std::uint32_t accept(sched::Worker& w, const std::byte* slots, std::size_t count, int from);
  policy::Level level_of(int rank) const noexcept {
    return node_of(rank) == node_of(rank_) ? policy::Level::node : policy::Level::machine;
  }
  // ---- locality (distributor_locality.cpp) ----
  void setup_locality();
  std::uint32_t process_load() const noexcept;
  void publish_load(PerWorker& p, std::uint32_t load);
  void read_board(PerWorker& p);
  void answer_doorbell(sched::Worker& w, PerWorker& p);
  void serve_requests(sched::Worker& w, PerWorker& p);
  void push_step(sched::Worker& w, PerWorker& p);
  void drain_mailbox(sched::Worker& w, PerWorker& p);
  // Moves up to n of w's oldest migratable tasks to target's mailbox; false if none could go.
  bool send_tasks_to(int target, MailKind kind, PerWorker& p, sched::Worker& w, std::uint32_t n);
  void flush_pending(PerWorker& p);
  void drain_inbox(sched::Worker& w, PerWorker& p);
  void check_same_program(MpiSession& session);
  void progress_loop();
  // Inside a region an error on one rank ends the job (abort_job): the others
  // would wait for this rank forever. Runs f(), turning any exception into that.
  template <class F>
  auto or_abort(F&& f) noexcept -> decltype(f());

  sched::Scheduler& sched_;
  MpiSession& session_;
  MPI_Comm comm_;
  int rank_;
  int ranks_;
  std::vector<int> nodes_;  // [rank]: its node (real or virtual)
  std::size_t stride_;
  WindowLayout layout_;
  RmaWindow window_;
  std::unique_ptr<StealProtocol> protocol_;
  CompletionInbox inbox_;
  TaskMailbox mailbox_;
  std::mutex owner_;
  // Tasks released because a thief of another rank asked are reserved for
  // thieves until this time: this process's own idle workers do not take
  // them back before then (else a lazily created task offered to a waiting
  // rank goes back to its owner, idle in wait(), before the thief's next
  // attempt). Written under owner_, read without it: relaxed, a hint — a
  // stale value only shifts one re-acquire by a reservation period.
  std::atomic<std::int64_t> reserved_until_ns_{0};
  std::int64_t reacquire_delay_ns_;
  std::vector<PerWorker> per_worker_;

  // Locality (set up at construction, then read-only unless noted).
  policy::ChunkPolicy chunk_;
  bool success_only_ = false;
  bool push_ = false;
  bool one_sided_thieves_ = false;  // another rank may steal from this process's public queue
  std::uint32_t sws_offer_cap_ = 0;  // SWS: tasks per offer, at most (0: no cap)
  std::vector<int> board_hosts_;     // each node's first rank: it holds that node's board
  int board_host_ = 0;               // this rank's node's
  std::vector<std::atomic<bool>> requested_;       // [rank]: this process has a request queued there
  std::atomic<bool> remote_busy_{false};            // --remote-steal sequential: a worker steals from other ranks
  policy::PushThresholds push_thresholds_;
  // Owner lock:
  std::vector<std::uint64_t> served_;  // [rank]: its requests answered
  std::uint64_t doorbell_seen_ = 0;
  bool requests_waiting_ = false;      // a request could not be answered yet
  std::uint32_t published_ = 0xFFFFFFFFu;  // the load last advertised (none yet)
  std::int64_t next_push_ns_ = 0;
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

template <class F>
auto Distributor::or_abort(F&& f) noexcept -> decltype(f()) {
  try {
    return f();
  } catch (const std::exception& e) {
    abort_job(comm_, rank_, e.what());
  } catch (...) {
    abort_job(comm_, rank_, "a non-standard exception in the distributed layer");
  }
}

}  // namespace heist::rma
