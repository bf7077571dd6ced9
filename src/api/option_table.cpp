#include "heist/option_table.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <string_view>
#include <vector>

#include <unistd.h>  // environ

namespace heist {

namespace {

std::string format_double(double value) {
  char buffer[32];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, end) : std::to_string(value);
}

template <class Int>
Int parse_int(const std::string& text, Int min, Int max, const char* flag) {
  std::uint64_t multiplier = 1;
  std::string digits = text;
  if (!digits.empty()) {
    switch (digits.back()) {
      case 'K': case 'k': multiplier = 1ull << 10; digits.pop_back(); break;
      case 'M': case 'm': multiplier = 1ull << 20; digits.pop_back(); break;
      case 'G': case 'g': multiplier = 1ull << 30; digits.pop_back(); break;
      default: break;
    }
  }
  long long value = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    throw OptionError(std::string(flag) + ": '" + text + "' is not an integer");
  const long double scaled = static_cast<long double>(value) * static_cast<long double>(multiplier);
  if (scaled < static_cast<long double>(min) || scaled > static_cast<long double>(max))
    throw OptionError(std::string(flag) + ": " + text + " is out of range [" + std::to_string(min) + ", " +
                      std::to_string(max) + "]");
  return static_cast<Int>(value * static_cast<long long>(multiplier));
}

double parse_double(const std::string& text, double min, double max, const char* flag) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    throw OptionError(std::string(flag) + ": '" + text + "' is not a number");
  if (!(value >= min && value <= max))
    throw OptionError(std::string(flag) + ": " + text + " is out of range [" + format_double(min) + ", " +
                      format_double(max) + "]");
  return value;
}

bool parse_on_off(const std::string& text, const char* flag) {
  if (text == "on" || text == "1" || text == "true") return true;
  if (text == "off" || text == "0" || text == "false") return false;
  throw OptionError(std::string(flag) + ": '" + text + "' is not on or off");
}

template <class E>
E parse_choice(const std::string& text, const char* flag, std::initializer_list<E> choices) {
  std::string names;
  for (E e : choices) {
    if (text == to_string(e)) return e;
    names += names.empty() ? "" : ", ";
    names += to_string(e);
  }
  throw OptionError(std::string(flag) + ": '" + text + "' is not one of " + names);
}

// Every range below is also what Options::validate() checks.
constexpr int kMaxWorkers = 4096;
// OptionSpec::simulated: the simulated workers of `heist sim` honour the option.
constexpr bool kSimulated = true;
// OptionSpec::per_rank: ranks may differ in it.
constexpr bool kPerRank = true;

const OptionSpec kTable[] = {
    {"workers", "HEIST_WORKERS", "--workers", "worker threads in this process (0: one per core)",
     [](const Options& o) { return std::to_string(o.workers); },
     [](Options& o, const std::string& v) { o.workers = parse_int(v, 0, kMaxWorkers, "--workers"); }, false, kPerRank},
    {"policy", "HEIST_POLICY", "--policy", "spawn policy: help-first, inline, bounded, slaw, work-first, adaptive",
     [](const Options& o) { return std::string(to_string(o.policy)); },
     [](Options& o, const std::string& v) { o.policy = parse_spawn_policy(v); }, kSimulated},
    {"queue_bound", "HEIST_QUEUE_BOUND", "--queue-bound", "bounded policy: tasks a worker holds (queued or running) before spawns run inline",
     [](const Options& o) { return std::to_string(o.queue_bound); },
     [](Options& o, const std::string& v) { o.queue_bound = parse_int(v, 1, 1 << 30, "--queue-bound"); }, kSimulated},
    {"queue_demand", "HEIST_QUEUE_DEMAND", "--queue-demand",
     "bounded: queue a task only while this worker has fewer public tasks than idle workers (at least one) or a thief asked (on|off)",
     [](const Options& o) { return std::string(o.queue_demand ? "on" : "off"); },
     [](Options& o, const std::string& v) { o.queue_demand = parse_on_off(v, "--queue-demand"); }, kSimulated},
    {"queued_levels", "HEIST_QUEUED_LEVELS", "--queued-levels",
     "bounded with --queue-demand on: spawns of the first N task generations below a stolen (or the root) task are "
     "queued, not run inline, so thieves find shallow work; a task's n-th queued child counts 1 + log2 n generations "
     "below it (N, or auto: 0 for 1 worker, 1 for 2 or 3; else 3 + log4 of a process's workers, one more with other "
     "processes, at least 3 + log4 of the processes and at least 4)",
     [](const Options& o) { return o.queued_levels < 0 ? std::string("auto") : std::to_string(o.queued_levels); },
     [](Options& o, const std::string& v) {
       o.queued_levels = v == "auto" ? -1 : parse_int(v, 0, 64, "--queued-levels");
     }, kSimulated},
    {"count_context_spawns", "HEIST_COUNT_CONTEXT_SPAWNS", "--count-context-spawns",
     "count the inline spawns of task bodies that take a heist::Context in tasks_created and tasks_inlined (on|off); "
     "off, such spawns in one process without continuations, under inline or bounded with --queue-demand on, run "
     "inline writing nothing, uncounted (stats: uncounted_grants)",
     [](const Options& o) { return std::string(o.count_context_spawns ? "on" : "off"); },
     [](Options& o, const std::string& v) { o.count_context_spawns = parse_on_off(v, "--count-context-spawns"); }},
    {"chunk", "HEIST_CHUNK", "--chunk",
     "tasks per steal, at every level: K, half, or hcs[:K] (K inside a node, half across nodes) with "
     "LEVEL=K|half overrides, e.g. hcs:2,node=half",
     [](const Options& o) { return to_string(o.chunk); },
     [](Options& o, const std::string& v) { o.chunk = parse_chunk(v); }, kSimulated},
    {"victim", "HEIST_VICTIM", "--victim",
     "victim selection: random, hvs (nearest levels first), success-only (across nodes only ranks that advertise "
     "work, by request)",
     [](const Options& o) { return std::string(to_string(o.victim.kind)); },
     [](Options& o, const std::string& v) {
       o.victim.kind = parse_choice(v, "--victim", {VictimSpec::Kind::random, VictimSpec::Kind::hvs,
                                                     VictimSpec::Kind::success_only});
     }, kSimulated},
    {"answer_max_tasks", "HEIST_ANSWER_MAX_TASKS", "--answer-max-tasks",
     "success-only: tasks one answer to a request carries, at most, of the half of its spare tasks a victim "
     "process shares among the requests it answers (N, or auto: 128 / the other ranks, at least 8; tasks that "
     "report back by themselves, joined or with an output, at most 4 either way)",
     [](const Options& o) { return o.answer_max_tasks == 0 ? std::string("auto") : std::to_string(o.answer_max_tasks); },
     [](Options& o, const std::string& v) {
       o.answer_max_tasks = v == "auto" ? 0 : parse_int<std::uint32_t>(v, 1, 1u << 20, "--answer-max-tasks");
     }, kSimulated},
    {"hvs_attempts", "HEIST_HVS_ATTEMPTS", "--hvs-attempts",
     "HVS attempts per level before moving up, e.g. process=4,machine=24 (default: the places of the domain; "
     "4 log2 N at the top)",
     [](const Options& o) { return to_string(o.victim.hvs); },
     [](Options& o, const std::string& v) { o.victim.hvs = parse_hvs_counts(v); }, kSimulated},
    {"slaw_stack_frames", "HEIST_SLAW_S", "--slaw-s", "SLAW S: inline frames after which spawns queue again",
     [](const Options& o) { return std::to_string(o.slaw_stack_frames); },
     [](Options& o, const std::string& v) { o.slaw_stack_frames = parse_int(v, 1, 1 << 20, "--slaw-s"); }, kSimulated},
    {"slaw_queue_tasks", "HEIST_SLAW_F", "--slaw-f", "SLAW F: queued tasks after which spawns run inline",
     [](const Options& o) { return std::to_string(o.slaw_queue_tasks); },
     [](Options& o, const std::string& v) { o.slaw_queue_tasks = parse_int(v, 1, 1 << 30, "--slaw-f"); }, kSimulated},
    {"slaw_interval", "HEIST_SLAW_INT", "--slaw-int", "SLAW INT: spawns between re-evaluations of the policy",
     [](const Options& o) { return std::to_string(o.slaw_interval); },
     [](Options& o, const std::string& v) { o.slaw_interval = parse_int(v, 1, 1 << 20, "--slaw-int"); }, kSimulated},
    {"continuations", "HEIST_CONTINUATIONS", "--continuations",
     "run tasks on fibers so continuations can be stolen and waits suspend: auto (for work-first, adaptive, "
     "and suspending waits), on, off (waits help; the simulator models only this effect)",
     [](const Options& o) { return std::string(to_string(o.continuations)); },
     [](Options& o, const std::string& v) {
       o.continuations = parse_choice(v, "--continuations",
                                      {ContinuationMode::automatic, ContinuationMode::on, ContinuationMode::off});
     }, kSimulated},
    {"suspend_waits", "HEIST_SUSPEND_WAITS", "--suspend-waits",
     "whether a wait whose tasks run elsewhere suspends its fiber (the worker goes on with any work) instead of "
     "helping on top of it: auto (under work-first and adaptive; under every policy when the run spans processes, "
     "unless --continuations off), on (every policy; runs tasks on fibers)",
     [](const Options& o) { return std::string(to_string(o.suspend_waits)); },
     [](Options& o, const std::string& v) {
       o.suspend_waits = parse_choice(v, "--suspend-waits", {SuspendWaits::automatic, SuspendWaits::on});
     }, kSimulated},
    {"fiber_stack_bytes", "HEIST_FIBER_STACK_BYTES", "--fiber-stack-bytes",
     "stack of each fiber (K/M/G suffixes); work-first recursion deeper than this fails with an error",
     [](const Options& o) { return std::to_string(o.fiber_stack_bytes); },
     [](Options& o, const std::string& v) {
       o.fiber_stack_bytes =
           parse_int<std::size_t>(v, std::size_t{256} << 10, std::size_t{1} << 34, "--fiber-stack-bytes");
     }, false, kPerRank},
    {"max_fibers", "HEIST_MAX_FIBERS", "--max-fibers",
     "fiber stacks a process may create; past it spawns run inline and waits help in place",
     [](const Options& o) { return std::to_string(o.max_fibers); },
     [](Options& o, const std::string& v) { o.max_fibers = parse_int(v, 2, 1 << 20, "--max-fibers"); }, false, kPerRank},
    {"expose_depth", "HEIST_EXPOSE_DEPTH", "--expose-depth",
     "work-first: spawns at inline depth <= this expose their continuation at once; deeper only when a thief asks",
     [](const Options& o) { return std::to_string(o.expose_depth); },
     [](Options& o, const std::string& v) { o.expose_depth = parse_int(v, 0, 1 << 20, "--expose-depth"); }},
    {"task_input_bytes", "HEIST_TASK_INPUT_BYTES", "--task-input-bytes",
     "input bytes a task slot holds inline (slot = 48 + this, rounded to 16)",
     [](const Options& o) { return std::to_string(o.task_input_bytes); },
     [](Options& o, const std::string& v) {
       o.task_input_bytes = parse_int<std::size_t>(v, 32, 65000, "--task-input-bytes");
     }, kSimulated},
    {"deque_initial_tasks", "HEIST_DEQUE_TASKS", "--deque-tasks", "initial task slots per worker deque",
     [](const Options& o) { return std::to_string(o.deque_initial_tasks); },
     [](Options& o, const std::string& v) {
       o.deque_initial_tasks = parse_int<std::size_t>(v, 2, std::size_t{1} << 30, "--deque-tasks");
     }, false, kPerRank},
    {"deque_max_tasks", "HEIST_DEQUE_MAX_TASKS", "--deque-max-tasks",
     "maximum task slots per worker deque; when full, spawns run inline (the deque grows past it when the stack is nearly full)",
     [](const Options& o) { return std::to_string(o.deque_max_tasks); },
     [](Options& o, const std::string& v) {
       o.deque_max_tasks = parse_int<std::size_t>(v, 2, std::size_t{1} << 31, "--deque-max-tasks");
     }, kSimulated, kPerRank},
    {"max_help_depth", "HEIST_MAX_HELP_DEPTH", "--max-help-depth",
     "nested waits after which a waiting worker stops stealing (stack bound)",
     [](const Options& o) { return std::to_string(o.max_help_depth); },
     [](Options& o, const std::string& v) { o.max_help_depth = parse_int(v, 1, 1 << 20, "--max-help-depth"); },
     kSimulated},
    {"waiter_steals", "HEIST_WAITER_STEALS", "--waiter-steals",
     "what a worker waiting for its joined children takes: auto (deeper when the run spans processes, else any), "
     "deeper (from its process's workers only tasks deeper in the task tree than its frame; from other processes "
     "nothing below the root unless it is its process's only worker), any",
     [](const Options& o) { return std::string(to_string(o.waiter_steals)); },
     [](Options& o, const std::string& v) {
       o.waiter_steals = parse_choice(v, "--waiter-steals", {WaiterSteals::automatic, WaiterSteals::deeper, WaiterSteals::any});
     }, kSimulated},
    {"worker_stack_bytes", "HEIST_STACK_BYTES", "--stack-bytes", "stack size of each worker thread (K/M/G suffixes)",
     [](const Options& o) { return std::to_string(o.worker_stack_bytes); },
     [](Options& o, const std::string& v) {
       o.worker_stack_bytes = parse_int<std::size_t>(v, std::size_t{64} << 10, std::size_t{1} << 34, "--stack-bytes");
     }, false, kPerRank},
    {"seed", "HEIST_SEED", "--seed", "seed of the victim-selection RNG",
     [](const Options& o) { return std::to_string(o.seed); },
     [](Options& o, const std::string& v) {
       o.seed = parse_int<std::uint64_t>(v, 0, std::uint64_t{1} << 62, "--seed");
     }, kSimulated},
    {"hierarchy", "HEIST_HIERARCHY", "--hierarchy",
     "levels inside a process: detect (hwloc), or workers per domain, e.g. cache=2,numa=4,socket=8, or @FILE",
     [](const Options& o) { return to_string(o.hierarchy); },
     [](Options& o, const std::string& v) { o.hierarchy = parse_hierarchy(v); }, false, kPerRank},
    {"bind_workers", "HEIST_BIND_WORKERS", "--bind-workers",
     "bind worker threads: none (the OS places them), or pus (worker i on the i-th PU of the process's CPU set)",
     [](const Options& o) { return std::string(to_string(o.bind_workers)); },
     [](Options& o, const std::string& v) {
       o.bind_workers = parse_choice(v, "--bind-workers", {WorkerBinding::none, WorkerBinding::pus});
     }, false, kPerRank},
    {"mpi", "HEIST_MPI", "--mpi", "use MPI: auto (when launched by mpirun/srun), on, off",
     [](const Options& o) { return std::string(to_string(o.mpi)); },
     [](Options& o, const std::string& v) { o.mpi = parse_choice(v, "--mpi", {MpiMode::automatic, MpiMode::on, MpiMode::off}); }},
    {"mpi_threads", "HEIST_MPI_THREADS", "--mpi-threads",
     "MPI thread level to request: multiple, or serialized (one RMA call at a time per process)",
     [](const Options& o) { return std::string(o.mpi_thread_multiple ? "multiple" : "serialized"); },
     [](Options& o, const std::string& v) {
       if (v == "multiple") o.mpi_thread_multiple = true;
       else if (v == "serialized") o.mpi_thread_multiple = false;
       else throw OptionError("--mpi-threads: '" + v + "' is not multiple or serialized");
     }},
    {"protocol", "HEIST_PROTOCOL", "--protocol", "steal protocol between processes: sws or sdc",
     [](const Options& o) { return std::string(to_string(o.protocol)); },
     [](Options& o, const std::string& v) {
       o.protocol = parse_choice(v, "--protocol", {StealProtocolKind::sws, StealProtocolKind::sdc});
     }, kSimulated},
    {"balance", "HEIST_BALANCE", "--balance",
     "load balancing between processes: steal, or push (Chameleon: overloaded ranks push to underloaded ones)",
     [](const Options& o) { return std::string(to_string(o.balance)); },
     [](Options& o, const std::string& v) {
       o.balance = parse_choice(v, "--balance", {BalanceMode::steal, BalanceMode::push});
     }, kSimulated},
    {"remote_steal", "HEIST_REMOTE_STEAL", "--remote-steal",
     "who steals from other processes: parallel (every idle worker) or sequential (one worker of a process at a time)",
     [](const Options& o) { return std::string(to_string(o.remote_steal)); },
     [](Options& o, const std::string& v) {
       o.remote_steal = parse_choice(v, "--remote-steal", {RemoteStealMode::parallel, RemoteStealMode::sequential});
     }, kSimulated},
    {"push_min_tasks", "HEIST_PUSH_MIN_TASKS", "--push-min-tasks", "push: a rank pushes only while it holds this many tasks",
     [](const Options& o) { return std::to_string(o.push.min_tasks); },
     [](Options& o, const std::string& v) { o.push.min_tasks = parse_int<std::uint32_t>(v, 1, 1u << 30, "--push-min-tasks"); }, kSimulated},
    {"push_min_imbalance", "HEIST_PUSH_MIN_IMBALANCE", "--push-min-imbalance",
     "push: tasks between a pair's loads before the heavier pushes",
     [](const Options& o) { return std::to_string(o.push.min_imbalance); },
     [](Options& o, const std::string& v) {
       o.push.min_imbalance = parse_int<std::uint32_t>(v, 1, 1u << 30, "--push-min-imbalance");
     }, kSimulated},
    {"push_min_ratio", "HEIST_PUSH_MIN_RATIO", "--push-min-ratio",
     "push: relative imbalance (from - to) / from before the heavier pushes, in [0, 1]",
     [](const Options& o) { return format_double(o.push.min_ratio); },
     [](Options& o, const std::string& v) { o.push.min_ratio = parse_double(v, 0.0, 1.0, "--push-min-ratio"); }, kSimulated},
    {"push_share", "HEIST_PUSH_SHARE", "--push-share", "push: share of a pair's difference moved, in (0, 1]",
     [](const Options& o) { return format_double(o.push.share); },
     [](Options& o, const std::string& v) { o.push.share = parse_double(v, 1e-6, 1.0, "--push-share"); }, kSimulated},
    {"push_max_tasks", "HEIST_PUSH_MAX_TASKS", "--push-max-tasks", "push: tasks per transfer, at most",
     [](const Options& o) { return std::to_string(o.push.max_tasks); },
     [](Options& o, const std::string& v) { o.push.max_tasks = parse_int<std::uint32_t>(v, 1, 1u << 20, "--push-max-tasks"); }, kSimulated},
    {"push_interval_us", "HEIST_PUSH_INTERVAL_US", "--push-interval-us",
     "push: how often a rank publishes its load and plans transfers, microseconds",
     [](const Options& o) { return std::to_string(o.push.interval_us); },
     [](Options& o, const std::string& v) { o.push.interval_us = parse_int(v, 1, 10000000, "--push-interval-us"); }, kSimulated},
    {"public_queue_slots", "HEIST_PUBLIC_QUEUE_SLOTS", "--public-queue-slots",
     "task slots in each process's public queue (MPI window)",
     [](const Options& o) { return std::to_string(o.public_queue_slots); },
     [](Options& o, const std::string& v) {
       o.public_queue_slots = parse_int<std::size_t>(v, 2, std::size_t{1} << 19, "--public-queue-slots");
     }, kSimulated},
    {"mailbox_slots", "HEIST_MAILBOX_SLOTS", "--mailbox-slots",
     "tasks other ranks can push to a process before it reads them (--balance push)",
     [](const Options& o) { return std::to_string(o.mailbox_slots); },
     [](Options& o, const std::string& v) {
       o.mailbox_slots = parse_int<std::size_t>(v, 16, std::size_t{1} << 20, "--mailbox-slots");
     }, kSimulated},
    {"inbox_slots", "HEIST_INBOX_SLOTS", "--inbox-slots",
     "remote task completions a process can hold before senders wait (one lane per sending process, at least min(N, 8) entries each)",
     [](const Options& o) { return std::to_string(o.inbox_slots); },
     [](Options& o, const std::string& v) {
       o.inbox_slots = parse_int<std::size_t>(v, 1, std::size_t{1} << 20, "--inbox-slots");
     }},
    {"progress", "HEIST_PROGRESS", "--progress",
     "one-sided progress: poll (workers poll between tasks), thread (plus a progress thread), none",
     [](const Options& o) { return std::string(to_string(o.progress)); },
     [](Options& o, const std::string& v) {
       o.progress = parse_choice(v, "--progress", {ProgressMode::poll, ProgressMode::thread, ProgressMode::none});
     }},
    {"poll_interval", "HEIST_POLL_INTERVAL", "--poll-interval",
     "tasks executed (or slow-path spawns) between a worker's polls of the public queue and inbox",
     [](const Options& o) { return std::to_string(o.poll_interval); },
     [](Options& o, const std::string& v) { o.poll_interval = parse_int(v, 1, 1 << 24, "--poll-interval"); }, kSimulated},
    {"progress_interval_us", "HEIST_PROGRESS_INTERVAL_US", "--progress-interval-us",
     "period of the progress thread (--progress thread), microseconds",
     [](const Options& o) { return std::to_string(o.progress_interval_us); },
     [](Options& o, const std::string& v) {
       o.progress_interval_us = parse_int(v, 1, 1000000, "--progress-interval-us");
     }},
    {"poll_period_us", "HEIST_POLL_PERIOD_US", "--poll-period-us",
     "between processes: longest time between a spawning worker's polls (paces its inline spawns), microseconds",
     [](const Options& o) { return std::to_string(o.poll_period_us); },
     [](Options& o, const std::string& v) { o.poll_period_us = parse_int(v, 1, 1000000, "--poll-period-us"); }, kSimulated},
    {"reacquire_delay_us", "HEIST_REACQUIRE_DELAY_US", "--reacquire-delay-us",
     "between processes: tasks released because another rank asked stay reserved for thieves this long, microseconds",
     [](const Options& o) { return std::to_string(o.reacquire_delay_us); },
     [](Options& o, const std::string& v) {
       o.reacquire_delay_us = parse_int(v, 0, 1000000, "--reacquire-delay-us");
     }, kSimulated},
    {"sws_empty_threshold", "HEIST_SWS_EMPTY_THRESHOLD", "--sws-empty-threshold",
     "SWS steal damping: attempts seen on a target before thieves probe it first",
     [](const Options& o) { return std::to_string(o.sws_empty_threshold); },
     [](Options& o, const std::string& v) { o.sws_empty_threshold = parse_int(v, 1, 1 << 20, "--sws-empty-threshold"); }, kSimulated},
    {"rma_delay_us", "HEIST_RMA_DELAY_US", "--rma-delay-us",
     "debug: random delay of up to this many microseconds before every RMA call (0: off)",
     [](const Options& o) { return std::to_string(o.rma_delay_us); },
     [](Options& o, const std::string& v) { o.rma_delay_us = parse_int(v, 0, 1000000, "--rma-delay-us"); }},
    {"kill_rank", "HEIST_KILL_RANK_AFTER_MS", "--kill-rank-after-ms",
     "fault injection: R:MS makes rank R kill itself (SIGKILL) MS milliseconds after start (off: never)",
     [](const Options& o) { return to_string(o.kill_rank); },
     [](Options& o, const std::string& v) { o.kill_rank = parse_kill_rank(v); }},
    {"trace_file", "HEIST_TRACE", "--trace",
     "write a Chrome trace-event JSON file (Perfetto, chrome://tracing) of task spans, steals, queue lengths",
     [](const Options& o) { return o.trace_file; },
     [](Options& o, const std::string& v) { o.trace_file = v; }, false, kPerRank},
    {"trace_min_us", "HEIST_TRACE_MIN_US", "--trace-min-us",
     "trace: task spans shorter than this many microseconds are not recorded",
     [](const Options& o) { return std::to_string(o.trace_min_us); },
     [](Options& o, const std::string& v) { o.trace_min_us = parse_int(v, 0, 1 << 30, "--trace-min-us"); }, false, kPerRank},
    {"trace_queue_us", "HEIST_TRACE_QUEUE_US", "--trace-queue-us",
     "trace: a worker samples its queue length at most once per this many microseconds",
     [](const Options& o) { return std::to_string(o.trace_queue_us); },
     [](Options& o, const std::string& v) { o.trace_queue_us = parse_int(v, 1, 1 << 30, "--trace-queue-us"); }, false, kPerRank},
    {"trace_max_events", "HEIST_TRACE_MAX_EVENTS", "--trace-max-events",
     "trace: events kept per worker; later ones are dropped and reported",
     [](const Options& o) { return std::to_string(o.trace_max_events); },
     [](Options& o, const std::string& v) {
       o.trace_max_events = parse_int<std::size_t>(v, 1000, std::size_t{1} << 32, "--trace-max-events");
     }, false, kPerRank},
    {"ranks_per_node", "HEIST_RANKS_PER_NODE", "--ranks-per-node",
     "virtual nodes: groups of this many consecutive ranks form a node (0: the real nodes)",
     [](const Options& o) { return std::to_string(o.ranks_per_node); },
     [](Options& o, const std::string& v) { o.ranks_per_node = parse_int(v, 0, 1 << 16, "--ranks-per-node"); }, kSimulated},
    {"inter_node_delay_us", "HEIST_INTER_NODE_DELAY_US", "--inter-node-delay-us",
     "microseconds added before every RMA operation whose target is on another (virtual) node",
     [](const Options& o) { return std::to_string(o.inter_node_delay_us); },
     [](Options& o, const std::string& v) {
       o.inter_node_delay_us = parse_int(v, 0, 1000000, "--inter-node-delay-us");
     }},
};

}  // namespace

std::span<const OptionSpec> option_table() noexcept { return kTable; }

std::string option_key(const OptionSpec& spec) {
  std::string key(spec.flag);
  key.erase(0, key.find_first_not_of('-'));
  for (char& c : key)
    if (c == '-') c = '_';
  return key;
}

std::span<const char* const> other_environment_variables() noexcept {
  // Read by heist's tests (tests/common/heist_test.hpp) and tools
  // (tools/cluster/heist-cluster, which forwards every HEIST_* variable to
  // its ranks; tools/cluster/heist-slurm, whose daemons and jobs inherit
  // its own), not by the runtime: known, so not errors.
  static constexpr const char* kOther[] = {"HEIST_TEST_SCALE", "HEIST_CLUSTER_QUIET", "HEIST_SLURM_INSIDE",
                                           "HEIST_SLURM_QUIET"};
  return kOther;
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

}  // namespace

std::string nearest_option_name(std::string_view name, bool environment) {
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  const auto consider = [&](std::string_view candidate) {
    const std::size_t d = edit_distance(name, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  };
  for (const OptionSpec& spec : kTable) consider(environment ? spec.env : spec.flag);
  if (environment)
    for (const char* other : other_environment_variables()) consider(other);
  return best;
}

Options Options::from_env() {
  // Every HEIST_* variable is noticed: one that names no option (a typo
  // such as HEIST_WORKER) is an error, as is one set to nothing.
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    if (!text.starts_with("HEIST_")) continue;
    const std::string_view name = text.substr(0, text.find('='));
    bool known = false;
    for (const OptionSpec& spec : kTable) known = known || name == spec.env;
    for (const char* other : other_environment_variables()) known = known || name == other;
    if (!known)
      throw OptionError(std::string(name) + ": no such variable; did you mean " +
                        nearest_option_name(name, true) + "? (`heist info` lists every option)");
  }
  Options options;
  for (const OptionSpec& spec : kTable) {
    const char* value = std::getenv(spec.env);
    if (value == nullptr) continue;
    if (*value == '\0')
      throw OptionError(std::string(spec.env) + " is set but empty: give it a value or unset it");
    try {
      spec.set(options, value);
    } catch (const OptionError& e) {
      throw OptionError(std::string(spec.env) + "=" + value + ": " + e.what());
    }
  }
  return options;
}

void Options::validate() const {
  // Round-trip every value through its setter: one set of rules.
  Options copy = *this;
  for (const OptionSpec& spec : kTable) spec.set(copy, spec.get(*this));
  if (deque_max_tasks < deque_initial_tasks)
    throw OptionError("--deque-max-tasks: must be at least --deque-tasks");
  // Options that the chosen policy or protocol never reads are rejected when
  // set to anything but their default: a run must not silently ignore them.
  const Options d;
  const auto unused = [](const char* flags, const char* applies_to) {
    throw OptionError(std::string(flags) + " applies only to " + applies_to + "; remove it or choose that");
  };
  if (policy != SpawnPolicy::bounded && (queue_bound != d.queue_bound || queue_demand != d.queue_demand ||
                                         queued_levels != d.queued_levels))
    unused("--queue-bound / --queue-demand / --queued-levels", "--policy bounded");
  if (policy != SpawnPolicy::slaw && (slaw_stack_frames != d.slaw_stack_frames ||
                                      slaw_queue_tasks != d.slaw_queue_tasks || slaw_interval != d.slaw_interval))
    unused("--slaw-s / --slaw-f / --slaw-int", "--policy slaw");
  if (protocol != StealProtocolKind::sws && sws_empty_threshold != d.sws_empty_threshold)
    unused("--sws-empty-threshold", "--protocol sws");
  if (progress != ProgressMode::thread && progress_interval_us != d.progress_interval_us)
    unused("--progress-interval-us", "--progress thread");
  if (balance != BalanceMode::push && !(push == d.push))
    unused("--push-min-tasks / --push-min-imbalance / --push-min-ratio / --push-share / --push-max-tasks / "
           "--push-interval-us",
           "--balance push");
  if (victim.kind != VictimSpec::Kind::success_only && answer_max_tasks != d.answer_max_tasks)
    unused("--answer-max-tasks", "--victim success-only");
  if (victim.kind == VictimSpec::Kind::success_only && balance == BalanceMode::push)
    throw OptionError("--victim success-only steals across nodes by request, --balance push never steals between "
                      "processes: choose one");
  if (continuations == ContinuationMode::off && suspend_waits == SuspendWaits::on)
    throw OptionError("--suspend-waits on suspends fibers: it needs --continuations auto or on");
  if (continuations == ContinuationMode::off && steals_continuations(policy))
    throw OptionError(std::string("--policy ") + to_string(policy) +
                      " steals continuations: it needs --continuations auto or on");
}

Options& Options::add_program_arguments(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) program_arguments.emplace_back("argv[" + std::to_string(i) + "]", argv[i]);
  return *this;
}

bool uses_continuations(const Options& options) noexcept {
  switch (options.continuations) {
    case ContinuationMode::automatic:
      return steals_continuations(options.policy) || options.suspend_waits == SuspendWaits::on;
    case ContinuationMode::on: return true;
    case ContinuationMode::off: return false;
  }
  return false;
}

const char* to_string(ContinuationMode mode) noexcept {
  switch (mode) {
    case ContinuationMode::automatic: return "auto";
    case ContinuationMode::on: return "on";
    case ContinuationMode::off: return "off";
  }
  return "?";
}

const char* to_string(SpawnPolicy policy) noexcept {
  switch (policy) {
    case SpawnPolicy::help_first: return "help-first";
    case SpawnPolicy::inline_child: return "inline";
    case SpawnPolicy::bounded: return "bounded";
    case SpawnPolicy::slaw: return "slaw";
    case SpawnPolicy::work_first: return "work-first";
    case SpawnPolicy::adaptive: return "adaptive";
  }
  return "?";
}

const char* to_string(StealProtocolKind protocol) noexcept {
  return protocol == StealProtocolKind::sdc ? "sdc" : "sws";
}

const char* to_string(MpiMode mode) noexcept {
  switch (mode) {
    case MpiMode::automatic: return "auto";
    case MpiMode::on: return "on";
    case MpiMode::off: return "off";
  }
  return "?";
}

const char* to_string(SuspendWaits mode) noexcept {
  switch (mode) {
    case SuspendWaits::automatic: return "auto";
    case SuspendWaits::on: return "on";
  }
  return "?";
}

const char* to_string(WaiterSteals mode) noexcept {
  switch (mode) {
    case WaiterSteals::automatic: return "auto";
    case WaiterSteals::deeper: return "deeper";
    case WaiterSteals::any: return "any";
  }
  return "?";
}

const char* to_string(WorkerBinding binding) noexcept {
  return binding == WorkerBinding::pus ? "pus" : "none";
}

const char* to_string(ProgressMode mode) noexcept {
  switch (mode) {
    case ProgressMode::poll: return "poll";
    case ProgressMode::thread: return "thread";
    case ProgressMode::none: return "none";
  }
  return "?";
}

SpawnPolicy parse_spawn_policy(const std::string& text) {
  for (SpawnPolicy p : {SpawnPolicy::help_first, SpawnPolicy::inline_child, SpawnPolicy::bounded, SpawnPolicy::slaw,
                        SpawnPolicy::work_first, SpawnPolicy::adaptive})
    if (text == to_string(p)) return p;
  throw OptionError("--policy: '" + text + "' is not one of help-first, inline, bounded, slaw, work-first, adaptive");
}

std::string to_string(const FaultInjection& fault) {
  return fault.rank < 0 ? "off" : std::to_string(fault.rank) + ":" + std::to_string(fault.after_ms);
}

FaultInjection parse_kill_rank(const std::string& text) {
  if (text == "off") return {};
  const std::size_t colon = text.find(':');
  if (colon == std::string::npos)
    throw OptionError("--kill-rank-after-ms: '" + text + "' is not RANK:MILLISECONDS (e.g. 1:500) or off");
  return {parse_int(text.substr(0, colon), 0, 65535, "--kill-rank-after-ms (rank)"),
          parse_int(text.substr(colon + 1), 0, 86'400'000, "--kill-rank-after-ms (milliseconds)")};
}

}  // namespace heist
