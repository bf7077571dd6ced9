#include "sched/scheduler.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>

#include "platform/cpu_count.hpp"
#include "policy/help_floor.hpp"
#include "sched/fiber_pool.hpp"
#include "sched/placement.hpp"
#include "sched/process_balancer.hpp"
#include "sched/worker.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

namespace {
std::atomic<bool> g_running{false};  // one runtime per process at a time
}  // namespace

namespace {
int worker_count(const Options& options) {
  return options.workers != 0 ? options.workers : platform::usable_cpus();
}
}  // namespace

Scheduler::Scheduler(const Options& options)
    : options_(options),
      registry_(task::TaskRegistry::global()),
      sites_(platform::process_sites(options, worker_count(options))),
      process_topology_(build_topology({RankSites{sites_.workers, 0}})),
      topology_(process_topology_) {
  options_.validate();
  if (detail::tls_worker != &detail::outside_worker) throw std::logic_error("heist: this thread already runs a heist runtime");
  if (g_running.exchange(true, std::memory_order_acq_rel))
    throw std::logic_error("heist: only one heist::Runtime may exist at a time");
  try {
    options_.workers = worker_count(options_);
    stride_ = task::slot_stride(options_.task_input_bytes);
    for (std::uint32_t id = 0; id < registry_.size(); ++id)
      if (registry_[id].in_size > options_.task_input_bytes)
        throw OptionError("heist: task '" + registry_[id].name + "' has " + std::to_string(registry_[id].in_size) +
                          " input bytes, more than the task slot holds (" +
                          std::to_string(options_.task_input_bytes) +
                          "); raise HEIST_TASK_INPUT_BYTES / --task-input-bytes");
    // Started by an MPI launcher with several processes, in a program linked
    // with heist's MPI layer: the run spans processes (Runtime::Runtime).
    const bool spans_processes = options_.mpi != MpiMode::off && process_balancer_factory() != nullptr &&
                                 launcher_job_size() > 1;
    options_.suspend_waits = policy::resolve_suspend_waits(options_.suspend_waits, spans_processes,
                                                           options_.continuations != ContinuationMode::off);
    if (uses_continuations(options_))
      fibers_ = std::make_unique<FiberPool>(options_.workers, options_.fiber_stack_bytes, stride_, options_.max_fibers);
    for (int i = 0; i < options_.workers; ++i) {
      workers_.push_back(std::make_unique<Worker>(*this, i));
      workers_.back()->set_places(process_topology_, 0);
    }
    if (!options_.trace_file.empty()) {
      trace_ = std::make_unique<trace::TraceRecorder>(options_, options_.workers);
      for (int i = 0; i < options_.workers; ++i) workers_[static_cast<std::size_t>(i)]->attach_trace(&trace_->worker(i));
    }
    workers_[0]->bind();
    stack_guard_ = std::make_unique<platform::ThreadStackGuard>(
        0, "`ulimit -s` (worker 0 runs on the thread that created the Runtime)");
    const bool bind = options_.bind_workers == WorkerBinding::pus;
    if (bind) caller_binding_ = std::make_unique<platform::ThreadBinding>(0, true);
    for (int i = 1; i < options_.workers; ++i) {
      Worker* w = workers_[static_cast<std::size_t>(i)].get();
      threads_.push_back(std::make_unique<platform::NativeThread>(options_.worker_stack_bytes, [w, i, bind] {
        const platform::ThreadStackGuard guard(i, "--stack-bytes / HEIST_STACK_BYTES");
        std::optional<platform::ThreadBinding> binding;
        if (bind) binding.emplace(i, false);
        w->run_until_stopped();
      }));
    }
  } catch (...) {
    stopping_.store(true, std::memory_order_release);
    epoch_.fetch_add(1, std::memory_order_release);
    epoch_.notify_all();
    threads_.clear();
    stack_guard_.reset();
    caller_binding_.reset();
    if (!workers_.empty()) workers_[0]->unbind();
    g_running.store(false, std::memory_order_release);
    throw;
  }
}

Scheduler::~Scheduler() {
  kill_timer_.reset();  // the run is over: no fault to inject any more
  // Every task spawned must run: finish what the root context still holds,
  // its joined tasks and the escaping asyncs of its root finish scope.
  try {
    workers_[0]->wait_root();
  } catch (...) {
    // Destructors must not throw; the exception's task has completed.
  }
  stopping_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_release);
  epoch_.notify_all();
  threads_.clear();  // joins
  overflow_handler_.reset();
  stack_guard_.reset();
  caller_binding_.reset();
  workers_[0]->unbind();
  g_running.store(false, std::memory_order_release);
  if (trace_) {
    try {
      trace_->write(registry_);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());  // a destructor: report, do not throw
    }
  }
}

void Scheduler::activate() noexcept {
  if (active_.load(std::memory_order_relaxed)) return;  // only worker 0 changes it
  active_.store(true, std::memory_order_release);
  epoch_.fetch_add(1, std::memory_order_release);  // pairs with wait_for_activity's acquire
  epoch_.notify_all();
}

void Scheduler::deactivate() noexcept {
  active_.store(false, std::memory_order_seq_cst);  // seq_cst: see quiesce
  epoch_.fetch_add(1, std::memory_order_release);
}

void Scheduler::wait_for_activity() const noexcept {
  std::uint32_t seen = epoch_.load(std::memory_order_acquire);
  while (!active() && !stopping()) {
    epoch_.wait(seen, std::memory_order_acquire);
    seen = epoch_.load(std::memory_order_acquire);
  }
}

void Scheduler::attach_remote(RemoteWork* remote, int rank) noexcept {
  remote_ = remote;
  for (auto& w : workers_) w->attach_remote(remote, static_cast<std::uint32_t>(rank));
  if (trace_) trace_->set_rank(rank);
}

void Scheduler::set_topology(policy::Topology topology, int place_base) {
  topology_ = std::move(topology);
  place_base_ = place_base;
  const int processes = topology_.domain_count(policy::Level::process);
  for (auto& w : workers_) w->spawn_machine().size_run(static_cast<int>(workers_.size()), processes);
  // --balance push: tasks move between processes by push only; workers
  // steal inside their process (process_topology_, set at construction).
  if (options_.balance == BalanceMode::push) return;
  for (auto& w : workers_) w->set_places(topology_, place_base_);
}

void Scheduler::quiesce() {
  if (active()) throw std::logic_error("heist: statistics are read between parallel regions, not inside one");
  for (std::size_t i = 1; i < workers_.size(); ++i)
    while (!workers_[i]->parked()) std::this_thread::yield();
}

RunStats Scheduler::stats() {
  quiesce();
  RunStats run;
  for (const auto& w : workers_) run.workers.push_back(w->stats());
  return run;
}

void Scheduler::reset_stats() {
  quiesce();
  for (const auto& w : workers_) w->reset_stats();
}

void Scheduler::record_exception(std::exception_ptr error) noexcept {
  std::lock_guard lock(error_mutex_);
  if (!error_) error_ = std::move(error);
}

std::exception_ptr Scheduler::take_task_exception() noexcept {
  std::lock_guard lock(error_mutex_);
  return std::exchange(error_, nullptr);
}

void Scheduler::rethrow_task_exception() {
  if (std::exception_ptr error = take_task_exception()) std::rethrow_exception(error);
}

void Scheduler::report_stack_overflows(int rank) {
  overflow_handler_ = std::make_unique<platform::StackOverflowHandler>(rank);
}

void Scheduler::arm_kill_timer(int after_ms, int rank) {
  kill_timer_ = std::make_unique<platform::KillTimer>(after_ms, rank);
}

}  // namespace heist::sched
