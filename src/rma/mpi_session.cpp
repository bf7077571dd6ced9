#include "rma/mpi_session.hpp"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "sched/process_balancer.hpp"

namespace heist::rma {

std::string mpi_error_text(int rc) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  if (MPI_Error_string(rc, text, &length) != MPI_SUCCESS) return "error code " + std::to_string(rc);
  return std::string(text, static_cast<std::size_t>(length));
}

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  throw DistError(std::string("heist: ") + what + " failed: " + mpi_error_text(rc));
}

void abort_job(MPI_Comm comm, int rank, const std::string& what) noexcept {
  const char* text = what.c_str();
  if (what.rfind("heist: ", 0) == 0) text += 7;  // most messages carry the prefix already
  std::fprintf(stderr, "heist: rank %d: %s\nheist: rank %d: aborting the job\n", rank, text, rank);
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::abort();  // MPI_Abort does not return; if it did, this process still ends
}

bool launched_by_mpi_launcher() noexcept {
  // OpenMPI (mpirun), MPICH/Hydra and Intel MPI (PMI), PMIx launchers, Slurm srun --mpi=pmi2/pmix.
  for (const char* variable : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMI_RANK", "PMIX_RANK", "MPI_LOCALNRANKS"})
    if (std::getenv(variable) != nullptr) return true;
  return false;
}

bool wants_mpi(const Options& options) noexcept {
  switch (options.mpi) {
    case MpiMode::off: return false;
    case MpiMode::on: return true;
    case MpiMode::automatic: {
      int initialized = 0;
      MPI_Initialized(&initialized);
      return initialized != 0 || launched_by_mpi_launcher();
    }
  }
  return false;
}

bool answers_roll_call_when_off() noexcept {
  int initialized = 0;
  MPI_Initialized(&initialized);
  return initialized == 0 && launched_by_mpi_launcher() && sched::launcher_job_size() > 1;
}

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    default: return "level " + std::to_string(level);
  }
}

namespace {
std::unique_ptr<MpiSession> g_session;
std::mutex g_session_mutex;

// srun starts every task itself and tells each its rank through the
// protocol its --mpi plugin names. An MPI library that does not speak that
// protocol (an MPICH built for Hydra's PMI under --mpi=pmix) starts each task
// as a world of one rank: N copies of the whole program, each of which
// "succeeds". Refused. Only tasks srun started directly are checked: under
// mpirun or mpiexec (OMPI_COMM_WORLD_SIZE, PMI_SIZE) inside an allocation,
// SLURM_STEP_NUM_TASKS counts the launcher's daemons, not the ranks.
void refuse_copies_under_srun(int world_size) {
  if (world_size != 1) return;
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (tasks == nullptr || std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr)
    return;
  const long count = std::strtol(tasks, nullptr, 10);
  if (count <= 1) return;
  const char* plugin = std::getenv("SLURM_MPI_TYPE");
  throw DistError("heist: srun started " + std::to_string(count) +
                  " tasks, but MPI sees a world of 1 rank: the MPI library does not speak the protocol of srun's "
                  "--mpi plugin (" + std::string(plugin != nullptr ? plugin : "unknown") +
                  "), so every task would run the whole program alone. OpenMPI: srun --mpi=pmix; MPICH built for "
                  "Hydra: srun --mpi=pmi2 (srun --mpi=list)");
}
}  // namespace

MpiSession& MpiSession::get(const Options& options) {
  std::lock_guard<std::mutex> lock(g_session_mutex);
  if (!g_session) {
    g_session.reset(new MpiSession(options));
    // After g_session is set: on a mismatch MPI is still finalised at exit.
    g_session->mismatch_ = g_session->roll_call(options.mpi == MpiMode::off);
  }
  if (!g_session->mismatch_.empty()) throw OptionError(g_session->mismatch_);
  return *g_session;
}

std::string MpiSession::roll_call(bool off) const {
  std::vector<int> all(static_cast<std::size_t>(size_));
  const int mine = off ? 1 : 0;
  check(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, comm_), "MPI_Allgather (start-up roll call)");
  std::string with, without;
  for (int r = 0; r < size_; ++r) {
    std::string& list = all[static_cast<std::size_t>(r)] != 0 ? with : without;
    list += (list.empty() ? "" : ", ") + std::to_string(r);
  }
  if (with.empty() || without.empty()) return "";
  return "heist: --mpi off (HEIST_MPI=off) on rank(s) " + with + " but not on rank(s) " + without +
         "; give it to every rank (each runs alone) or to none";
}

MpiSession::MpiSession(const Options& options) {
  int initialized = 0;
  check(MPI_Initialized(&initialized), "MPI_Initialized");
  const int wanted = options.mpi_thread_multiple ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
  if (initialized) {
    check(MPI_Query_thread(&provided_), "MPI_Query_thread");
  } else {
    check(MPI_Init_thread(nullptr, nullptr, wanted, &provided_), "MPI_Init_thread");
    owns_mpi_ = true;
    std::atexit(&MpiSession::finalize_at_exit);
  }
  // Use no more than asked: --mpi-threads serialized forces the lock.
  if (provided_ > wanted) provided_ = wanted;
  check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
  check(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(comm_, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(comm_, &size_), "MPI_Comm_size");
  refuse_copies_under_srun(size_);
  int length = 0;
  MPI_Get_library_version(library_, &length);
  for (char& c : library_)
    if (c == '\n' || c == ',') c = c == ',' ? ',' : ' ';
  if (char* end = std::strpbrk(library_, ",\n")) *end = '\0';  // first line / clause only
}

void MpiSession::finalize_at_exit() {
  if (!g_session || !g_session->owns_mpi_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) return;
  if (g_session->in_region_.load(std::memory_order_relaxed))
    abort_job(MPI_COMM_WORLD, g_session->rank_,
              "the process exits inside a distributed region (exit() called in a task?); the other ranks would "
              "wait for it forever");
  MPI_Comm_free(&g_session->comm_);
  MPI_Finalize();
}

}  // namespace heist::rma
