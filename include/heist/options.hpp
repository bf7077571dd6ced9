// heist runtime options: one typed struct, filled from defaults, then the
// HEIST_* environment, then the command line. Every option is listed (name,
// variable, flag, default, meaning) by `heist info` and in docs/options.md;
// the table that does it lives in src/api/option_table.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace heist {

// How `spawn`/`async` treat a new task (seed 000 §3, §5.1).
enum class SpawnPolicy {
  help_first,  // always queue the child; the parent continues
  work_first,  // always run the child inline inside spawn (HotSLAW's library meaning)
  bounded,     // help-first until the worker holds queue_bound tasks, then inline; with
               // queue_demand (default) a task is queued only when nothing of the worker
               // is public or a thief has asked for work, and published at once (lazy
               // task creation)
  slaw,        // SLAW's adaptive switch: F queued tasks -> inline, S inline frames -> queue, every INT spawns
};

// Levels of the machine hierarchy, bottom up, as indices into the per-level
// arrays below: 0 worker, 1 cache, 2 numa, 3 socket, 4 process, 5 node,
// 6 machine (heist::policy::Level; src/policy/topology.hpp).
inline constexpr int kHierarchyLevels = 7;

// How many tasks a thief takes from a victim (seed 000 §3.2.2).
struct ChunkSpec {
  enum class Kind {
    fixed,  // k at every level
    half,   // steal-half at every level
    hcs,    // Hierarchical Chunk Selection: k inside a node, half across nodes, unless `levels` says otherwise
  } kind = Kind::fixed;
  std::uint32_t k = 1;  // fixed: every level; hcs: the levels inside a node
  static constexpr std::uint32_t kHalf = 0xFFFFFFFFu;  // a per-level value: steal half
  // hcs: per-level values (a count, or kHalf), indexed by level; 0 = the default.
  std::array<std::uint32_t, kHierarchyLevels> levels{};
  bool operator==(const ChunkSpec&) const = default;
};

// Hierarchical Victim Selection (seed 000 §3.2.1): random attempts at each
// level before moving up, indexed by level (the worker entry is unused);
// 0 = the default: as many attempts as the thief's domain at that level has
// places, and 4 * ceil(log2 N) at the top level (N places in all).
struct HvsCounts {
  std::array<std::uint32_t, kHierarchyLevels> attempts{};
  bool operator==(const HvsCounts&) const = default;
};

// Which victim a thief tries next.
struct VictimSpec {
  enum class Kind {
    random,        // uniform over every other worker of the job
    hvs,           // Hierarchical Victim Selection: nearest levels first
    success_only,  // seed 003: HVS inside a node; across nodes only ranks that advertise work, by request
  } kind = Kind::hvs;
  HvsCounts hvs{};  // hvs and success-only (its levels inside a node)
  bool operator==(const VictimSpec&) const = default;
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
  int poll_period_us = 20;           // the spawn slow path polls at least this often; inline credits are paced to it
  int reacquire_delay_us = 100;      // tasks released because another rank asked stay reserved for thieves this long
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
// Parse "help-first" | "work-first" | "bounded" | "slaw"; throws OptionError.
SpawnPolicy parse_spawn_policy(const std::string& text);
const char* to_string(StealProtocolKind protocol) noexcept;
const char* to_string(MpiMode mode) noexcept;
const char* to_string(ProgressMode mode) noexcept;
// Parse "K" (K >= 1) or "half"; throws OptionError.
ChunkSpec parse_chunk(const std::string& text);

}  // namespace heist
