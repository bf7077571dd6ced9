#include "rma/distributor.hpp"

#include <mutex>
#include <optional>
#include <string>

#include "rma/machine_map.hpp"
#include "rma/or_abort.hpp"
#include "rma/rank_collectives.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"

namespace heist::rma {

Distributor::Distributor(MpiSession& session, sched::Scheduler& scheduler, const sched::AgreedSettings& agreed)
    : ctx_(session, scheduler),
      steals_(ctx_, plan_),
      balance_(ctx_, plan_),
      regions_(ctx_, session),
      progress_(ctx_, regions_) {
  const Options& o = scheduler.options();
  if (session.thread_level() < MPI_THREAD_SERIALIZED && (scheduler.size() > 1 || o.progress == ProgressMode::thread))
    throw DistError("heist: the MPI library granted only " + thread_level_name(session.thread_level()) +
                    "; several workers per process (or --progress thread) need MPI_THREAD_SERIALIZED or better; "
                    "run one worker per rank (--workers 1)");
  if (ctx_.ranks() > static_cast<int>(task::GlobalRef::kMaxRank) + 1)
    throw DistError("heist: at most 65536 ranks (GlobalRef holds a 16-bit rank)");
  check_same_program(ctx_.comm(), ctx_.ranks(), scheduler, ctx_.stride(), agreed);
  // The machine: nodes (real or virtual), every rank's workers, the delay
  // before operations that cross a node boundary.
  ctx_.set_machine(node_of_ranks(ctx_.comm(), o.ranks_per_node), o.inter_node_delay_us);
  const std::vector<sched::RankSites> sites = gather_sites(ctx_.comm(), scheduler.sites(), ctx_.nodes());
  int base = 0;
  for (int r = 0; r < ctx_.rank(); ++r) base += static_cast<int>(sites[static_cast<std::size_t>(r)].workers.size());
  scheduler.set_topology(sched::build_topology(sites), base);
  // Locality: who may steal one-sidedly from this process, the SWS offer cap.
  bool same_node_peers = false, other_nodes = false;
  for (int r = 0; r < ctx_.ranks(); ++r) {
    if (r == ctx_.rank()) continue;
    (ctx_.node_of(r) == ctx_.node_of(ctx_.rank()) ? same_node_peers : other_nodes) = true;
  }
  const policy::ChunkPolicy chunk(o.chunk);
  plan_ = policy::PollPlan(policy::plan_locality(o, chunk, same_node_peers, other_nodes), chunk, o.mailbox_slots,
                           static_cast<std::uint32_t>(ctx_.layout().answer_slots));
  balance_.set_up();
  if (o.progress == ProgressMode::thread) progress_.start(o.progress_interval_us);
}

Distributor::~Distributor() {
  progress_.stop();
  // Every rank reaches here (Runtime destruction is collective); the window frees in DistContext's destructor.
  MPI_Barrier(ctx_.comm());
}

// ---------------------------------------------------------------- regions

void Distributor::begin_region() { regions_.begin(); }

void Distributor::end_region() {
  or_abort(ctx_.comm(), ctx_.rank(), [&] { regions_.end(); });
}

std::exception_ptr Distributor::agree_on_error(std::exception_ptr mine) {
  return rma::agree_on_error(ctx_.comm(), ctx_.ranks(), std::move(mine));
}

bool Distributor::region_done(sched::Worker& w) {
  return or_abort(ctx_.comm(), ctx_.rank(), [&] { return regions_.done(w); });
}

// ---------------------------------------------------------------- RemoteWork

void Distributor::poll(sched::Worker& w) {
  or_abort(ctx_.comm(), ctx_.rank(), [&] {
    PerWorker& p = ctx_.of(w);
    ctx_.flush_pending(p);
    p.load.store(policy::worker_load(w.queued(), !w.searching()), std::memory_order_relaxed);
    std::optional<std::uint64_t> inbox_posted;  // read with the public queue's words (SWS)
    {
      std::unique_lock<std::mutex> lock(ctx_.owner(), std::try_to_lock);
      if (lock.owns_lock()) {
        balance_.on_poll(w, p);
        steals_.on_poll(w, p, inbox_posted);
      }
    }
    ctx_.drain_inbox(w, p, inbox_posted);
  });
}

std::uint32_t Distributor::reclaim(sched::Worker& w) {
  return or_abort(ctx_.comm(), ctx_.rank(), [&] { return steals_.reclaim(w); });
}

sched::StealOutcome Distributor::steal(sched::Worker& w, int victim, policy::Level level) {
  return or_abort(ctx_.comm(), ctx_.rank(), [&] { return steals_.steal(w, victim, level); });
}

bool Distributor::request(sched::Worker& w, policy::SearchDriver& search) {
  return or_abort(ctx_.comm(), ctx_.rank(), [&] { return balance_.request(w, search); });
}

void Distributor::send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out,
                                  std::size_t out_size, std::string_view error) {
  or_abort(ctx_.comm(), ctx_.rank(), [&] { ctx_.send_completion(w, task, out, out_size, error); });
}

void Distributor::send_report(sched::Worker& w, task::GlobalRef origin, std::uint32_t count, std::string_view error) {
  or_abort(ctx_.comm(), ctx_.rank(), [&] { ctx_.send_report(w, origin, count, error); });
}

// ---------------------------------------------------------------- statistics

void Distributor::add_counters(RunStats& stats) const {
  const std::vector<PerWorker>& per_worker = ctx_.per_worker();
  for (std::size_t i = 0; i < stats.workers.size() && i < per_worker.size(); ++i) {
    per_worker[i].comm.add_to(stats.workers[i]);
    stats.workers[i].rank = static_cast<std::uint32_t>(ctx_.rank());
    stats.workers[i].node = static_cast<std::uint32_t>(ctx_.node_of(ctx_.rank()));
  }
  if (!stats.workers.empty()) progress_.counters().add_to(stats.workers[0]);
}

void Distributor::reset_counters() noexcept {
  for (PerWorker& p : ctx_.per_worker()) p.comm = CommCounters{};
}

RunStats Distributor::gather(const RunStats& local) const {
  return gather_stats(ctx_.comm(), ctx_.rank(), ctx_.ranks(), local);
}

std::uint64_t Distributor::all_reduce(std::uint64_t value, bool max) const {
  return rma::all_reduce(ctx_.comm(), value, max);
}

}  // namespace heist::rma
