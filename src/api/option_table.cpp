#include "heist/option_table.hpp"

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <limits>

namespace heist {

namespace {

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

// Every range below is also what Options::validate() checks.
constexpr int kMaxWorkers = 4096;

const OptionSpec kTable[] = {
    {"workers", "HEIST_WORKERS", "--workers", "worker threads in this process (0: one per core)",
     [](const Options& o) { return std::to_string(o.workers); },
     [](Options& o, const std::string& v) { o.workers = parse_int(v, 0, kMaxWorkers, "--workers"); }},
    {"policy", "HEIST_POLICY", "--policy", "spawn policy: help-first, work-first, bounded, slaw",
     [](const Options& o) { return std::string(to_string(o.policy)); },
     [](Options& o, const std::string& v) { o.policy = parse_spawn_policy(v); }},
    {"queue_bound", "HEIST_QUEUE_BOUND", "--queue-bound", "bounded policy: tasks a worker holds (queued or running) before spawns run inline",
     [](const Options& o) { return std::to_string(o.queue_bound); },
     [](Options& o, const std::string& v) { o.queue_bound = parse_int(v, 1, 1 << 30, "--queue-bound"); }},
    {"queue_demand", "HEIST_QUEUE_DEMAND", "--queue-demand",
     "bounded: queue a task only when nothing is public or a thief asked (on|off)",
     [](const Options& o) { return std::string(o.queue_demand ? "on" : "off"); },
     [](Options& o, const std::string& v) {
       if (v == "on" || v == "1" || v == "true") o.queue_demand = true;
       else if (v == "off" || v == "0" || v == "false") o.queue_demand = false;
       else throw OptionError("--queue-demand: '" + v + "' is not on or off");
     }},
    {"chunk", "HEIST_CHUNK", "--chunk", "tasks per steal inside a process: K (>= 1) or half",
     [](const Options& o) { return to_string(o.chunk); },
     [](Options& o, const std::string& v) { o.chunk = parse_chunk(v); }},
    {"slaw_stack_frames", "HEIST_SLAW_S", "--slaw-s", "SLAW S: inline frames after which spawns queue again",
     [](const Options& o) { return std::to_string(o.slaw_stack_frames); },
     [](Options& o, const std::string& v) { o.slaw_stack_frames = parse_int(v, 1, 1 << 20, "--slaw-s"); }},
    {"slaw_queue_tasks", "HEIST_SLAW_F", "--slaw-f", "SLAW F: queued tasks after which spawns run inline",
     [](const Options& o) { return std::to_string(o.slaw_queue_tasks); },
     [](Options& o, const std::string& v) { o.slaw_queue_tasks = parse_int(v, 1, 1 << 30, "--slaw-f"); }},
    {"slaw_interval", "HEIST_SLAW_INT", "--slaw-int", "SLAW INT: spawns between re-evaluations of the policy",
     [](const Options& o) { return std::to_string(o.slaw_interval); },
     [](Options& o, const std::string& v) { o.slaw_interval = parse_int(v, 1, 1 << 20, "--slaw-int"); }},
    {"task_input_bytes", "HEIST_TASK_INPUT_BYTES", "--task-input-bytes",
     "input bytes a task slot holds inline (slot = 48 + this, rounded to 16)",
     [](const Options& o) { return std::to_string(o.task_input_bytes); },
     [](Options& o, const std::string& v) {
       o.task_input_bytes = parse_int<std::size_t>(v, 32, 65000, "--task-input-bytes");
     }},
    {"deque_initial_tasks", "HEIST_DEQUE_TASKS", "--deque-tasks", "initial task slots per worker deque",
     [](const Options& o) { return std::to_string(o.deque_initial_tasks); },
     [](Options& o, const std::string& v) {
       o.deque_initial_tasks = parse_int<std::size_t>(v, 2, std::size_t{1} << 30, "--deque-tasks");
     }},
    {"deque_max_tasks", "HEIST_DEQUE_MAX_TASKS", "--deque-max-tasks",
     "maximum task slots per worker deque; when full, spawns run inline",
     [](const Options& o) { return std::to_string(o.deque_max_tasks); },
     [](Options& o, const std::string& v) {
       o.deque_max_tasks = parse_int<std::size_t>(v, 2, std::size_t{1} << 31, "--deque-max-tasks");
     }},
    {"max_help_depth", "HEIST_MAX_HELP_DEPTH", "--max-help-depth",
     "nested waits after which a waiting worker stops stealing (stack bound)",
     [](const Options& o) { return std::to_string(o.max_help_depth); },
     [](Options& o, const std::string& v) { o.max_help_depth = parse_int(v, 1, 1 << 20, "--max-help-depth"); }},
    {"worker_stack_bytes", "HEIST_STACK_BYTES", "--stack-bytes", "stack size of each worker thread (K/M/G suffixes)",
     [](const Options& o) { return std::to_string(o.worker_stack_bytes); },
     [](Options& o, const std::string& v) {
       o.worker_stack_bytes = parse_int<std::size_t>(v, std::size_t{64} << 10, std::size_t{1} << 34, "--stack-bytes");
     }},
    {"seed", "HEIST_SEED", "--seed", "seed of the victim-selection RNG",
     [](const Options& o) { return std::to_string(o.seed); },
     [](Options& o, const std::string& v) {
       o.seed = parse_int<std::uint64_t>(v, 0, std::uint64_t{1} << 62, "--seed");
     }},
};

}  // namespace

std::span<const OptionSpec> option_table() noexcept { return kTable; }

Options Options::from_env() {
  Options options;
  for (const OptionSpec& spec : kTable) {
    const char* value = std::getenv(spec.env);
    if (value == nullptr || *value == '\0') continue;
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
}

const char* to_string(SpawnPolicy policy) noexcept {
  switch (policy) {
    case SpawnPolicy::help_first: return "help-first";
    case SpawnPolicy::work_first: return "work-first";
    case SpawnPolicy::bounded: return "bounded";
    case SpawnPolicy::slaw: return "slaw";
  }
  return "?";
}

std::string to_string(const ChunkSpec& chunk) {
  return chunk.kind == ChunkSpec::Kind::half ? "half" : std::to_string(chunk.k);
}

SpawnPolicy parse_spawn_policy(const std::string& text) {
  for (SpawnPolicy p : {SpawnPolicy::help_first, SpawnPolicy::work_first, SpawnPolicy::bounded, SpawnPolicy::slaw})
    if (text == to_string(p)) return p;
  throw OptionError("--policy: '" + text + "' is not one of help-first, work-first, bounded, slaw");
}

ChunkSpec parse_chunk(const std::string& text) {
  if (text == "half") return ChunkSpec{ChunkSpec::Kind::half, 0};
  return ChunkSpec{ChunkSpec::Kind::fixed, parse_int<std::uint32_t>(text, 1, 1u << 20, "--chunk")};
}

}  // namespace heist
