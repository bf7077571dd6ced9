// MpiSession: MPI for the runtime — initialised once per process (or adopted
// when the program initialised it), checked, and finalised at exit.
//
// * Launch detection (Options::mpi == automatic): MPI is used when a launcher
//   started the process (OpenMPI, MPICH/Hydra, PMI/PMIx, Slurm set their
//   variables) or the program already called MPI_Init; a plain start runs as
//   one process without MPI.
// * Thread level: MPI_THREAD_MULTIPLE is requested (every worker makes its own
//   RMA calls); with --mpi-threads serialized, or when the library grants only
//   MPI_THREAD_SERIALIZED, RMA calls go through one lock per process
//   (RmaWindow). A lower level is an error unless the process has one worker.
// * Roll call: the first collective after MPI_Init, on every rank, even one
//   given --mpi off (answers_roll_call_when_off): ranks that disagree on
//   --mpi off end with one message instead of waiting for each other.
// * Errors: MPI_ERRORS_RETURN on the runtime's communicator and windows; every
//   return code is checked (check()) and turned into a DistError naming the call.
#pragma once

#include <mpi.h>

#include <atomic>
#include <stdexcept>
#include <string>

#include "heist/options.hpp"

namespace heist::rma {

class DistError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws DistError("heist: <what> failed: <MPI error string>") unless rc == MPI_SUCCESS.
void check(int rc, const char* what);
// The MPI library's text for an error code.
std::string mpi_error_text(int rc);

// Ends the whole job: prints "heist: rank R: <what>" and "aborting the job" on
// stderr, then MPI_Abort(comm, 1). For an error one rank meets inside a
// distributed region: throwing would leave the other ranks waiting for its
// tasks, completions or termination count forever.
[[noreturn]] void abort_job(MPI_Comm comm, int rank, const std::string& what) noexcept;

// True when the process was started by an MPI launcher.
bool launched_by_mpi_launcher() noexcept;

// Whether `options` make this process use MPI (does not initialise it).
bool wants_mpi(const Options& options) noexcept;
// Whether a process with --mpi off still answers the start-up roll call
// (MpiSession): started by a launcher with several processes, MPI not
// initialised by the program. Then heist initialises MPI only to learn
// whether every rank was given --mpi off; a rank that runs alone while the
// others join MPI would leave them waiting at start-up forever.
bool answers_roll_call_when_off() noexcept;

class MpiSession {
 public:
  // Initialises MPI on first use (MPI_Init_thread), or adopts it, and takes
  // the roll call: every rank says whether it was given --mpi off. Throws
  // OptionError, on every rank and at every later call, when some were and
  // some were not.
  static MpiSession& get(const Options& options);

  MPI_Comm comm() const noexcept { return comm_; }  // a duplicate of MPI_COMM_WORLD
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  int thread_level() const noexcept { return provided_; }
  bool serialized() const noexcept { return provided_ < MPI_THREAD_MULTIPLE; }
  const char* library() const noexcept { return library_; }  // "Open MPI 4.1.4" etc.
  // Whether a distributed region is running (Distributor): a process that
  // exits then (exit() in a task) aborts the job instead of finalising MPI,
  // which would wait for the other ranks forever.
  void set_in_region(bool in_region) noexcept { in_region_.store(in_region, std::memory_order_relaxed); }

 private:
  explicit MpiSession(const Options& options);
  static void finalize_at_exit();
  // The roll call (collective on comm_): "" when every rank gave --mpi off
  // or none did, else the message naming them.
  std::string roll_call(bool off) const;

  std::string mismatch_;  // the roll call's message, thrown by every get()

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
  int provided_ = MPI_THREAD_SINGLE;
  bool owns_mpi_ = false;
  std::atomic<bool> in_region_{false};  // relaxed: read at exit, on whatever thread calls exit()
  char library_[MPI_MAX_LIBRARY_VERSION_STRING] = {};
};

std::string thread_level_name(int level);

}  // namespace heist::rma
