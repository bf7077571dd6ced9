// heist::Runtime and the library entry points behind heist.hpp's templates.
#include <exception>
#include <iterator>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include "heist/heist.hpp"
#include "heist/option_table.hpp"
#include "sched/process_balancer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "task/task_registry.hpp"

namespace heist {

namespace {
sched::Scheduler* g_scheduler = nullptr;  // the live runtime; set and cleared by its creating thread

sched::Worker& current_worker() {
  sched::Worker* w = sched::Worker::current();
  if (w == nullptr)
    throw std::logic_error(
        "heist: called outside the runtime; create a heist::Runtime and call from its thread or from a task");
  return *w;
}

// Under work-first (or --suspend-waits on) a wait on a fiber suspends it
// until `scope` drains (Worker::await_by_suspending); returns the worker the
// caller goes on with, which may be another one. Elsewhere (other policies,
// or a fiber that may not move) it returns `w` and the caller's Worker
// helps until the scope drains.
sched::Worker& await_drained(sched::Worker& w, detail::FinishScope& scope) {
  sched::ContinuationEngine* engine = w.continuations();
  if (engine == nullptr || scope.drained_for_owner() || !w.waits_by_suspending() || !engine->can_suspend()) return w;
  return w.await_by_suspending(scope);
}
}  // namespace

Runtime::Runtime(const Options& options) : scheduler_(std::make_unique<sched::Scheduler>(options)) {
  g_scheduler = scheduler_.get();
  try {
    if (sched::ProcessBalancerFactory make_balancer = sched::process_balancer_factory()) {
      // What the ranks must agree on: every option but the per-rank ones,
      // as the table prints it, then the program's arguments.
      sched::AgreedSettings agreed;
      for (const OptionSpec& spec : option_table())
        if (!spec.per_rank) agreed.emplace_back(spec.flag, spec.get(scheduler_->options()));
      for (const auto& [name, value] : scheduler_->options().program_arguments) agreed.emplace_back(name, value);
      balancer_ = make_balancer(*scheduler_, agreed);
    } else if (scheduler_->options().mpi == MpiMode::on) {
      throw OptionError(
          "--mpi on: this program is not linked with heist's MPI layer; link the target heist::mpi "
          "(find_package(heist COMPONENTS mpi)) or `pkg-config heist-mpi`");
    } else if (scheduler_->options().mpi == MpiMode::automatic && sched::launcher_job_size() > 1) {
      throw OptionError("heist: started by an MPI launcher with " + std::to_string(sched::launcher_job_size()) +
                        " processes, but this program is not linked with heist's MPI layer; link the target "
                        "heist::mpi (find_package(heist COMPONENTS mpi)) or `pkg-config heist-mpi`, "
                        "or set HEIST_MPI=off to run each process alone");
    }
    const FaultInjection& kill = scheduler_->options().kill_rank;
    if (kill.rank >= ranks())
      throw OptionError("--kill-rank-after-ms: rank " + std::to_string(kill.rank) + " does not exist (the job has " +
                        std::to_string(ranks()) + " rank(s))");
    if (kill.rank == rank()) scheduler_->arm_kill_timer(kill.after_ms, kill.rank);
    scheduler_->report_stack_overflows(rank());
  } catch (...) {
    scheduler_.reset();
    g_scheduler = nullptr;
    throw;
  }
}

Runtime::~Runtime() {
  scheduler_.reset();     // joins the workers, which may still read the balancer until then
  balancer_.reset();     // collective: every rank destroys its runtime
  g_scheduler = nullptr;
}

int Runtime::rank() const noexcept { return static_cast<int>(scheduler_->worker(0).rank()); }

int Runtime::ranks() const noexcept {
  if (balancer_) return balancer_->ranks();
  return 1;
}

std::uint64_t Runtime::sum_over_ranks(std::uint64_t value) const {
  if (balancer_) return balancer_->all_reduce(value, false);
  return value;
}

std::uint64_t Runtime::max_over_ranks(std::uint64_t value) const {
  if (balancer_) return balancer_->all_reduce(value, true);
  return value;
}

void Runtime::run_region_impl(void (*body)(void*), void* ctx, bool seed, bool pool) {
  sched::Worker& w = current_worker();
  if (&w != &scheduler_->worker(0))
    throw std::logic_error("heist: Runtime::root/pool are called by the thread that created the Runtime");
  if (balancer_) balancer_->begin_region();
  w.run_region(body, ctx, seed, pool);
  if (balancer_) {
    balancer_->end_region();
    // A task that failed on any rank fails the region on every rank.
    if (std::exception_ptr error = balancer_->agree_on_error(scheduler_->take_task_exception()))
      std::rethrow_exception(error);
  }
  scheduler_->rethrow_task_exception();
}

const Options& Runtime::options() const noexcept { return scheduler_->options(); }
int Runtime::workers() const noexcept { return scheduler_->size(); }
RunStats Runtime::stats() const {
  RunStats local = scheduler_->stats();
  if (balancer_) {
    balancer_->add_counters(local);
    return balancer_->gather(local);
  }
  return local;
}
void Runtime::reset_stats() {
  scheduler_->reset_stats();
  if (balancer_) balancer_->reset_counters();
}

int worker_id() noexcept {
  const sched::Worker* w = sched::Worker::current();
  return w == nullptr ? -1 : w->id();
}

int num_workers() noexcept { return g_scheduler == nullptr ? 0 : g_scheduler->size(); }

namespace detail {
void fence_here() { current_worker().fence_current(); }
}  // namespace detail

WorkerStats RunStats::total() const {
  WorkerStats t;
  const auto combine = [](auto& into, auto value, bool largest) { into = largest ? std::max(into, value) : into + value; };
  for (const WorkerStats& w : workers) {
#define HEIST_COMBINE(field, how, what) combine(t.field, w.field, std::string_view(#how) == "max");
#define HEIST_COMBINE_RMA(key, how, what) combine(t.rma_##key, w.rma_##key, std::string_view(#how) == "max");
    HEIST_WORKER_COUNTERS(HEIST_COMBINE)
    HEIST_WORKER_RMA_COUNTERS(HEIST_COMBINE_RMA)
    HEIST_WORKER_TIMES(HEIST_COMBINE)
#undef HEIST_COMBINE
#undef HEIST_COMBINE_RMA
    for (std::size_t l = 0; l < std::size(t.levels); ++l) {
      t.levels[l].attempts += w.levels[l].attempts;
      t.levels[l].successes += w.levels[l].successes;
      t.levels[l].failures += w.levels[l].failures;
      t.levels[l].tasks += w.levels[l].tasks;
      t.levels[l].time_s += w.levels[l].time_s;
    }
  }
  return t;
}

namespace detail {

std::uint32_t register_task(const char* name, TaskInvoke invoke, std::size_t in_size, std::size_t out_size,
                            bool local_only) {
  if (g_scheduler != nullptr && in_size > g_scheduler->options().task_input_bytes)
    throw OptionError(std::string("heist: task '") + name + "' has " + std::to_string(in_size) +
                      " input bytes, more than the task slot holds; raise HEIST_TASK_INPUT_BYTES");
  return task::TaskRegistry::global().add(name, invoke, in_size, out_size, nullptr, local_only);
}

std::uint32_t register_closure_task(const char* type_name, TaskInvoke invoke, std::size_t in_size) {
  const task::TaskRegistry& registry = task::TaskRegistry::global();
  std::string name = type_name;
  for (int repeat = 2; registry.find_name(name); ++repeat) name = std::string(type_name) + "#" + std::to_string(repeat);
  return register_task(name.c_str(), invoke, in_size, 0);
}

void spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out, Join join) {
  current_worker().spawn_registered(fn, in, in_size, out, join);
}

void spawn_registered_word(std::uint32_t fn, std::uint64_t in, std::size_t in_size, void* out, Join join) {
  current_worker().spawn_registered(fn, &in, in_size, out, join);
}

void spawn_closure(const ClosureOps& ops, void* object) { current_worker().spawn_closure(ops, object); }

void wait_slow() {
  sched::Worker* w = &current_worker();
  if (w->continuations() != nullptr) {
    sched::Frame& f = w->current_frame();
    if (w->above_frame == 0 && !f.fence) w = &await_drained(*w, f.join);
  }
  w->wait_current();
}

void wait_own_frame() {
  WorkerCore* w = tls_worker;
  if (w->frame->nothing_to_wait_for()) return;
  w->above_frame = 0;  // the body's own frame: sync_level
  wait_slow();
}

namespace {
// The failure inline_child_done kept for raise_child_failure: the inline
// path between them runs on this thread (the task neither suspends nor
// moves there).
thread_local std::exception_ptr t_child_failure;
}  // namespace

bool inline_child_done(int child_level) {
  // Helps in place and never suspends, even under continuation stealing:
  // run_inline closes the level on the worker it read before this call, so
  // the task must end on that worker (suspending could resume it on
  // another). Closing the level on the worker read afresh instead slows
  // every inline spawn through the fast path's code layout
  // (docs/design/spawn-fast-path-and-context.md).
  sched::Worker* w = sched::Worker::current();
  std::exception_ptr failure = w->inline_child_done(child_level);
  // A joined child of the task failed: the task fails with it, raised in
  // its spawner at the spawn that ran it (task_failure.hpp), by
  // raise_child_failure once the inline path has stored the spawner's
  // level. While the task's own exception unwinds it, that one goes on (the
  // worker's part returned none).
  if (failure) [[unlikely]] {
    t_child_failure = std::move(failure);
    return true;
  }
  return false;
}

bool inline_child_done() {
  sched::Worker* w = sched::Worker::current();
  return inline_child_done(w->level());  // the plain path holds the task's level
}

void raise_child_failure() {
  std::rethrow_exception(std::exchange(t_child_failure, nullptr));
}

SyncNode* spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                            SyncNode* const* after, std::size_t n_after) {
  return current_worker().spawn_with_handle(fn, in, in_size, out, after, n_after);
}

void wait_sync(SyncNode* node) { current_worker().wait_sync(node); }

FrameCore* finish_begin() { return current_worker().finish_begin(); }

FrameCore* finish_begin_with(int policy) { return current_worker().finish_begin(policy); }

void finish_end(FrameCore* finish) {
  sched::Worker* w = &current_worker();
  auto& record = static_cast<sched::FinishRecord&>(static_cast<sched::Frame&>(*finish));
  if (w->continuations() != nullptr && !record.fence) {
    w = &await_drained(*w, record.join);   // joined children of the finish body
    w = &await_drained(*w, record.scope);  // its asyncs, escaping ones included
  }
  w->finish_end(finish);
}

void finish_abort(FrameCore* finish) noexcept {
  try {
    current_worker().finish_end(finish);
  } catch (...) {
    // The body's exception is the one that propagates.
  }
}

}  // namespace detail
}  // namespace heist
