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
#include <utility>
#include <vector>

namespace heist {

// How `spawn`/`async` treat a new task (HotSLAW §3, §5.1; HelpFirst §4).
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
  work_first,    // Cilk's and HelpFirst's work-first: the worker runs the child and leaves the
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

// Whether a wait whose tasks are still outstanding suspends its fiber (the
// worker goes on with any work, and the wait resumes on the worker that
// takes it once the last task completed) instead of helping on top of it,
// where the wait cannot resume before the task it helps with ends
// (docs/policies.md, "Suspending waits").
enum class SuspendWaits {
  automatic,  // under work-first and adaptive (their continuation engine's waits), and under every
              // policy when the run spans processes (unless --continuations off); else waits help
  on,         // under every policy; runs tasks on fibers (Options::continuations on)
};

// Levels of the machine hierarchy, bottom up, as indices into the per-level
// arrays below: 0 worker, 1 cache, 2 numa, 3 socket, 4 process, 5 node,
// 6 machine (heist::policy::Level; src/policy/topology.hpp).
inline constexpr int kHierarchyLevels = 7;

// How many tasks a thief takes from a victim (HotSLAW §3.2.2).
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

  // The runtime's default, "hcs:1,node=half": one task inside a process,
  // half from another process (of the same node or another).
  static ChunkSpec runtime_default() noexcept {
    ChunkSpec c;
    c.kind = Kind::hcs;
    c.k = 1;
    c.levels[5] = kHalf;
    return c;
  }
};

// Hierarchical Victim Selection (HotSLAW §3.2.1): random attempts at each
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
    success_only,  // HabaneroUPC++: HVS inside a node; across nodes only ranks that advertise work, by request
  } kind = Kind::hvs;
  HvsCounts hvs{};  // hvs and success-only (its levels inside a node)
  bool operator==(const VictimSpec&) const = default;
};

// How load moves between processes.
enum class BalanceMode {
  steal,  // idle workers steal from other ranks (the victim policy chooses them)
  push,   // Chameleon (PGAS-WS §3.2): ranks publish their load, overloaded ranks push tasks to
          // underloaded ones (sort-based pairing); workers steal only inside their process
};

// Who steals from other processes (PGAS-WS §5.1).
enum class RemoteStealMode {
  parallel,    // every idle worker steals for itself
  sequential,  // one worker of a process at a time steals (a chunk for all); the others keep stealing locally
};

// Chameleon's push thresholds (policy::PushThresholds; PGAS-WS §3.2).
struct PushOptions {
  std::uint32_t min_tasks = 2;      // a rank pushes only while it holds at least this many tasks
  std::uint32_t min_imbalance = 2;  // tasks between the paired loads, at least
  double min_ratio = 0.1;           // (from - to) / from, at least
  double share = 0.5;               // of the difference moved per transfer
  std::uint32_t max_tasks = 64;     // tasks per transfer, at most
  int interval_us = 500;            // how often a rank publishes its load and plans
  bool operator==(const PushOptions&) const = default;
};

// A user-defined hierarchy inside a process (HotSLAW §2.1, taskq_set_*):
// workers per cache group, per NUMA domain and per socket, worker i in group
// i / size. A set size is a multiple of every set size below it; 0 = not set
// (the level groups nothing beyond the level below). Nothing set: detected
// with hwloc.
struct HierarchySpec {
  std::uint32_t workers_per_cache = 0, workers_per_numa = 0, workers_per_socket = 0;
  bool defined() const noexcept { return workers_per_cache != 0 || workers_per_numa != 0 || workers_per_socket != 0; }
  bool operator==(const HierarchySpec&) const = default;
};

// Whether worker threads are bound to processing units (PUs).
enum class WorkerBinding {
  none,  // the OS places them (and may run two on one PU for a while)
  pus,   // worker i on the i-th PU of the process's CPU set (mod its size), in hwloc's
         // logical order where hwloc is built in; the creating thread (worker 0) gets
         // its own CPU set back when the Runtime ends
};

// What a worker waiting for its joined children (spawn + wait) may take
// (policy/help_floor.hpp). A task it takes runs nested on its stack, above
// the waiting frame, which cannot resume before that task ends: between
// processes a frame on the critical path stayed buried that way for most
// of a run (simulated fib across nodes). What other processes send, the
// process's own offer and the waits of finish scopes are never restricted.
enum class WaiterSteals {
  automatic,  // deeper when the run spans processes, any in one process
  deeper,     // from its process's workers only a chunk whose oldest task is deeper in the task tree
              // than the waiting frame; from other processes nothing, unless it waits at the root
              // or is its process's only worker
  any,        // whatever is public (HotSLAW's, and heist's until 2026-11-27)
};

// The one-sided steal protocol between processes (SWS).
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

// Fault injection (--kill-rank-after-ms R:MS): rank `rank` kills itself with
// SIGKILL `after_ms` milliseconds after its Runtime started (if the run is
// still going), to test that a dead rank ends the whole job.
struct FaultInjection {
  int rank = -1;  // -1: off
  int after_ms = 0;
  friend bool operator==(const FaultInjection&, const FaultInjection&) = default;
};

struct Options {
  int workers = 0;  // worker threads in this process, the calling thread included; 0 = one per core
  SpawnPolicy policy = SpawnPolicy::bounded;
  int queue_bound = 40;  // bounded: tasks a worker holds (queued or running) before it inlines
  bool queue_demand = true;  // bounded: also inline while no worker needs the task (see SpawnPolicy)
  int queued_levels = -1;    // bounded + demand: spawns of the first this-many task generations below a stolen
                             // (or root) task are queued, not inlined (a task's n-th queued child counts
                             // 1 + log2 n generations below it); -1 = from the run's workers (SpawnPolicy)
  // Count the inline spawns of bodies that take a Context (tasks_created,
  // tasks_inlined); off, they may take the store-free path (heist::Context)
  // and go uncounted.
  bool count_context_spawns = false;
  ChunkSpec chunk = ChunkSpec::runtime_default();  // tasks a thief takes, by level (processes and nodes included)
  VictimSpec victim{};   // which victim a thief tries next
  // success-only: tasks an answer carries, at most; 0 = auto (policy::answer_max_auto: 128 / the other ranks,
  // at least 8)
  std::uint32_t answer_max_tasks = 0;
  int slaw_stack_frames = 64;  // SLAW S: inline frames after which spawns queue again
  int slaw_queue_tasks = 40;   // SLAW F: queued tasks after which spawns run inline
  int slaw_interval = 16;      // SLAW INT: spawns between re-evaluations
  ContinuationMode continuations = ContinuationMode::automatic;
  SuspendWaits suspend_waits = SuspendWaits::automatic;  // whether a wait suspends its fiber or helps
  std::size_t fiber_stack_bytes = std::size_t{16} << 20;  // stack of each fiber (work-first, adaptive)
  int max_fibers = 1024;       // fiber stacks this process may create; past it spawns run inline, waits help
  int expose_depth = 4;        // work-first: spawns at inline depth <= this expose their continuation at once;
                               // deeper ones only when a thief has asked
  std::size_t task_input_bytes = 80;      // inline input capacity of a task slot
  std::size_t deque_initial_tasks = 1024; // initial slots per worker deque (it grows)
  std::size_t deque_max_tasks = std::size_t{1} << 22;  // growth limit; past it spawns run inline
  int max_help_depth = 128;   // nested helping-while-waiting levels before a waiter only runs its own tasks
  WaiterSteals waiter_steals = WaiterSteals::automatic;  // what a joined wait takes from its process's workers
  std::size_t worker_stack_bytes = std::size_t{16} << 20;  // stack of each worker thread
  std::uint64_t seed = 1;     // victim-selection RNG seed (worker i uses seed + i)
  HierarchySpec hierarchy{};  // user-defined levels inside a process (default: hwloc)
  WorkerBinding bind_workers = WorkerBinding::none;  // pin worker threads to PUs

  // ---- between processes (MPI) ----
  MpiMode mpi = MpiMode::automatic;
  bool mpi_thread_multiple = true;  // request MPI_THREAD_MULTIPLE; false: serialize RMA through one lock
  StealProtocolKind protocol = StealProtocolKind::sws;
  BalanceMode balance = BalanceMode::steal;
  RemoteStealMode remote_steal = RemoteStealMode::parallel;
  PushOptions push{};                  // --balance push
  std::size_t mailbox_slots = 1024;    // tasks other ranks can push to this process unread (--balance push)
  std::size_t public_queue_slots = 4096;  // task slots of each process's public queue (MPI window)
  std::size_t inbox_slots = 1024;         // remote-completion entries a process can hold unread (lanes: WindowLayout)
  ProgressMode progress = ProgressMode::poll;
  int poll_interval = 32;            // tasks executed (or slow-path spawns) between polls
  int progress_interval_us = 100;    // progress thread period
  int poll_period_us = 20;           // the spawn slow path polls at least this often; inline credits are paced to it
  int reacquire_delay_us = 100;      // tasks released because another rank asked stay reserved for thieves this long
  int sws_empty_threshold = 20;      // SWS damping: failed fetch-adds seen before a target is probed first
  int rma_delay_us = 0;              // debug: random delay in [0, this] before every RMA call
  FaultInjection kill_rank{};        // debug: rank kill_rank.rank SIGKILLs itself after .after_ms
  int ranks_per_node = 0;            // virtual nodes of this many consecutive ranks (0: the real nodes, MPI_COMM_TYPE_SHARED)
  int inter_node_delay_us = 0;       // added before every RMA operation whose target is on another (virtual) node

  // ---- trace (Chrome trace-event JSON; src/trace/trace_recorder.hpp) ----
  std::string trace_file;             // empty: no trace; under mpirun each rank adds ".rank<r>"
  int trace_min_us = 10;              // task spans shorter than this are not recorded
  int trace_queue_us = 100;           // queue-length samples at most this often per worker
  std::size_t trace_max_events = 1000000;  // per worker; later events are dropped (and reported)

  // ---- the program's own arguments (not runtime options) ----
  // Under mpirun the Runtime's constructor compares every rank's options
  // and these (name, value) pairs: a rank that differs from rank 0 ends
  // every rank there, with an OptionError naming the option or argument
  // and the ranks. Only the options that describe a process's own threads,
  // stacks, memory and trace may differ (OptionSpec::per_rank). `heist
  // bench` adds its app, the app's options and its own (--mode, --repeat,
  // ...); a program adds what its ranks must agree on, e.g. its argv with
  // add_program_arguments (argv[0], the program's path, is left out).
  std::vector<std::pair<std::string, std::string>> program_arguments;
  Options& add_program_arguments(int argc, const char* const* argv);

  // Defaults overridden by every HEIST_* variable that is set; throws
  // OptionError naming the variable when a value is invalid or empty, or
  // when a HEIST_* variable names no option (with the nearest name).
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
// Does this run use fibers (Options::continuations, resolved against the
// policy and suspend_waits)?
bool uses_continuations(const Options& options) noexcept;
const char* to_string(ContinuationMode mode) noexcept;
const char* to_string(SuspendWaits mode) noexcept;
const char* to_string(StealProtocolKind protocol) noexcept;
const char* to_string(MpiMode mode) noexcept;
const char* to_string(WaiterSteals mode) noexcept;
const char* to_string(ProgressMode mode) noexcept;
// Parse "K" (K >= 1), "half", or "hcs[:K][,LEVEL=K|half]..." (LEVEL: cache,
// numa, socket, process, node, machine); throws OptionError.
ChunkSpec parse_chunk(const std::string& text);
const char* to_string(VictimSpec::Kind kind) noexcept;
std::string to_string(const HvsCounts& counts);
// Parse "default" or "LEVEL=N,..." (attempts per level); throws OptionError.
HvsCounts parse_hvs_counts(const std::string& text);
const char* to_string(BalanceMode mode) noexcept;
const char* to_string(RemoteStealMode mode) noexcept;
const char* to_string(WorkerBinding binding) noexcept;
std::string to_string(const HierarchySpec& hierarchy);
// Parse "detect", or "cache=N,numa=N,socket=N" (any subset, workers per
// domain), or "@FILE" holding that text (# starts a comment; commas or
// whitespace separate items); throws OptionError.
HierarchySpec parse_hierarchy(const std::string& text);
std::string to_string(const FaultInjection& fault);
// Parse "R:MS" (rank R >= 0, MS >= 0) or "off"; throws OptionError.
FaultInjection parse_kill_rank(const std::string& text);

}  // namespace heist
