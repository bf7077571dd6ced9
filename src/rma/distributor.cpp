#include "rma/distributor.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

#include <unistd.h>

#include "rma/machine_map.hpp"
#include "rma/received_checks.hpp"
#include "rma/sdc_queue.hpp"
#include "rma/sws_queue.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "task/task_slot.hpp"

namespace heist::rma {

namespace {

using task::GlobalRef;

// An inbox entry carries the task header's references, the output and, when
// the task threw, its message (at least 256 bytes of room for that).
std::size_t inbox_entry_bytes(const Options& o) {
  const std::size_t payload = std::max<std::size_t>(o.task_input_bytes, 256);
  return (sizeof(InboxEntryHeader) + payload + 15) / 16 * 16;
}

// The window's size, agreed by every rank (collective): an OptionError on
// every rank if it exceeds some rank's physical memory, rather than a
// failed or overcommitted allocation on some ranks only.
std::size_t agreed_window_bytes(MPI_Comm comm, const WindowLayout& layout, const Options& o) {
  const std::size_t bytes = layout.bytes();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory =
      pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  int too_big = memory != 0 && bytes > memory ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &too_big, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce (window size)");
  if (too_big != 0)
    throw OptionError("--public-queue-slots " + std::to_string(o.public_queue_slots) + " x --task-input-bytes " +
                      std::to_string(o.task_input_bytes) + " (plus --inbox-slots " + std::to_string(o.inbox_slots) +
                      ", --mailbox-slots " + std::to_string(o.mailbox_slots) + "): the public queue window needs " +
                      std::to_string(bytes) + " bytes per rank, more than the physical memory of " +
                      (memory != 0 && bytes > memory ? "this node (" + std::to_string(memory) + " bytes)"
                                                     : "another rank's node"));
  return bytes;
}

std::unique_ptr<StealProtocol> make_protocol(const Options& o, RmaWindow& w, const WindowLayout& layout, int rank,
                                             int ranks, int workers) {
  if (o.protocol == StealProtocolKind::sdc) return std::make_unique<SdcQueue>(w, layout, rank, o.chunk);
  return std::make_unique<SwsQueue>(w, layout, rank, ranks, workers, static_cast<std::uint32_t>(o.sws_empty_threshold));
}

// The live task registry as the received-data checks see it.
class RegistryShapes final : public TaskShapes {
 public:
  explicit RegistryShapes(const task::TaskRegistry& registry) noexcept : registry_(registry) {}
  std::uint32_t size() const noexcept override { return registry_.size(); }
  TaskShape operator[](std::uint32_t id) const noexcept override {
    const task::TaskInfo& t = registry_[id];
    return {static_cast<std::uint32_t>(t.in_size), static_cast<std::uint32_t>(t.out_size), t.local_only};
  }

 private:
  const task::TaskRegistry& registry_;
};

constexpr std::int64_t kDoneCheckNs = 20'000;  // how often worker 0 reads rank 0's termination count

}  // namespace


Distributor::Distributor(MpiSession& session, sched::Scheduler& scheduler)
    : sched_(scheduler),
      session_(session),
      comm_(session.comm()),
      rank_(session.rank()),
      ranks_(session.size()),
      stride_(scheduler.stride()),
      layout_(scheduler.options().public_queue_slots, scheduler.stride(), scheduler.options().inbox_slots,
              inbox_entry_bytes(scheduler.options()), static_cast<std::size_t>(session.size()),
              scheduler.options().mailbox_slots),
      window_(session.comm(), agreed_window_bytes(session.comm(), layout_, scheduler.options()),
              session.serialized(), scheduler.options().rma_delay_us,
              scheduler.options().seed * 7919 + static_cast<std::uint64_t>(session.rank())),
      protocol_(make_protocol(scheduler.options(), window_, layout_, rank_, ranks_, scheduler.size())),
      inbox_(window_, layout_, rank_, ranks_),
      mailbox_(window_, layout_, rank_),
      reacquire_delay_ns_(std::int64_t{scheduler.options().reacquire_delay_us} * 1000),
      per_worker_(static_cast<std::size_t>(scheduler.size())),
      chunk_(scheduler.options().chunk),
      progress_period_us_(scheduler.options().progress_interval_us) {
  const Options& o = scheduler.options();
  if (session.thread_level() < MPI_THREAD_SERIALIZED && (scheduler.size() > 1 || o.progress == ProgressMode::thread))
    throw DistError("heist: the MPI library granted only " + thread_level_name(session.thread_level()) +
                    "; several workers per process (or --progress thread) need MPI_THREAD_SERIALIZED or better; "
                    "run one worker per rank (--workers 1)");
  if (ranks_ > static_cast<int>(task::GlobalRef::kMaxRank) + 1)
    throw DistError("heist: at most 65536 ranks (GlobalRef holds a 16-bit rank)");
  for (std::size_t i = 0; i < per_worker_.size(); ++i) {
    per_worker_[i].rng.reseed(o.seed * 1'000'003 + static_cast<std::uint64_t>(rank_) * 4099 + i);
    per_worker_[i].buffer.reserve(stride_ * 64);
  }
  check_same_program(session);
  // The machine: nodes (real or virtual), every rank's workers, the delay
  // before operations that cross a node boundary.
  nodes_ = node_of_ranks(comm_, o.ranks_per_node);
  std::vector<char> far(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r)
    far[static_cast<std::size_t>(r)] = nodes_[static_cast<std::size_t>(r)] != nodes_[static_cast<std::size_t>(rank_)];
  window_.set_inter_node_delay(std::move(far), o.inter_node_delay_us);
  const std::vector<sched::RankSites> sites = gather_sites(comm_, scheduler.sites(), nodes_);
  int base = 0;
  for (int r = 0; r < rank_; ++r) base += static_cast<int>(sites[static_cast<std::size_t>(r)].workers.size());
  scheduler.set_topology(sched::build_topology(sites), base);
  setup_locality();
  if (o.progress == ProgressMode::thread) progress_ = std::thread([this] { progress_loop(); });
}

Distributor::~Distributor() {
  stop_progress_.store(true, std::memory_order_relaxed);
  if (progress_.joinable()) progress_.join();
  // Every rank reaches here (Runtime destruction is collective); window_ frees in its destructor.
  MPI_Barrier(comm_);
}

void Distributor::check_same_program(MpiSession& session) {
  // What every rank must agree on: the task registry (ids name the same
  // functions) and the options that shape the window and the slots.
  const Options& o = sched_.options();
  constexpr int kChecks = 6;
  const std::uint64_t mine[kChecks] = {
      sched_.registry().hash(),
      stride_,
      (std::uint64_t{o.public_queue_slots} << 32) ^ o.inbox_slots ^ (std::uint64_t{o.mailbox_slots} << 12),
      static_cast<std::uint64_t>(o.protocol),
      static_cast<std::uint64_t>(o.ranks_per_node),
      static_cast<std::uint64_t>(o.victim.kind) | static_cast<std::uint64_t>(o.balance) << 8};
  std::vector<std::uint64_t> all(kChecks * static_cast<std::size_t>(ranks_));
  check(MPI_Allgather(mine, kChecks, MPI_UINT64_T, all.data(), kChecks, MPI_UINT64_T, session.comm()),
        "MPI_Allgather (start-up check)");
  static const char* const what[kChecks] = {
      "task registry (a different binary, or tasks registered in another order)",
      "task slot size (--task-input-bytes)", "public queue or inbox size (--public-queue-slots, --inbox-slots)",
      "steal protocol (--protocol)", "virtual nodes (--ranks-per-node)",
      "victim selection or balancing (--victim, --balance)"};
  for (int r = 1; r < ranks_; ++r)
    for (int k = 0; k < kChecks; ++k)
      if (all[static_cast<std::size_t>(r) * kChecks + static_cast<std::size_t>(k)] != all[static_cast<std::size_t>(k)])
        throw DistError("heist: rank " + std::to_string(r) + " differs from rank 0 in its " + what[k] +
                        "; every rank must run the same program with the same options");
}

// ---------------------------------------------------------------- regions

void Distributor::begin_region() {
  session_.set_in_region(true);
  ++generation_;
  reported_ = false;
  done_check_.reset();
  active_.store(true, std::memory_order_relaxed);  // read by this process's workers, which start after activate()
}

void Distributor::end_region() {
  active_.store(false, std::memory_order_relaxed);
  or_abort([&] {
    CommCounters& c = per_worker_[0].comm;
    window_.flush_all(c);
    ++c.flushes;
    check(MPI_Barrier(comm_), "MPI_Barrier (end of a distributed region)");
  });
  session_.set_in_region(false);
}

std::exception_ptr Distributor::agree_on_error(std::exception_ptr mine) {
  std::string text;
  if (mine) {
    try {
      std::rethrow_exception(mine);
    } catch (const std::exception& e) {
      text = e.what();
    } catch (...) {
      text = "a task threw a non-standard exception";
    }
    text = text.substr(0, 1000);
    if (text.empty()) text = "a task threw an exception without a message";
  }
  const int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<std::size_t>(ranks_));
  check(MPI_Allgather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, comm_), "MPI_Allgather (task errors)");
  std::vector<int> offsets(static_cast<std::size_t>(ranks_), 0);
  int total = 0;
  for (int r = 0; r < ranks_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += lengths[static_cast<std::size_t>(r)];
  }
  if (total == 0) return nullptr;
  std::string all(static_cast<std::size_t>(total), '\0');
  check(MPI_Allgatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, comm_),
        "MPI_Allgatherv (task errors)");
  if (mine) return mine;
  for (int r = 0; r < ranks_; ++r)
    if (const int n = lengths[static_cast<std::size_t>(r)]; n > 0)
      return std::make_exception_ptr(std::runtime_error(
          "heist: rank " + std::to_string(r) + ": " +
          all.substr(static_cast<std::size_t>(offsets[static_cast<std::size_t>(r)]), static_cast<std::size_t>(n))));
  return nullptr;
}

bool Distributor::region_done(sched::Worker& w) {
  return or_abort([&]() -> bool {
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    if (!reported_) {
      flush_pending(p);
      window_.fetch_add_sync(0, WindowLayout::kRegionsDone, 1, p.comm);
      reported_ = true;
    }
    if (!done_check_.due(platform::now_ns(), kDoneCheckNs)) return false;
    return policy::PollPlan::region_over(window_.read_sync(0, WindowLayout::kRegionsDone, p.comm), ranks_, generation_);
  });
}

// ---------------------------------------------------------------- owner side

void Distributor::poll(sched::Worker& w) {
  or_abort([&] {
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    flush_pending(p);
    drain_inbox(w, p);
    p.load.store(policy::worker_load(w.queued(), !w.searching()), std::memory_order_relaxed);
    std::unique_lock<std::mutex> lock(owner_, std::try_to_lock);
    if (!lock.owns_lock()) return;
    if (plan_.drains_mailbox()) answer_doorbell(w, p);
    if (plan_.locality().success_only) {
      const std::uint32_t load = process_load();
      if (plan_.publish_at_poll(load, published_)) publish_load(p, load);
    }
    if (plan_.locality().push) push_step(w, p);
    if (!plan_.watches_public_queue() || !protocol_->dry(p.comm)) return;
    const bool asked = protocol_->asked();
    const policy::DryStep dry = policy::PollPlan::on_dry(asked, w.queued());
    if (dry.want_work) w.want_work();  // queue work at the next spawn; the next poll releases it
    if (!dry.release) return;
    const std::uint32_t released = release_from(w, p);
    const policy::ReleaseStep after = policy::PollPlan::after_release(released, asked, protocol_->room());
    if (after.reserve) reserved_until_ns_.store(platform::now_ns() + reacquire_delay_ns_, std::memory_order_relaxed);
    // Nothing that may leave the process (only closures, and continuations
    // under work-first): as with an empty deque, queue work at the next spawn.
    if (after.want_work) w.want_work();
  });
}

std::uint32_t Distributor::release_from(sched::Worker& w, PerWorker& p) {
  const std::uint32_t offer = plan_.offer(protocol_->room(), w.queued());
  if (offer == 0) return 0;
  p.buffer.clear();
  const std::uint32_t n = w.take_oldest(offer, p.buffer, max_output());
  if (n == 0) return 0;
  std::vector<std::byte> returned;
  protocol_->release(p.buffer.data(), n, returned, p.comm);
  ++w.stats_ref().public_releases;
  for (std::size_t at = 0; at < returned.size(); at += stride_) w.accept_stolen(returned.data() + at);
  return n;
}

void Distributor::drain_inbox(sched::Worker& w, PerWorker& p) {
  const std::size_t applied =
      inbox_.drain(p.comm, [&](const InboxEntryHeader& h, const std::byte* out, std::string_view error) {
        w.finish_foreign(GlobalRef::from_bits(h.completion), GlobalRef::from_bits(h.sync),
                         GlobalRef::from_bits(h.out), out, h.out_size, error);
      });
  w.stats_ref().completions_applied += applied;
}

void Distributor::flush_pending(PerWorker& p) {
  if (p.pending_target < 0) return;
  window_.flush(p.pending_target, p.comm);
  --p.comm.flushes;  // not a protocol round trip: counted apart
  ++p.comm.lazy_flushes;
  p.pending_target = -1;
}

// ---------------------------------------------------------------- thief side

std::uint32_t Distributor::reclaim(sched::Worker& w) {
  return or_abort([&]() -> std::uint32_t {
    // Tasks this process offered and nobody took, unless they are still
    // reserved for the thief of another rank that asked for them.
    if (!policy::PollPlan::may_reclaim(protocol_->offering(), platform::now_ns(),
                                       reserved_until_ns_.load(std::memory_order_relaxed)))
      return 0;
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    std::unique_lock<std::mutex> lock(owner_, std::try_to_lock);
    if (!lock.owns_lock()) return 0;
    flush_pending(p);
    p.buffer.clear();
    const std::uint32_t n = protocol_->acquire(p.buffer, p.comm);
    lock.unlock();
    if (n == 0) return 0;
    w.stats_ref().public_acquires += n;
    return accept(w, p.buffer.data(), n, rank_);
  });
}

sched::StealOutcome Distributor::steal(sched::Worker& w, int victim, policy::Level level) {
  return or_abort([&]() -> sched::StealOutcome {
    // --remote-steal sequential: one worker of the process at a time (relaxed:
    // the token guards no data, see distributor_locality.cpp).
    const bool sequential = sched_.options().remote_steal == RemoteStealMode::sequential;
    if (sequential && remote_busy_.exchange(true, std::memory_order_relaxed)) return {};
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    flush_pending(p);
    WorkerStats& s = w.stats_ref();
    ++s.remote_steal_attempts;
    p.buffer.clear();
    const std::int64_t traced_from = w.trace() ? platform::now_ns() : 0;
    const std::uint32_t n = protocol_->steal(victim, w.id(), level, p.buffer, p.comm);
    if (sequential) remote_busy_.store(false, std::memory_order_relaxed);
    if (n == 0) {
      ++s.remote_failed_steals;
      return {0, true};
    }
    p.pending_target = victim;  // the completion add is non-blocking
    ++s.remote_steals;
    s.remote_tasks_stolen += n;
    const std::uint32_t accepted = accept(w, p.buffer.data(), n, victim);
    if (w.trace()) [[unlikely]] w.trace_steal(traced_from, victim, trace::kPublicQueueTrack, n);
    return {accepted, true};
  });
}

std::uint32_t Distributor::accept(sched::Worker& w, const std::byte* slots, std::size_t count, int from) {
  const RegistryShapes shapes(sched_.registry());
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* slot = slots + i * stride_;
    const std::string bad = check_task_descriptor(std::span<const std::byte>(slot, stride_), shapes,
                                                  static_cast<std::uint32_t>(ranks_), max_output());
    if (!bad.empty())
      throw DistError("heist: rank " + std::to_string(rank_) + " received from rank " + std::to_string(from) +
                      " a task descriptor with " + bad +
                      "; the ranks do not run the same program, or memory is corrupt");
    w.accept_stolen(slot);
  }
  return static_cast<std::uint32_t>(count);
}

void Distributor::send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out,
                                  std::size_t out_size, std::string_view error) {
  or_abort([&] {
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    flush_pending(p);
    InboxEntryHeader h{task.completion.bits(), task.out.bits(), task.sync.bits(), static_cast<std::uint32_t>(out_size), 0};
    inbox_.send(static_cast<int>(task.completion.rank()), h, out, error, p.comm, [&] {
      drain_inbox(w, p);  // two ranks sending to each other's full inboxes must not wait forever
      std::this_thread::yield();
    });
    ++w.stats_ref().completions_sent;
  });
}

// ---------------------------------------------------------------- progress thread

void Distributor::progress_loop() {
  const auto period = std::chrono::microseconds(progress_period_us_);
  while (!stop_progress_.load(std::memory_order_relaxed)) {
    if (region_active()) or_abort([&] { window_.poke_progress(comm_); });
    std::this_thread::sleep_for(period);
  }
}

// ---------------------------------------------------------------- statistics

void Distributor::add_counters(RunStats& stats) const {
  for (std::size_t i = 0; i < stats.workers.size() && i < per_worker_.size(); ++i) {
    per_worker_[i].comm.add_to(stats.workers[i]);
    stats.workers[i].rank = static_cast<std::uint32_t>(rank_);
    stats.workers[i].node = static_cast<std::uint32_t>(nodes_[static_cast<std::size_t>(rank_)]);
  }
  if (!stats.workers.empty()) progress_comm_.add_to(stats.workers[0]);
}

std::uint64_t Distributor::all_reduce(std::uint64_t value, bool max) const {
  std::uint64_t result = 0;
  check(MPI_Allreduce(&value, &result, 1, MPI_UINT64_T, max ? MPI_MAX : MPI_SUM, comm_), "MPI_Allreduce");
  return result;
}

void Distributor::reset_counters() noexcept {
  for (PerWorker& p : per_worker_) p.comm = CommCounters{};
}

RunStats Distributor::gather(const RunStats& local) const {
  static_assert(std::is_trivially_copyable_v<WorkerStats>);
  const int mine = static_cast<int>(local.workers.size() * sizeof(WorkerStats));
  std::vector<int> sizes(static_cast<std::size_t>(ranks_));
  check(MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, comm_), "MPI_Gather (statistics sizes)");
  std::vector<int> offsets(static_cast<std::size_t>(ranks_), 0);
  int total = 0;
  for (int r = 0; r < ranks_; ++r) {
    offsets[static_cast<std::size_t>(r)] = total;
    total += sizes[static_cast<std::size_t>(r)];
  }
  RunStats all;
  if (rank_ == 0) all.workers.resize(static_cast<std::size_t>(total) / sizeof(WorkerStats));
  check(MPI_Gatherv(local.workers.data(), mine, MPI_BYTE, all.workers.data(), sizes.data(), offsets.data(), MPI_BYTE, 0,
                    comm_),
        "MPI_Gatherv (statistics)");
  return rank_ == 0 ? all : local;
}

}  // namespace heist::rma
