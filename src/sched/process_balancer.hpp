// ProcessBalancer: what the api layer (heist::Runtime) asks of the layer that
// moves tasks between processes (rma/, with MPI), declared here, below both,
// so that the single-process library (libheist: platform..sched + api) does
// not link rma. rma registers a factory (rma/mpi_plugin.cpp, in libheist_mpi,
// CMake target heist::mpi); without one a Runtime is one process, and asking
// for MPI (--mpi on, or a start by an MPI launcher with several processes)
// is an OptionError naming heist::mpi.
//
// Registration and linking: the factory is one function pointer, written by
// a static initialiser of libheist_mpi and read by Runtime's constructor;
// constant-initialised (null) and written before main, so there is no order
// to get wrong and no concurrent access. A static initialiser runs only if
// its object file is linked: heist::mpi carries the compile definition
// HEIST_MPI_PLUGIN, under which heist.hpp and heist.h reference
// heist_mpi_linked, a symbol of that same file (include/heist/detail/mpi_link.h),
// so neither a static archive nor --as-needed can leave it out.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "heist/stats.hpp"

namespace heist::sched {

class Scheduler;

class ProcessBalancer {
 public:
  virtual ~ProcessBalancer() = default;  // collective: every rank destroys its runtime

  virtual int ranks() const noexcept = 0;
  // Around Runtime::root / Runtime::pool on every rank; end_region after the
  // workers stopped. agree_on_error, collective after end_region: every rank
  // learns whether a task failed anywhere (null: none did).
  virtual void begin_region() = 0;
  virtual void end_region() = 0;
  virtual std::exception_ptr agree_on_error(std::exception_ptr mine) = 0;
  // Statistics: this process's between-process counters into `stats`;
  // gather is collective (rank 0 receives every rank's workers).
  virtual void add_counters(RunStats& stats) const = 0;
  virtual void reset_counters() noexcept = 0;
  virtual RunStats gather(const RunStats& local) const = 0;
  // Collective reduction over the ranks (sum, or max when `max`).
  virtual std::uint64_t all_reduce(std::uint64_t value, bool max) const = 0;
};

// What every rank must run with alike, as (name, value) texts: the options
// that are not per-rank and the program's arguments (the api layer, which
// owns the option table, lists them; Options::program_arguments).
using AgreedSettings = std::vector<std::pair<std::string, std::string>>;

// Makes the balancer for a runtime whose scheduler is `scheduler`, and
// attaches its hooks (Scheduler::attach_remote); null when the run is one
// process (MPI not wanted, or a job of one rank). Collective: every rank
// checks that the others run the same program with the same `agreed`.
using ProcessBalancerFactory = std::unique_ptr<ProcessBalancer> (*)(Scheduler& scheduler,
                                                                    const AgreedSettings& agreed);

// Set by libheist_mpi's static initialiser; null when it is not linked.
void register_process_balancer(ProcessBalancerFactory factory) noexcept;
ProcessBalancerFactory process_balancer_factory() noexcept;

// The number of processes an MPI launcher started this job with (its
// environment: OpenMPI, MPICH/Hydra and Intel MPI through PMI), or 0 when no launcher says.
int launcher_job_size() noexcept;

}  // namespace heist::sched
