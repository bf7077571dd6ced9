// heist runtime options: one typed struct, filled from defaults, then the
// HEIST_* environment, then the command line. Every option is listed (name,
// variable, flag, default, meaning) by `heist info` and in docs/options.md;
// the table that does it lives in src/api/option_table.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace heist {

// How `spawn`/`async` treat a new task (seed 000 §3, §5.1; seed 002 §4).
enum class SpawnPolicy {
  help_first,    // always queue the child; the parent continues
  inline_child,  // "inline": always run the child inside spawn (HotSLAW's library work-first);
                 // nothing of the parent is stealable while the child runs
  bounded,       // help-first until the worker holds queue_bound tasks, then inline; with
                 // queue_demand (default) a task is queued only when nothing of the worker
                 // is public or a thief has asked for work, and published at once (lazy
                 // task creation)
  slaw,          // SLAW's adaptive switch with inline children: F queued tasks -> inline,
                 // S inline frames -> queue, every INT spawns
  work_first,    // Cilk's and seed 002's work-first: the worker runs the child and leaves the
                 // parent's continuation stealable (continuation stealing on fibers)
  adaptive,      // SLAW's switch between help-first and work-first (continuation stealing):
                 // F queued tasks -> work-first, S stack frames -> help-first, every INT spawns
};

// Whether the runtime runs tasks on fibers, so that continuations can be
// stolen and waits suspend (docs/design/continuations.md).
enum class ContinuationMode {
  automatic,  // on when the run's policy is work-first or adaptive
  on,         // always (so finish scopes may choose work-first or adaptive)
  off,        // never: work-first and adaptive are refused
};

// How many tasks a thief takes from a victim's public queue.
struct ChunkSpec {
  enum class Kind { fixed, half } kind = Kind::fixed;
  std::uint32_t k = 1;  // for Kind::fixed
};

// The one-sided steal protocol between processes (seed 001).
enum class StealProtocolKind {
  sdc,  // Scioto split queues, deferred copies: lock, get, put, unlock, get tasks, completion
  sws,  // structured-atomic: one fetch-and-add claims a steal-half block, completion epochs
};

// Whether the runtime uses MPI.
enum class MpiMode {
  automatic,  // when launched by mpirun/srun (launcher variables set) or MPI is already initialised
  on,         // always (a plain start becomes an MPI singleton)
  off,        // never: threads of one process
};

// How a process keeps one-sided traffic moving while its workers compute
// (needed where RMA is not truly one-sided, e.g. osc pt2pt over TCP).
enum class ProgressMode {
  poll,    // workers poll between tasks and while idle (every --poll-interval tasks)
  thread,  // poll, plus a progress thread that calls into MPI every --progress-interval-us
  none,    // only idle workers poll
};

struct Options {
  int workers = 0;  // worker threads in this process, the calling thread included; 0 = one per core
  SpawnPolicy policy = SpawnPolicy::bounded;
  int queue_bound = 40;  // bounded: tasks a worker holds (queued or running) before it inlines
  bool queue_demand = true;  // bounded: also inline while no worker needs the task (see SpawnPolicy)
  ChunkSpec chunk{};     // tasks taken per steal inside a process
  int slaw_stack_frames = 64;  // SLAW S: inline frames after which spawns queue again
  int slaw_queue_tasks = 40;   // SLAW F: queued tasks after which spawns run inline
  int slaw_interval = 16;      // SLAW INT: spawns between re-evaluations
  ContinuationMode continuations = ContinuationMode::automatic;
  std::size_t fiber_stack_bytes = std::size_t{16} << 20;  // stack of each fiber (work-first, adaptive)
  int max_fibers = 1024;       // fiber stacks this process may create; past it spawns run inline, waits help
  int expose_depth = 4;        // work-first: spawns at inline depth <= this expose their continuation at once;
                               // deeper ones only when a thief has asked
  std::size_t task_input_bytes = 80;      // inline input capacity of a task slot
  std::size_t deque_initial_tasks = 1024; // initial slots per worker deque (it grows)
  std::size_t deque_max_tasks = std::size_t{1} << 22;  // growth limit; past it spawns run inline
  int max_help_depth = 128;   // nested helping-while-waiting levels before a waiter only runs its own tasks
  std::size_t worker_stack_bytes = std::size_t{16} << 20;  // stack of each worker thread
  std::uint64_t seed = 1;     // victim-selection RNG seed (worker i uses seed + i)

  // ---- between processes (MPI) ----
  MpiMode mpi = MpiMode::automatic;
  bool mpi_thread_multiple = true;  // request MPI_THREAD_MULTIPLE; false: serialize RMA through one lock
  StealProtocolKind protocol = StealProtocolKind::sws;
  ChunkSpec remote_chunk{ChunkSpec::Kind::half, 0};  // SDC: tasks a remote thief takes (SWS: steal-half blocks)
  std::size_t public_queue_slots = 4096;  // task slots of each process's public queue (MPI window)
  std::size_t inbox_slots = 1024;         // remote-completion entries a process can hold unread
  ProgressMode progress = ProgressMode::poll;
  int poll_interval = 32;            // tasks executed (or slow-path spawns) between polls
  int progress_interval_us = 100;    // progress thread period
  int sws_empty_threshold = 20;      // SWS damping: failed fetch-adds seen before a target is probed first
  int rma_delay_us = 0;              // debug: random delay in [0, this] before every RMA call

  // Defaults overridden by every HEIST_* variable that is set; throws
  // OptionError naming the variable when a value is invalid.
  static Options from_env();
  // Throws OptionError if any value is out of range.
  void validate() const;
};

class OptionError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

const char* to_string(SpawnPolicy policy) noexcept;
std::string to_string(const ChunkSpec& chunk);
// Parse "help-first" | "inline" | "bounded" | "slaw" | "work-first" | "adaptive";
// throws OptionError.
SpawnPolicy parse_spawn_policy(const std::string& text);
// True for the policies that steal continuations (work-first, adaptive).
constexpr bool steals_continuations(SpawnPolicy policy) noexcept {
  return policy == SpawnPolicy::work_first || policy == SpawnPolicy::adaptive;
}
// Does this run use fibers (Options::continuations, resolved against the policy)?
bool uses_continuations(const Options& options) noexcept;
const char* to_string(ContinuationMode mode) noexcept;
const char* to_string(StealProtocolKind protocol) noexcept;
const char* to_string(MpiMode mode) noexcept;
const char* to_string(ProgressMode mode) noexcept;
// Parse "K" (K >= 1) or "half"; throws OptionError.
ChunkSpec parse_chunk(const std::string& text);

}  // namespace heist
