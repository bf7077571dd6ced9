// heist — work-stealing task runtime. The C++ API.
//
//   heist::Runtime rt;                       // starts the workers (Options::from_env())
//   heist::finish([&] { heist::async([&] { ... }); ... });
//
// Two kinds of task:
//  * registered tasks (`register_task`, `spawn`, `async` with a Task): a
//    function id plus input bytes copied into the task slot; they may move to
//    other workers and, with MPI, to other processes;
//  * local-only closures (`async(lambda)`): may capture references; they move
//    only between the threads of this process.
// Two ways to join:
//  * `finish(f)` waits for every task spawned inside f, transitively, even
//    those that outlive the task that spawned them (escaping asyncs, HelpFirst §3);
//  * `spawn(task, in, &out)` + `wait()` (HotSLAW, HotSLAW §2): a task waits for
//    the tasks it spawned; a task that returns without calling wait() waits
//    for them implicitly before it completes, so `*out` is always written
//    when the spawner's wait() returns.
// A task body may take a heist::Context first and make its calls through
// it (spawn, async, wait, finish, fence and handles all take one): the fast
// path for fine-grained recursion, which in one process writes nothing per
// spawn (see Context).
// Where a call may be made: every call below except Runtime's constructor and
// destructor may be made from inside a task or from the thread that created
// the Runtime, never from another thread (std::logic_error).
// This header is what a user reads: the calls and their contracts. The inline
// paths behind them are in heist/detail/ (body_forms.hpp, spawn_paths.hpp,
// closure_paths.hpp), which it includes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <utility>

#include "heist/detail/abi.hpp"
#include "heist/detail/mpi_link.h"
#include "heist/options.hpp"
#include "heist/stats.hpp"

// The inline fast paths are a few instructions around a call of the task
// body; forcing them inline keeps spawn as cheap as a function call.
// HEIST_ALWAYS_INLINE is the attribute alone, for member functions defined
// in their class (inline already): GCC 12 called the destructor of
// run_inline's level guard out of line, a call and three pushes a task.
#if defined(__GNUC__) || defined(__clang__)
#define HEIST_ALWAYS_INLINE [[gnu::always_inline]]
#else
#define HEIST_ALWAYS_INLINE
#endif
#define HEIST_INLINE HEIST_ALWAYS_INLINE inline

// The checked mode of the Context rule (see Context): 1 makes a plain call
// inside a body that takes a Context, and a call given a Context outside
// the body that received it, throw std::logic_error naming the call. The
// build sets it (CMake option HEIST_CHECK_CONTEXT: on in Debug and
// sanitizer builds, and then for the programs that link heist); 0 compiles
// every check out, and the spawn paths are what they are without it.
#ifndef HEIST_CHECK_CONTEXT
#define HEIST_CHECK_CONTEXT 0
#endif

namespace heist {

namespace sched {
class Scheduler;
class ProcessBalancer;
}

// The runtime of this process. One at a time; the creating thread becomes
// worker 0 and runs tasks while it waits.
class Runtime {
 public:
  explicit Runtime(const Options& options = Options::from_env());
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  const Options& options() const noexcept;
  int workers() const noexcept;  // in this process
  int rank() const noexcept;     // this process's MPI rank (0 without MPI)
  int ranks() const noexcept;    // processes in the job (1 without MPI)
  // MPI (several processes) needs the between-process layer: link heist::mpi
  // (CMake: find_package(heist COMPONENTS mpi), target heist::mpi; pkg-config:
  // heist-mpi). Without it the constructor throws OptionError when MPI is
  // asked for (--mpi on, or a start by mpirun/srun with several processes).
  // Call between parallel regions. With several ranks it is collective and
  // rank 0 receives every rank's workers (WorkerStats::rank says whose).
  RunStats stats() const;
  void reset_stats();  // between parallel regions

  // Root-task mode, collective over all ranks: rank 0 runs body() inside a
  // finish; the workers of every rank steal its tasks until that finish (and
  // every task in it, wherever it ran) is complete. Returns on every rank
  // then. A task exception is raised at the join that joins the task,
  // wherever it ran (a task that ran on another rank reports it as
  // std::runtime_error("heist: task '<name>' threw on rank R: <what>"); see
  // finish and wait below). One that reaches the region's own finish fails
  // the region on every rank: the rank of that finish rethrows it, every
  // other rank throws std::runtime_error("heist: rank R: <that message>"). Errors of the
  // distributed layer itself (MPI failures, corrupt data from another rank)
  // end the whole job with MPI_Abort and a message naming the rank.
  template <class F>
  void root(F&& body) {
    run_region(body, rank() == 0, false);
  }
  // Collective reductions over the ranks (between regions; identity with one rank).
  std::uint64_t sum_over_ranks(std::uint64_t value) const;
  std::uint64_t max_over_ranks(std::uint64_t value) const;

  // SPMD task-pool mode, collective: every rank runs seed() inside a finish
  // (its asyncs/spawns form the global pool: every spawn seed() makes itself
  // is queued, whatever the spawn policy), then all ranks process the pool
  // until it is empty everywhere (distributed termination detection).
  template <class F>
  void pool(F&& seed) {
    run_region(seed, true, true);
  }

 private:
  template <class F>
  void run_region(F& f, bool seed, bool pool) {
    run_region_impl([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); },
                    const_cast<void*>(static_cast<const void*>(std::addressof(f))), seed, pool);
  }
  void run_region_impl(void (*body)(void*), void* ctx, bool seed, bool pool);

  std::unique_ptr<sched::Scheduler> scheduler_;
  // Between processes: set when the program links heist::mpi and the job has
  // several ranks; null otherwise.
  std::unique_ptr<sched::ProcessBalancer> balancer_;
};

// Index of the calling worker in [0, num_workers()), -1 outside the runtime.
int worker_id() noexcept;
int num_workers() noexcept;

namespace detail {
struct ContextAccess;
}

// What a task body may ask the runtime for as its first parameter: its
// nesting level on the worker's stack. The calls given the Context compute
// the child's level in a register instead of loading and storing the
// worker's, and where the run allows it (one process, no continuation
// stealing, a spawn policy whose inline answer stands until a thief asks:
// the default bounded, or inline) a spawn of a body that takes a Context
// runs it inline writing nothing at all: a test of the level against the
// slow path's limit, a test of the thieves' flag, the call, and a test for
// a frame to close (docs/design/spawn-fast-path-and-context.md). Lace
// passes its worker the same way. Such spawns are not
// counted in tasks_created and tasks_inlined (RunStats::uncounted_grants
// says when some were not; --count-context-spawns on counts them, on the
// counted path).
// The contract: a body that takes a Context makes every runtime call
// through it — spawn(ctx, ...), async(ctx, ...), async_any(ctx, ...),
// wait(ctx), finish(ctx, f) (and inside f), fence(ctx), spawn_handle(ctx,
// ...), spawn_after(ctx, ...), wait(ctx, handle) — because on the
// store-free path the worker does not hold its level. The calls without a
// Context belong to bodies without one (and to closures, which run as
// their own tasks). Pass a Context down by value to the calls of the same
// body, never to another task (a closure, another task's body), where its
// level would be wrong.
class Context {
 public:
  int level() const noexcept { return level_; }  // the task's nesting level on its stack

 private:
  friend struct detail::ContextAccess;
  constexpr Context(detail::WorkerCore* worker, int level) noexcept : worker_(worker), level_(level) {}
  // The worker the body runs on where it cannot change (WorkerCore::
  // context_self): the store-free path's test reads it without a TLS load.
  detail::WorkerCore* worker_;
  int level_;
#if HEIST_CHECK_CONTEXT
  const void* body_ = nullptr;  // the body that received it (detail::CheckedBody)
#endif
};

// A registered task: its function is part of the type, so a spawn that runs
// inline calls it directly. Obtain one from register_task; the runtime checks
// ids and input sizes when a task is queued, so a forged id is an error,
// never a wild call. Its body is one of
//   void f(const In&, Out*)   writes its result through the pointer;
//   void f(const In&)         no result (Out is void);
//   R f(In) or R f(const In&) returns its result (Out is R): the value
//                             form, whose input and result travel in
//                             registers when it runs inline;
// each optionally with a Context first (void f(Context, const In&, Out*),
// R f(Context, In), ...), which the body passes to its spawns and waits.
// In must be trivially copyable (it is copied into the slot and may travel
// to another process); so must a returned R (it is written into the
// spawner's variable, possibly by another process's completion).
}  // namespace heist

#include "heist/detail/body_forms.hpp"

namespace heist {

template <auto Body>
class Task {
 public:
  using In = typename detail::FnTraits<decltype(+Body)>::In;
  using Out = typename detail::FnTraits<decltype(+Body)>::Out;
  explicit Task(std::uint32_t id) noexcept : id_(id) {}
  std::uint32_t id() const noexcept { return id_; }

 private:
  std::uint32_t id_;
};

}  // namespace heist

#include "heist/detail/spawn_paths.hpp"

namespace heist {

// Register a task body `void f(const In&, Out*)` or `void f(const In&)` under
// a name unique in the program. All processes run the same binary, so ids
// agree; MPI runs verify it. Call at namespace scope (static initialisation)
// or before the Runtime is created:
//   inline const auto fib_task = heist::register_task<fib_body>("fib");
// In must be trivially copyable (it is copied into the task slot and may
// travel to another process); Out is written in place. A task whose input
// holds pointers into this process's memory is registered with
// Migration::process: it moves between this process's workers, never to
// another rank.
enum class Migration { any, process };

template <auto Body>
Task<Body> register_task(const char* name, Migration migration = Migration::any) {
  using In = typename Task<Body>::In;
  using Out = typename Task<Body>::Out;
  static_assert(std::is_trivially_copyable_v<In>, "task input must be trivially copyable");
  std::size_t out_size = 0;
  if constexpr (!std::is_void_v<Out>) out_size = sizeof(Out);
  return Task<Body>(detail::register_task(name, &detail::invoke_task<+Body, In, Out>, sizeof(In), out_size,
                                          migration == Migration::process));
}

// Spawn a registered task joined to the calling task (HotSLAW put): `*out`
// is written when wait() (or the end of the calling task) returns.
// A value task (`R f(In)`) spawned so writes its returned value to `*out`;
// null discards it. The task is taken by reference, as by async below: only
// the slow path reads its id. Taken by value, the registered id was loaded
// before the inline test on every spawn, though only the slow path needs
// it (docs/design/spawn-fast-path-and-context.md).
template <auto Body>
  requires(!std::is_void_v<typename Task<Body>::Out>)
HEIST_INLINE void spawn(const Task<Body>& task, const typename Task<Body>::In& in, typename Task<Body>::Out* out) {
  detail::check_plain_call("heist::spawn");
  using In = typename Task<Body>::In;
  using Out = typename Task<Body>::Out;
  if (detail::WorkerCore* w = detail::take_inline())
    return detail::run_inline(w, [&] { detail::call_body<Body, In, Out>(in, out); });
  detail::spawn_slow(task.id(), in, out, detail::Join::joined);
}
template <auto Body>
  requires std::is_void_v<typename Task<Body>::Out>
HEIST_INLINE void spawn(const Task<Body>& task, const typename Task<Body>::In& in) {
  detail::check_plain_call("heist::spawn");
  if (detail::WorkerCore* w = detail::take_inline())
    return detail::run_inline(w, [&] { detail::call_body<Body, typename Task<Body>::In, void>(in, nullptr); });
  detail::spawn_slow(task.id(), in, nullptr, detail::Join::joined);
}

// The same, from a body that took a Context: the child runs inline at the
// next level, computed from ctx (and, a body that takes a Context itself,
// where the run allows it, with nothing written: see Context).
template <auto Body>
  requires(!std::is_void_v<typename Task<Body>::Out>)
HEIST_INLINE void spawn(Context ctx, const Task<Body>& task, const typename Task<Body>::In& in,
                        typename Task<Body>::Out* out) {
  detail::check_context_call(ctx, "heist::spawn(ctx, ...)");
  detail::spawn_at<Body>(ctx, task, in, out, detail::Join::joined);
}
template <auto Body>
  requires std::is_void_v<typename Task<Body>::Out>
HEIST_INLINE void spawn(Context ctx, const Task<Body>& task, const typename Task<Body>::In& in) {
  detail::check_context_call(ctx, "heist::spawn(ctx, ...)");
  detail::spawn_at<Body, typename Task<Body>::In, void>(ctx, task, in, nullptr, detail::Join::joined);
}

// Spawn a registered task into the current finish scope; it may outlive the
// caller (escaping async). The migratable form of async.
template <auto Body>
  requires std::is_void_v<typename Task<Body>::Out>
HEIST_INLINE void async(const Task<Body>& task, const typename Task<Body>::In& in) {
  detail::check_plain_call("heist::async");
  if (detail::WorkerCore* w = detail::take_inline())
    return detail::run_inline_async(w, [&] { detail::call_body<Body, typename Task<Body>::In, void>(in, nullptr); });
  detail::spawn_slow(task.id(), in, nullptr, detail::Join::escaping);
}
template <auto Body>
  requires std::is_void_v<typename Task<Body>::Out>
HEIST_INLINE void async(Context ctx, const Task<Body>& task, const typename Task<Body>::In& in) {
  detail::check_context_call(ctx, "heist::async(ctx, ...)");
  detail::async_at<Body, typename Task<Body>::In>(ctx, task, in);
}

}  // namespace heist

#include "heist/detail/closure_paths.hpp"

namespace heist {

// Spawn a local-only closure into the current finish scope. It may capture
// references (they must outlive the enclosing finish); it never leaves this
// process. F is run exactly once.
template <class F>
void async(F&& f) {
  detail::check_plain_call("heist::async");
  using Fn = std::decay_t<F>;
#if HEIST_CHECK_CONTEXT
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_inline_async(w, [&] { detail::call_closure(f); });
#else
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_inline_async(w, std::forward<F>(f));
#endif
  Fn object(std::forward<F>(f));
  detail::spawn_closure(detail::closure_ops<Fn>(), &object);
}
// The same from a body that took a Context. The closure runs as a task of
// its own, without one: inline, at the next level, stored for its calls.
template <class F>
void async(Context ctx, F&& f) {
  detail::check_context_call(ctx, "heist::async(ctx, ...)");
  using Fn = std::decay_t<F>;
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_closure_inline_at(w, ctx, std::forward<F>(f));
  detail::sync_level(ctx);
  Fn object(std::forward<F>(f));
  detail::spawn_closure(detail::closure_ops<Fn>(), &object);
}

// Spawn a migratable lambda into the current finish scope (HabaneroUPC++'s
// asyncAny): its captures must be trivially copyable values (no references
// to this process's memory), so it may run in another process.
template <class F>
void async_any(F&& f) {
  using Fn = std::decay_t<F>;
  static_assert(std::is_trivially_copyable_v<Fn>,
                "async_any: captures must be trivially copyable values; use async() for closures "
                "that capture references or own resources");
  detail::check_plain_call("heist::async_any");
#if HEIST_CHECK_CONTEXT
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_inline_async(w, [&] { detail::call_closure(f); });
#else
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_inline_async(w, std::forward<F>(f));
#endif
  const Fn object(std::forward<F>(f));
  detail::spawn_registered(detail::closure_task_id<Fn>, &object, sizeof(Fn), nullptr,
                           detail::Join::escaping);
}
// The same from a body that took a Context (the closure runs without one).
template <class F>
void async_any(Context ctx, F&& f) {
  using Fn = std::decay_t<F>;
  static_assert(std::is_trivially_copyable_v<Fn>,
                "async_any: captures must be trivially copyable values; use async() for closures "
                "that capture references or own resources");
  detail::check_context_call(ctx, "heist::async_any(ctx, ...)");
  if (detail::WorkerCore* w = detail::take_inline()) return detail::run_closure_inline_at(w, ctx, std::forward<F>(f));
  detail::sync_level(ctx);
  const Fn object(std::forward<F>(f));
  detail::spawn_registered(detail::closure_task_id<Fn>, &object, sizeof(Fn), nullptr,
                           detail::Join::escaping);
}

// Run f, then wait (executing and stealing tasks) until every task spawned
// inside f — transitively, escaping ones included — has completed. Nests.
// An exception of a task it governs (an async, or a task the body spawned
// and did not wait for) is raised here once all of them completed: the
// first one recorded; the async calls themselves never throw it. A body
// that threw raises its own exception.
// Where waits suspend (work-first and adaptive; --suspend-waits on; by
// default when the run spans processes) it suspends instead: the worker
// goes on with other work, and the code after finish continues on
// whichever worker takes it up once the scope's last task completed (it
// may be another thread).
template <class F>
void finish(F&& f) {
  detail::check_plain_call("heist::finish");
  detail::run_finish(detail::finish_begin(), std::forward<F>(f));
}

// A finish whose tasks (those spawned inside f, transitively, until a nested
// finish chooses again) spawn under `policy` instead of the run's policy.
// work-first and adaptive need a run with continuations (Options::
// continuations on, or a run policy that steals continuations): otherwise
// std::logic_error.
template <class F>
void finish(SpawnPolicy policy, F&& f) {
  detail::check_plain_call("heist::finish");
  detail::run_finish(detail::finish_begin_with(static_cast<int>(policy)), std::forward<F>(f));
}
// The same from a body that took a Context; f, part of that body, makes its
// calls through the same Context (its level is the body's inside the scope).
template <class F>
void finish(Context ctx, F&& f) {
  detail::check_context_call(ctx, "heist::finish(ctx, ...)");
  detail::sync_level(ctx);
  detail::run_finish(detail::finish_begin(), std::forward<F>(f), [ctx] { detail::sync_level(ctx); });
}
template <class F>
void finish(Context ctx, SpawnPolicy policy, F&& f) {
  detail::check_context_call(ctx, "heist::finish(ctx, ...)");
  detail::sync_level(ctx);
  detail::run_finish(detail::finish_begin_with(static_cast<int>(policy)), std::forward<F>(f),
                     [ctx] { detail::sync_level(ctx); });
}

// Wait for the tasks the calling task spawned with spawn(); keeps executing
// and stealing meanwhile, or suspends where finish does (see above). Once
// all of them completed it raises the first exception one of them threw
// (a child run inline raised its own at its spawn already); returning
// normally, it found every output written.
HEIST_INLINE void wait() {
  detail::check_plain_call("heist::wait()");
  detail::WorkerCore* w = detail::tls_worker;  // never null: outside_worker's frame is fenced
  // No frame at the caller's level: it queued no joined child.
  if (w->above_frame != 0 || w->frame->nothing_to_wait_for()) return;
  detail::wait_slow();
}
// The same from a body that took a Context: its task has a frame only if
// the innermost frame is at its level (above_frame is 0 then). The first
// test reads the Context's worker, with no TLS load, and where the last
// thing before the wait was a store-free spawn, whose close test read the
// same word against the same level, the compiler drops it too
// (docs/design/spawn-fast-path-and-context.md). It
// passes only for a body with a frame, or where the Context carries
// roaming_worker (INT_MAX: a body that may have changed worker); the
// frame's test follows on the worker read afresh, the rest out of line
// (with more code inline GCC stopped unrolling fib's bodies). No
// expectation on the first test: marked unlikely it sends every roaming
// wait (work-first) through a taken branch, and unmarked it gains as much
// where the worker is the Context's
// (docs/design/spawn-fast-path-and-context.md).
HEIST_INLINE void wait(Context ctx) {
  detail::check_context_call(ctx, "heist::wait(ctx)");
  if (detail::ContextAccess::worker(ctx)->frame_level >= ctx.level()) {
    if (__builtin_expect(detail::tls_worker->frame_level == ctx.level(), 0)) detail::wait_own_frame();
  }
}

// Tasks the calling task spawns after fence() start only after all tasks it
// spawned before fence() have completed. Does not block.
namespace detail {
void fence_here();
}
inline void fence() {
  detail::check_plain_call("heist::fence()");
  detail::fence_here();
}
inline void fence(Context ctx) {
  detail::check_context_call(ctx, "heist::fence(ctx)");
  detail::sync_level(ctx);
  detail::fence_here();
}

// A handle on one spawned task, for dependencies (HotSLAW's sync node).
class TaskHandle {
 public:
  TaskHandle() = default;
  TaskHandle(const TaskHandle& o) noexcept : node_(o.node_) { if (node_) detail::sync_retain(node_); }
  TaskHandle(TaskHandle&& o) noexcept : node_(std::exchange(o.node_, nullptr)) {}
  TaskHandle& operator=(TaskHandle o) noexcept { std::swap(node_, o.node_); return *this; }
  ~TaskHandle() { if (node_) detail::sync_release(node_); }
  bool valid() const noexcept { return node_ != nullptr; }
  bool done() const noexcept { return node_ && detail::sync_done(node_); }
  detail::SyncNode* node() const noexcept { return node_; }

 private:
  friend struct HandleAccess;
  explicit TaskHandle(detail::SyncNode* adopted) noexcept : node_(adopted) {}
  detail::SyncNode* node_ = nullptr;
};

struct HandleAccess {
  static TaskHandle adopt(detail::SyncNode* node) noexcept { return TaskHandle(node); }
};

// Spawn a registered task (joined, like spawn; always queued) that starts
// only after every task in `after` has completed, and get a handle on it.
namespace detail {
template <auto Body>
TaskHandle spawn_after_here(std::initializer_list<TaskHandle> after, Task<Body> task,
                            const typename Task<Body>::In& in, typename Task<Body>::Out* out) {
  detail::SyncNode* deps[32] = {};  // initialised: GCC's -Wmaybe-uninitialized cannot follow the count
  std::size_t n = 0;
  for (const TaskHandle& h : after) {
    if (n == 32) throw std::invalid_argument("heist::spawn_after: at most 32 dependencies");
    if (h.valid()) deps[n++] = h.node();
  }
  return HandleAccess::adopt(detail::spawn_with_handle(task.id(), &in, sizeof in, out, deps, n));
}
}  // namespace detail
template <auto Body>
TaskHandle spawn_after(std::initializer_list<TaskHandle> after, Task<Body> task,
                       const typename Task<Body>::In& in, typename Task<Body>::Out* out = nullptr) {
  detail::check_plain_call("heist::spawn_after");
  return detail::spawn_after_here(after, task, in, out);
}
// Spawn with a handle and no dependencies.
template <auto Body>
TaskHandle spawn_handle(Task<Body> task, const typename Task<Body>::In& in,
                        typename Task<Body>::Out* out = nullptr) {
  detail::check_plain_call("heist::spawn_handle");
  return HandleAccess::adopt(detail::spawn_with_handle(task.id(), &in, sizeof in, out, nullptr, 0));
}

// Wait (executing and stealing) until the task behind the handle completed.
inline void wait(const TaskHandle& handle) {
  detail::check_plain_call("heist::wait(handle)");
  if (handle.valid()) detail::wait_sync(handle.node());
}

// The handle calls from a body that took a Context.
template <auto Body>
TaskHandle spawn_after(Context ctx, std::initializer_list<TaskHandle> after, Task<Body> task,
                       const typename Task<Body>::In& in, typename Task<Body>::Out* out = nullptr) {
  detail::check_context_call(ctx, "heist::spawn_after(ctx, ...)");
  detail::sync_level(ctx);
  return detail::spawn_after_here(after, task, in, out);
}
template <auto Body>
TaskHandle spawn_handle(Context ctx, Task<Body> task, const typename Task<Body>::In& in,
                        typename Task<Body>::Out* out = nullptr) {
  detail::check_context_call(ctx, "heist::spawn_handle(ctx, ...)");
  detail::sync_level(ctx);
  return HandleAccess::adopt(detail::spawn_with_handle(task.id(), &in, sizeof in, out, nullptr, 0));
}
inline void wait(Context ctx, const TaskHandle& handle) {
  detail::check_context_call(ctx, "heist::wait(ctx, handle)");
  detail::sync_level(ctx);
  if (handle.valid()) detail::wait_sync(handle.node());
}

}  // namespace heist
