// libheist_mpi's registration: the sched::ProcessBalancer factory that gives
// heist::Runtime a Distributor when MPI is wanted and the job has several
// ranks (see sched/process_balancer.hpp for why this file is always linked).
#include <memory>

#include "rma/distributor.hpp"
#include "rma/mpi_session.hpp"
#include "sched/process_balancer.hpp"
#include "sched/scheduler.hpp"

// Referenced by include/heist/detail/mpi_link.h under HEIST_MPI_PLUGIN, so
// that a program linking heist::mpi links this file and runs its initialiser.
extern "C" {
extern const int heist_mpi_linked;
const int heist_mpi_linked = 1;
}

namespace heist::rma {
namespace {

class DistributorBalancer final : public sched::ProcessBalancer {
 public:
  DistributorBalancer(MpiSession& session, sched::Scheduler& scheduler, const sched::AgreedSettings& agreed)
      : distributor_(std::make_unique<Distributor>(session, scheduler, agreed)) {}

  Distributor& distributor() noexcept { return *distributor_; }
  int ranks() const noexcept override { return distributor_->ranks(); }
  void begin_region() override { distributor_->begin_region(); }
  void end_region() override { distributor_->end_region(); }
  std::exception_ptr agree_on_error(std::exception_ptr mine) override {
    return distributor_->agree_on_error(std::move(mine));
  }
  void add_counters(RunStats& stats) const override { distributor_->add_counters(stats); }
  void reset_counters() noexcept override { distributor_->reset_counters(); }
  RunStats gather(const RunStats& local) const override { return distributor_->gather(local); }
  std::uint64_t all_reduce(std::uint64_t value, bool max) const override {
    return distributor_->all_reduce(value, max);
  }

 private:
  std::unique_ptr<Distributor> distributor_;
};

std::unique_ptr<sched::ProcessBalancer> make_balancer(sched::Scheduler& scheduler,
                                                      const sched::AgreedSettings& agreed) {
  const Options& options = scheduler.options();
  const bool off = options.mpi == MpiMode::off;
  if (off ? !answers_roll_call_when_off() : !wants_mpi(options)) return nullptr;
  MpiSession& session = MpiSession::get(options);  // the roll call: throws when only some ranks are off
  if (off || session.size() <= 1) return nullptr;
  auto balancer = std::make_unique<DistributorBalancer>(session, scheduler, agreed);
  scheduler.attach_remote(&balancer->distributor(), session.rank());
  return balancer;
}

[[maybe_unused]] const bool registered = (sched::register_process_balancer(&make_balancer), true);

}  // namespace
}  // namespace heist::rma
