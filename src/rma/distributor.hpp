// Distributor: heist between processes — the RemoteWork the scheduler calls
// when the job has more than one rank. A facade over its parts, one
// responsibility each:
//   DistContext     (dist_context.hpp)    the window, the completion inbox,
//                   the machine, per-worker buffers, the owner lock, intake
//                   of tasks from other ranks;
//   StealDispatch   (steal_dispatch.hpp)  the public queue (SWS or SDC):
//                   release, take-back, one-sided steals;
//   MailboxBalance  (mailbox_balance.hpp) success-only requests and answers,
//                   pushes, the load boards;
//   Regions         (regions.hpp)         a region's start, end, termination;
//   ProgressThread  (progress_thread.hpp) --progress thread;
//   rank_collectives.hpp                  start-up check, error agreement,
//                                         statistics.
// Every decision a poll takes is policy::PollPlan's (policy/poll_plan.hpp),
// set up once by policy::plan_locality; the simulator calls the same code.
//
// A poll (any worker, between tasks): flush this worker's lazy flush,
// record the worker's load; if the owner lock is free, the mailbox's part
// and the public queue's part; then apply the completions in the inbox
// (under SWS the public queue's read brought the inbox's posted count, so
// an idle poll makes one MPI call).
//
// Errors: inside a region, anything that goes wrong in this layer (an MPI
// call fails, data from another rank fails received_checks.hpp, a protocol
// invariant breaks) ends the whole job through abort_job ("heist: rank R:
// ..." and MPI_Abort; or_abort.hpp). Task exceptions are the user's: they
// travel with completions and, at the end of the region, agree_on_error
// makes every rank throw.
#pragma once

#include <exception>

#include "heist/options.hpp"
#include "heist/stats.hpp"
#include "policy/poll_plan.hpp"
#include "rma/dist_context.hpp"
#include "rma/mailbox_balance.hpp"
#include "rma/mpi_session.hpp"
#include "rma/progress_thread.hpp"
#include "rma/regions.hpp"
#include "rma/steal_dispatch.hpp"
#include "sched/process_balancer.hpp"
#include "sched/remote_work.hpp"

namespace heist::sched {
class Scheduler;
}

namespace heist::rma {

class Distributor final : public sched::RemoteWork {
 public:
  // Collective over the session's ranks: allocates the windows and checks
  // that every rank registered the same tasks with the same options.
  // Collective; throws OptionError on every rank when the ranks differ in
  // their program or `agreed` settings (rank_collectives.hpp).
  Distributor(MpiSession& session, sched::Scheduler& scheduler, const sched::AgreedSettings& agreed);
  ~Distributor() override;  // collective

  int rank() const noexcept { return ctx_.rank(); }
  int ranks() const noexcept { return ctx_.ranks(); }
  int window_model() const noexcept { return steals_.window_model(); }
  int node_of(int rank) const noexcept { return ctx_.node_of(rank); }

  // ---- regions (worker 0's thread) ----
  void begin_region();
  void end_region();  // after the workers stopped: flush, barrier
  // After end_region, collective: every rank learns whether a task failed
  // anywhere. Returns `mine` if set, else an exception carrying the message
  // of the lowest rank whose region recorded one ("heist: rank R: ..."), else null.
  std::exception_ptr agree_on_error(std::exception_ptr mine);

  // ---- sched::RemoteWork ----
  bool region_active() const noexcept override { return regions_.active(); }
  void poll(sched::Worker& w) override;
  std::uint32_t reclaim(sched::Worker& w) override;
  sched::StealOutcome steal(sched::Worker& w, int victim, policy::Level level) override;
  bool request(sched::Worker& w, policy::SearchDriver& search) override;
  bool awaits_answer(sched::Worker& w) override { return balance_.awaits_answer(w); }
  void send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out, std::size_t out_size,
                       std::string_view error) override;
  void send_report(sched::Worker& w, task::GlobalRef origin, std::uint32_t count, std::string_view error) override;
  bool region_done(sched::Worker& w) override;

  // Adds the RMA counters to the workers' statistics (the progress thread's to worker 0's).
  void add_counters(RunStats& stats) const;
  void reset_counters() noexcept;
  // Gathers every rank's statistics on rank 0 (collective; other ranks get theirs back).
  RunStats gather(const RunStats& local) const;
  std::uint64_t all_reduce(std::uint64_t value, bool max) const;
  // Largest output a migratable task may have.
  std::size_t max_output() const noexcept { return ctx_.max_output(); }

 private:
  DistContext ctx_;
  policy::PollPlan plan_;  // set up at construction, read-only after
  StealDispatch steals_;
  MailboxBalance balance_;
  Regions regions_;
  ProgressThread progress_;
};

}  // namespace heist::rma
