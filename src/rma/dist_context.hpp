// DistContext: what the parts of rma::Distributor share — the process's MPI
// window and its layout, the completion inbox, the machine (ranks and their
// nodes), each worker's buffers and counters, the owner lock, the remote-steal
// token, and the intake of tasks from other ranks (checked, then queued).
//
// Threads and orderings:
//  * a PerWorker belongs to its worker's thread, except `load`: written by
//    the worker at its polls, summed by the owner-lock holder. Relaxed: it is
//    an estimate (an advertised load), no data is published through it.
//  * the owner lock: one thread of the process at a time performs the public
//    queue's owner operations (dry/release/acquire), serves requests and
//    pushes; try-lock, since a worker that finds it busy has other work. The
//    mutex orders everything done under it.
//  * RemoteToken (--remote-steal sequential): one worker of the process at a
//    time steals from other ranks. Relaxed: the token guards no data, every
//    buffer a remote steal uses is the stealing worker's own.
//  * everything else is set up by the constructor and set_machine (before any
//    worker starts) and read-only after.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string_view>
#include <vector>

#include "heist/stats.hpp"
#include "platform/rng.hpp"
#include "policy/locality_plan.hpp"
#include "rma/completion_inbox.hpp"
#include "task/global_ref.hpp"
#include "rma/mpi_session.hpp"
#include "rma/rma_window.hpp"
#include "rma/window_layout.hpp"

namespace heist::sched {
class Scheduler;
class Worker;
}  // namespace heist::sched
namespace heist::task {
struct TaskHeader;
}

namespace heist::rma {

struct alignas(64) PerWorker {
  CommCounters comm;
  platform::Rng rng;
  std::vector<std::byte> buffer;     // slots moving in or out
  std::vector<std::uint64_t> words;  // one word per rank: a copy of the board, or of the requests
  std::vector<int> pending_targets;  // non-blocking calls there await their flush (a lazy flush)
  int asked = -1;  // success-only: the rank this worker's last request went to (its own thread only)
  std::atomic<std::uint32_t> load{0};  // relaxed: see the top comment
};

class RemoteToken {
 public:
  bool try_take() noexcept { return !busy_.exchange(true, std::memory_order_relaxed); }
  void give_back() noexcept { busy_.store(false, std::memory_order_relaxed); }

 private:
  std::atomic<bool> busy_{false};
};

class DistContext {
 public:
  // Collective: agrees on the window's size and allocates it.
  DistContext(MpiSession& session, sched::Scheduler& scheduler);

  // The machine: every rank's node (collective, machine_map.hpp), and the
  // delay before operations that cross a node boundary.
  void set_machine(std::vector<int> nodes, int inter_node_delay_us);

  sched::Scheduler& sched() const noexcept { return sched_; }
  MPI_Comm comm() const noexcept { return comm_; }
  int rank() const noexcept { return rank_; }
  int ranks() const noexcept { return ranks_; }
  std::size_t stride() const noexcept { return stride_; }
  const WindowLayout& layout() const noexcept { return layout_; }
  RmaWindow& window() noexcept { return window_; }
  const RmaWindow& window() const noexcept { return window_; }
  const std::vector<int>& nodes() const noexcept { return nodes_; }
  int node_of(int rank) const noexcept { return nodes_[static_cast<std::size_t>(rank)]; }
  policy::Level level_of(int rank) const noexcept { return policy::rank_level(node_of(rank) == node_of(rank_)); }
  // Largest output a migratable task may have.
  std::size_t max_output() const noexcept { return inbox_.payload_capacity(); }

  PerWorker& of(const sched::Worker& w) noexcept;
  std::vector<PerWorker>& per_worker() noexcept { return per_worker_; }
  const std::vector<PerWorker>& per_worker() const noexcept { return per_worker_; }
  std::mutex& owner() noexcept { return owner_; }
  RemoteToken& remote_token() noexcept { return token_; }

  // Checks `count` task slots received from rank `from` and queues them on w.
  std::uint32_t accept(sched::Worker& w, const std::byte* slots, std::size_t count, int from);
  // Completes this worker's pending non-blocking calls (a lazy flush).
  void flush_pending(PerWorker& p);
  // A non-blocking call to target waits for flush_pending.
  static void defer_flush(PerWorker& p, int target) { p.pending_targets.push_back(target); }
  // Applies the completions other ranks sent of this process's tasks.
  // posted: the inbox's posted count if this poll read it already (StealProtocol::dry).
  void drain_inbox(sched::Worker& w, PerWorker& p, std::optional<std::uint64_t> posted = std::nullopt);
  void send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out, std::size_t out_size,
                       std::string_view error);
  // `count` escaping tasks of `origin`'s scope finished here (a foreign proxy's report).
  void send_report(sched::Worker& w, task::GlobalRef origin, std::uint32_t count, std::string_view error);

 private:
  sched::Scheduler& sched_;
  MPI_Comm comm_;
  int rank_;
  int ranks_;
  std::vector<int> nodes_;  // [rank]: its node (real or virtual)
  std::size_t stride_;
  WindowLayout layout_;
  RmaWindow window_;
  CompletionInbox inbox_;
  std::vector<PerWorker> per_worker_;
  void send_entry(sched::Worker& w, int target, const InboxEntryHeader& header, const void* out,
                  std::string_view error);
  std::mutex owner_;
  RemoteToken token_;
};

}  // namespace heist::rma
