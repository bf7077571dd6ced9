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
namespace detail {
template <class F>
struct FnTraits;
template <class I, class O>
struct FnTraits<void (*)(const I&, O*)> {
  using In = I;
  using Out = O;
  static constexpr bool returns = false;
  static constexpr bool takes_context = false;
};
template <class R, class A>
struct FnTraits<R (*)(A)> {
  using In = std::remove_cvref_t<A>;
  using Out = R;
  static constexpr bool returns = !std::is_void_v<R>;
  static constexpr bool takes_context = false;
  static_assert(std::is_same_v<A, In> || std::is_same_v<A, const In&>,
                "a task body takes its input by value or by const reference");
  static_assert(std::is_void_v<R> || std::is_trivially_copyable_v<R>,
                "a task body's returned value must be trivially copyable");
};
// The same forms with a Context first.
template <class I, class O>
struct FnTraits<void (*)(Context, const I&, O*)> : FnTraits<void (*)(const I&, O*)> {
  static constexpr bool takes_context = true;
};
template <class R, class A>
struct FnTraits<R (*)(Context, A)> : FnTraits<R (*)(A)> {
  static constexpr bool takes_context = true;
};

struct ContextAccess {
  static constexpr Context at(WorkerCore* worker, int level) noexcept { return Context(worker, level); }
  static constexpr WorkerCore* worker(Context c) noexcept { return c.worker_; }
#if HEIST_CHECK_CONTEXT
  static Context bound(Context c, const void* body) noexcept {
    c.body_ = body;
    return c;
  }
  static const void* body(Context c) noexcept { return c.body_; }
#endif
};

// The checked mode (HEIST_CHECK_CONTEXT): every task body and closure the
// runtime calls is entered through a CheckedBody on its own stack, which
// the worker's checked_body points at while it is the innermost one (the
// pointer travels with the stack under continuation stealing). A plain
// call asks whether the innermost body takes a Context; a call given a
// Context, whether that Context was made for the innermost body.
#if HEIST_CHECK_CONTEXT
struct CheckedBody {
  explicit CheckedBody(bool context) noexcept : takes_context(context), outer(tls_worker->checked_body) {
    tls_worker->checked_body = this;
  }
  ~CheckedBody() { tls_worker->checked_body = outer; }  // read afresh: the body may end on another worker
  CheckedBody(const CheckedBody&) = delete;
  CheckedBody& operator=(const CheckedBody&) = delete;
  bool takes_context;
  const void* outer;
};
[[noreturn, gnu::noinline, gnu::cold]] inline void context_rule_broken(const char* call, bool plain) {
  throw std::logic_error(
      std::string(call) +
      (plain ? ": a plain call inside a task body that takes a heist::Context; make it through the Context "
               "(e.g. heist::wait(ctx)): the worker does not hold such a body's level"
             : ": given a heist::Context outside the body that received it (another task, a closure, or after "
               "that body returned); a Context belongs to the calls of its own body"));
}
#endif
HEIST_INLINE void check_plain_call([[maybe_unused]] const char* call) {
#if HEIST_CHECK_CONTEXT
  const auto* body = static_cast<const CheckedBody*>(tls_worker->checked_body);
  if (body != nullptr && body->takes_context) context_rule_broken(call, true);
#endif
}
HEIST_INLINE void check_context_call([[maybe_unused]] Context ctx, [[maybe_unused]] const char* call) {
#if HEIST_CHECK_CONTEXT
  if (ContextAccess::body(ctx) != tls_worker->checked_body) context_rule_broken(call, false);
#endif
}
// Calls a closure the runtime runs as a task (async, async_any): a plain body.
template <class F>
HEIST_INLINE void call_closure(F&& f) {
#if HEIST_CHECK_CONTEXT
  const CheckedBody checked(false);
#endif
  std::forward<F>(f)();
}
}  // namespace detail

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

namespace detail {
// Body's own arguments, after the Context c if it takes one (for
// call_body_at, which every spawn calls the body through).
template <auto Body, class... Args>
HEIST_INLINE decltype(auto) apply_body([[maybe_unused]] Context c, Args&&... args) {
  if constexpr (FnTraits<decltype(+Body)>::takes_context) {
    return Body(c, std::forward<Args>(args)...);
  } else {
    return Body(std::forward<Args>(args)...);
  }
}

// Calls a task body at level `c` with its input and where its result goes
// (null, or when Out is void, for none): the one place that knows the body
// forms.
template <auto Body, class In, class Out>
HEIST_INLINE void call_body_at(Context c, const In& input, Out* out) {
#if HEIST_CHECK_CONTEXT
  const CheckedBody checked(FnTraits<decltype(+Body)>::takes_context);
  c = ContextAccess::bound(c, &checked);
#endif
  if constexpr (FnTraits<decltype(+Body)>::returns) {
    if (out != nullptr) {
      *out = apply_body<Body>(c, input);
    } else {
      (void)apply_body<Body>(c, input);
    }
  } else if constexpr (std::is_void_v<Out>) {
    (void)out;
    apply_body<Body>(c, input);
  } else {
    apply_body<Body>(c, input, out);
  }
}

// The level of the task running on the calling worker's stack now.
HEIST_INLINE Context context_here() noexcept {
  const WorkerCore* w = tls_worker;
  return ContextAccess::at(w->context_self, w->frame_level + w->above_frame);
}

// call_body_at at the calling worker's level, read only for a body that
// takes a Context. Such a body's store-free spawns leave the worker's level
// behind (WorkerCore::context_limit), and its caller (a plain inline spawn,
// whose close test reads above_frame, or the slow path) holds the level:
// the body's own is stored again when it ends, by return or by throw.
template <auto Body, class In, class Out>
HEIST_INLINE void call_body(const In& input, Out* out) {
  if constexpr (FnTraits<decltype(+Body)>::takes_context) {
    const Context c = context_here();
    struct Exact {
      HEIST_ALWAYS_INLINE ~Exact() {
        WorkerCore* now = tls_worker;
        now->above_frame = level - now->frame_level;
      }
      int level;
    } exact{c.level()};
    call_body_at<Body>(c, input, out);
  } else {
    call_body_at<Body>(ContextAccess::at(nullptr, 0), input, out);  // unused
  }
}

template <auto Body, class In, class Out>
void invoke_task(void* in, void* out) {
  // The slot holds a byte copy of an In (trivially copyable, so an In object
  // lives there implicitly); launder makes the pointer valid for it. The
  // copy comes first: a queued task runs in place, and the body's first
  // spawn may reuse its slot.
  const In input = *std::launder(static_cast<const In*>(in));
  call_body<Body, In, Out>(input, static_cast<Out*>(out));
}

// The inline fast path of every spawn: the calling worker, if it runs the
// new task inline now, spending one of the inline credits its last slow-path
// decision granted (inline; work-first while nothing is to be exposed;
// bounded with a full queue); else nullptr.
HEIST_INLINE WorkerCore* take_inline() noexcept {
  WorkerCore* w = tls_worker;  // never null: outside_worker has no credits
  // No fence test: a worker whose innermost frame called fence() holds no
  // credits (WorkerCore::room), so its spawns take the slow path, which
  // checks whether the fence holds the new task back.
  // Each test expected true on its own: with [[likely]] on the whole
  // condition GCC 12 laid the inline path out of line, behind a taken
  // branch, and made the call of the slow path the fall-through (one
  // instruction a task more; docs/design/spawn-fast-path-and-context.md).
  if (__builtin_expect(w->room < 0, 1) && __builtin_expect(!w->work_wanted.load(std::memory_order_relaxed), 1)) {
    ++w->room;
    return w;
  }
  return nullptr;
}

// Runs a task inline at the next nesting level; if the task queued joined
// children (and so got a frame: above_frame is 0 at its end), waits for them
// before returning. The level is saved on entry and stored back at the end,
// not counted up and down: a read-modify-write of above_frame on entry and
// another on exit made one chain through memory, two store-to-load
// forwardings a task, and that chain set the pace of fine-grained
// recursion (docs/design/spawn-fast-path-and-context.md). Under
// work-first the task may end on another worker (a thief took its
// continuation), so the level is closed on the worker read afresh; its
// above_frame is the stack's (a stack switch swaps it in), and the task
// left it at saved + 1 unless it made a frame. The implicit wait in
// inline_child_done helps in place and never moves the task.
// The end's test, one compare, also catches a spawner with a frame (its
// child ends one level above it): inline_child_done then waits for the
// spawner's queued children if the child threw, before the exception
// unwinds the spawner's locals, which their outputs may point into. (A
// try/catch around the call would do the same, but GCC then no longer
// unrolls the bodies through the inline path:
// docs/design/spawn-fast-path-and-context.md.)
template <class Call>
HEIST_INLINE void run_inline(WorkerCore* w, Call&& call) {
  struct Level {
    HEIST_ALWAYS_INLINE explicit Level(WorkerCore* worker) noexcept : saved(worker->above_frame) {
      worker->above_frame = saved + 1;
    }
    // May throw: a queued child of the task failed (inline_child_done).
    HEIST_ALWAYS_INLINE ~Level() noexcept(false) {
      WorkerCore* now = tls_worker;
      if (__builtin_expect(now->above_frame <= 1, 0)) inline_child_done();
      now->above_frame = saved;
    }
    int saved;
  } level(w);
  call();
}

// run_inline for an async: like a queued one, it never throws at its call;
// its exception goes to the finish that governs it (inline_async_failed).
// The body's exception is caught inside the level, so no exception passes
// the inline path's end (which would take it for the spawner's and join
// the spawner's queued children early for it); the outer handler takes the
// failure of the async's own queued children, which its frame's close
// raises. Only the run is caught: errors of the spawn itself (a misuse)
// still leave the call.
template <class Call>
HEIST_INLINE void run_inline_async(WorkerCore* w, Call&& call) {
  try {
    run_inline(w, [&] {
      try {
        std::forward<Call>(call)();
      } catch (...) {
        inline_async_failed();
      }
    });
  } catch (...) {
    inline_async_failed();
  }
}
// The same for run_inline_at and run_inline_free, whose call takes the
// child's Context.
template <class Call>
HEIST_INLINE auto caught_async(Call& call) {
  return [&call](Context child) {
    try {
      call(child);
    } catch (...) {
      inline_async_failed();
    }
  };
}

// run_inline for a spawner that knows its level (its Context): the child's
// level is computed, not loaded, so no spawn waits for the store of the one
// before it. above_frame is still stored, for the slow paths and the plain
// calls, from the frame's level, which only the slow path writes: a child
// that made a frame left frame_level at its own level. The same work-first
// and close rules as run_inline.
template <class Call>
HEIST_INLINE void run_inline_at(WorkerCore* w, Context parent, Call&& call) {
  struct Level {
    HEIST_ALWAYS_INLINE Level(WorkerCore* worker, int level) noexcept : parent(level) {
      worker->above_frame = parent + 1 - worker->frame_level;
    }
    HEIST_ALWAYS_INLINE ~Level() noexcept(false) {
      WorkerCore* now = tls_worker;
      if (__builtin_expect(now->frame_level >= parent, 0)) inline_child_done(parent + 1);
      now->above_frame = parent - now->frame_level;
    }
    int parent;
  } level(w, parent.level());
  call(ContextAccess::at(w->context_self, parent.level() + 1));
}

// Before a Context body calls into the library (a slow path): the worker
// holds the body's level again (WorkerCore::context_limit). One store.
HEIST_INLINE WorkerCore* sync_level(Context ctx) noexcept {
  WorkerCore* w = tls_worker;
  w->above_frame = ctx.level() - w->frame_level;
  return w;
}

// The store-free inline path (WorkerCore::context_limit) of a spawn from a
// body at level `parent` of a body that takes a Context: if the slow path's
// last grant allows it, runs the child at the next level and returns true.
// Nothing is written: no credit spent, no level stored. A frame at the
// child's level after it is the child's own (it queued joined children):
// close it. The worker is the Context's: where its limit can be set, no
// body changes worker (WorkerCore::context_self), so no TLS load.
template <class Call>
HEIST_INLINE bool run_inline_free(Context parent, Call&& call) {
  WorkerCore* w = ContextAccess::worker(parent);
  // One test: a thief's request zeroes the limit (WorkerCore::context_limit).
  if (__builtin_expect(parent.level() < w->context_limit.load(std::memory_order_relaxed), 1)) {
    struct Close {
      HEIST_ALWAYS_INLINE ~Close() noexcept(false) {
        if (__builtin_expect(worker->frame_level >= level - 1, 0)) inline_child_done(level);
      }
      WorkerCore* worker;
      int level;
    } close{w, parent.level() + 1};
    call(ContextAccess::at(w, parent.level() + 1));
    return true;
  }
  return false;
}

// The slow path of a registered spawn. An input of up to 8 bytes travels in
// a register (spawn_registered_word): where the slow path took its
// address, the inline path, which shares the object, stored every input to
// the stack and loaded it back for the body.
template <class In>
HEIST_INLINE void spawn_slow(std::uint32_t fn, const In& in, void* out, Join join) {
  if constexpr (sizeof(In) <= sizeof(std::uint64_t)) {
    std::uint64_t word = 0;
    std::memcpy(&word, &in, sizeof in);
    spawn_registered_word(fn, word, sizeof in, out, join);
  } else {
    spawn_registered(fn, &in, sizeof in, out, join);
  }
}

// A registered spawn from a body that took a Context: the store-free path
// for a child that takes one too, else the counted inline path (a plain
// child needs the level stored: its own calls load it), else the slow path
// at the body's level. The task is passed by reference and its id read
// only on the slow path (as spawn does).
template <auto Body, class In, class Out>
HEIST_INLINE void spawn_at_counted(Context ctx, const Task<Body>& task, const In& in, Out* out, Join join) {
  if (WorkerCore* w = take_inline())
    return run_inline_at(w, ctx, [&](Context child) { call_body_at<Body, In, Out>(child, in, out); });
  sync_level(ctx);
  spawn_slow(task.id(), in, out, join);
}
// The same out of line, for a spawner on the store-free path: it then keeps
// only what that path needs in registers: with both paths inline the
// spawner lost them (docs/design/spawn-fast-path-and-context.md). A small
// input travels by value: by reference it was stored to the stack before
// every spawn's test.
template <auto Body, class In, class Out>
[[gnu::noinline]] void spawn_at_counted_out_of_line(Context ctx, const Task<Body>& task,
                                                   std::conditional_t<(sizeof(In) <= 16), In, const In&> in,
                                                   Out* out, Join join) {
  spawn_at_counted<Body, In, Out>(ctx, task, in, out, join);
}

template <auto Body, class In, class Out>
HEIST_INLINE void spawn_at(Context ctx, const Task<Body>& task, const In& in, Out* out, Join join) {
  if constexpr (FnTraits<decltype(+Body)>::takes_context) {
    if (run_inline_free(ctx, [&](Context child) { call_body_at<Body, In, Out>(child, in, out); })) return;
    spawn_at_counted_out_of_line<Body, In, Out>(ctx, task, in, out, join);
  } else {
    spawn_at_counted<Body, In, Out>(ctx, task, in, out, join);
  }
}

// async(ctx, task, in): spawn_at's paths, each run caught as run_inline_async's.
template <auto Body, class In>
HEIST_INLINE void async_at(Context ctx, const Task<Body>& task, const In& in) {
  auto body = [&](Context child) { call_body_at<Body, In, void>(child, in, nullptr); };
  if constexpr (FnTraits<decltype(+Body)>::takes_context) {
    try {
      if (run_inline_free(ctx, caught_async(body))) return;
    } catch (...) {
      inline_async_failed();
      return;
    }
  }
  if (WorkerCore* w = take_inline()) {
    try {
      run_inline_at(w, ctx, caught_async(body));
    } catch (...) {
      inline_async_failed();
    }
    return;
  }
  sync_level(ctx);
  spawn_slow(task.id(), in, nullptr, Join::escaping);
}
}  // namespace detail

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

namespace detail {
// ClosureOps::run_copy for F, or null where F cannot be copied bytewise
// (such closures are boxed, never copied into a slot).
template <class F>
constexpr auto copy_and_run() noexcept -> void (*)(const void*) {
  if constexpr (std::is_trivially_copyable_v<F>) {
    return [](const void* object) {
      alignas(F) std::byte copy[sizeof(F)];
      std::memcpy(copy, object, sizeof(F));  // begins the lifetime of an F (implicit-lifetime type)
      call_closure(*std::launder(reinterpret_cast<F*>(copy)));
    };
  } else {
    return nullptr;
  }
}

template <class F>
const ClosureOps& closure_ops() {
  static const ClosureOps ops{
      [](void* object) { call_closure(*static_cast<F*>(object)); },
      copy_and_run<F>(),
      [](void* box) {
        std::unique_ptr<F> owned(static_cast<F*>(box));
        call_closure(*owned);
      },
      [](void* object) -> void* { return new F(std::move(*static_cast<F*>(object))); },
      sizeof(F),
      alignof(F),
      std::is_trivially_copyable_v<F> && std::is_trivially_destructible_v<F>,
  };
  return ops;
}

// async(ctx, f) and async_any(ctx, f) inline: the closure runs as a task of
// its own at the next level, without a Context, its exception caught for
// the finish that governs it (run_inline_async).
template <class F>
HEIST_INLINE void run_closure_inline_at(WorkerCore* w, Context ctx, F&& f) {
  auto body = [&](Context) { call_closure(std::forward<F>(f)); };
  try {
    run_inline_at(w, ctx, caught_async(body));
  } catch (...) {
    inline_async_failed();
  }
}
}  // namespace detail

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

namespace detail {
template <class F>
void invoke_closure_task(void* in, void*) {
  F copy = *std::launder(static_cast<const F*>(in));
  call_closure(copy);
}
template <class F>
inline const std::uint32_t closure_task_id =
    register_closure_task(typeid(F).name(), &invoke_closure_task<F>, sizeof(F));
}  // namespace detail

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

namespace detail {
// Runs f inside the finish scope begun as `scope`, and waits for it; `sync`
// runs first whenever the scope is closed (a Context body's level, which
// f's store-free spawns did not keep: sync_level).
template <class F, class Sync>
void run_finish(FrameCore* scope, F&& f, Sync&& sync) {
  try {
    std::forward<F>(f)();
  } catch (...) {
    sync();
    finish_abort(scope);
    throw;
  }
  sync();
  finish_end(scope);
}
template <class F>
void run_finish(FrameCore* scope, F&& f) {
  run_finish(scope, std::forward<F>(f), [] {});
}
}  // namespace detail

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
