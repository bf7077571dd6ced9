// What a simulation is told (SimConfig) and what it reports (SimResult).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "heist/options.hpp"
#include "policy/decision_log.hpp"
#include "policy/topology.hpp"
#include "sim/busy_profile.hpp"
#include "sim/machine.hpp"

namespace heist::sim {

// Time of one task on a worker, calibrated from real single-worker runs
// (`heist sim --calibrate`) or given: the runtime's per-task overhead with the
// task's own work besides its children (a UTS node's SHA-1 hashing, a fib
// call's addition), which depends on whether the task ran inline inside
// spawn or went through the deque; plus, per node of the app's sequential
// kernel run below a cutoff, `sequential_ns`.
struct TaskCosts {
  double inline_ns = 0;
  double queued_ns = 0;
  double sequential_ns = 0;
  void validate() const;  // throws std::invalid_argument
};

// How an idle worker waits between failed steal attempts.
enum class BackoffModel {
  heist,  // the runtime's platform::Backoff: 6 spin rounds (1..32 pauses), 4 yields, sleeps 5..500 us
  none,   // none: the next attempt starts when the last one ended (the papers' UPC/OpenSHMEM thieves)
};
const char* to_string(BackoffModel) noexcept;

// A known way for the simulator to execute differently from the runtime,
// planted on purpose by the self-check of the test that compares them.
enum class PlantedDrift {
  none,
  credits_kept_at_task_start,  // a queued task's start keeps the credits of the last grant
};

struct SimConfig {
  MachineSpec machine;
  // The runtime options the simulated workers use — the same struct and
  // defaults as a real run: spawn policy and its knobs, victim and chunk
  // selection, protocol, balancing (steal or push), remote-steal mode, poll
  // interval and period, queue and mailbox sizes, SWS damping, seed.
  // (machine.ranks_per_node, not options.ranks_per_node, lays out the ranks.)
  Options options;
  TaskCosts costs;
  BackoffModel backoff = BackoffModel::heist;
  // Buckets of the busy profile (sim/busy_profile.hpp); 0: none.
  std::size_t busy_buckets = 0;
  // Tests: when set, resized to one log per worker, which records every
  // decision of that worker's spawn and search drivers.
  std::vector<policy::DecisionLog>* decision_logs = nullptr;
  // Tests only: a drift planted in the simulator's executor, which
  // tests/sim/test_same_actions.cpp must find. Never set otherwise.
  PlantedDrift planted_drift = PlantedDrift::none;
};

// Steal operations at one level of the Topology (the lowest level thief and
// victim share), in-process (thread) and between processes (remote) apart.
struct StealCounts {
  std::uint64_t attempts = 0;
  std::uint64_t steals = 0;  // attempts that took tasks
  std::uint64_t failed = 0;  // attempts that found nothing (aborted included)
  std::uint64_t tasks = 0;   // tasks taken
  StealCounts& operator+=(const StealCounts& o) noexcept {
    attempts += o.attempts;
    steals += o.steals;
    failed += o.failed;
    tasks += o.tasks;
    return *this;
  }
};

struct Messages {
  std::uint64_t blocking = 0;     // one-sided operations a thief or owner waited for (round trips)
  std::uint64_t nonblocking = 0;  // completion notifications nobody waits for
  std::uint64_t bytes = 0;        // task bytes moved between processes
  std::uint64_t shm_ops = 0;      // in-process claim/probe operations on other workers' deques
  std::uint64_t owner_ops = 0;    // blocking operations of processes on their own windows
};

struct SimResult {
  double time_s = 0;       // simulated makespan: the last task's end
  std::uint64_t tasks = 0; // tasks executed (= created: exactly once)
  std::uint64_t inlined = 0;
  std::uint64_t queued = 0;
  std::array<StealCounts, policy::kLevels> thread_steals{};  // by policy::Level
  std::array<StealCounts, policy::kLevels> remote_steals{};
  // Between processes besides one-sided steals: board reads, success-only
  // requests posted and served (never declined), pushes, tasks moved by each.
  std::uint64_t board_reads = 0, requests = 0, requests_served = 0, pushes = 0;
  std::uint64_t tasks_served = 0, tasks_pushed = 0;
  Messages messages;
  // Joins: waits that found children outstanding (and helped), completions
  // of tasks run in another process sent to and applied at their origin.
  std::uint64_t waits = 0, completions_sent = 0, completions_applied = 0;
  std::uint64_t suspensions = 0;  // --suspend-waits on: waits that suspended their stack
  // Escaping tasks of other processes whose completions went back in their
  // foreign proxies' reports (sched/proxy_scope.hpp), one entry per proxy.
  std::uint64_t tasks_reported = 0;
  // A helped wait resumes when its worker looks again: after the task it
  // runs above the waiting frame returns (a stolen one may bury the frame
  // for its whole subtree), or the steal attempt or back-off in progress
  // ends. The time from the count's drain to the resumption, summed over
  // waits and the longest; and the time completions from other processes
  // sat in their origin's inbox before a poll applied them, summed.
  double late_resume_s = 0, late_resume_max_s = 0, inbox_wait_s = 0;
  // Claims a waiter left because the victim's oldest public task was not
  // deeper than its waiting frame (policy::help_floor, --waiter-steals).
  std::uint64_t help_floor_refusals = 0;
  std::uint64_t releases = 0;         // tasks offered to process windows
  std::uint64_t public_acquires = 0;  // offered tasks their own process took back
  double work_s = 0;    // summed over workers: executing tasks (owner-side window operations included)
  double search_s = 0;  // failed attempts and back-off (until the makespan)
  double steal_s = 0;   // successful steal operations
  std::uint64_t events = 0;      // simulator events processed
  std::uint64_t max_queue = 0;   // largest deque length of any worker
  double wall_s = 0;             // wall-clock time the simulation took
  BusyProfile::Result busy_profile;  // empty unless SimConfig::busy_buckets
};

}  // namespace heist::sim
