// heist::detail — the inline paths of spawn, async and wait: a body run in place
// with credits, or a task queued through the slow path (detail/abi.hpp).
// Part of heist/heist.hpp, which includes it where the declarations it
// uses end (Context, Task); not a header of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

#ifndef HEIST_INLINE
#error "heist/detail/spawn_paths.hpp is part of heist/heist.hpp: include that"
#endif

namespace heist {

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
// A queued child of the task that failed fails the task: the level closes
// first, then raise_child_failure throws at the spawn.
template <class Call>
HEIST_INLINE void run_inline(WorkerCore* w, Call&& call) {
  bool failed = false;
  {
    struct Level {
      HEIST_ALWAYS_INLINE Level(WorkerCore* worker, bool& failed_child) noexcept
          : saved(worker->above_frame), failed(failed_child) {
        worker->above_frame = saved + 1;
      }
      HEIST_ALWAYS_INLINE ~Level() {
        WorkerCore* now = tls_worker;
        if (__builtin_expect(now->above_frame <= 1, 0)) failed = inline_child_done();
        now->above_frame = saved;
      }
      int saved;
      bool& failed;
    } level(w, failed);
    call();
  }
  if (__builtin_expect(failed, 0)) raise_child_failure();
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
  bool failed = false;
  {
    struct Level {
      HEIST_ALWAYS_INLINE Level(WorkerCore* worker, int level, bool& failed_child) noexcept
          : parent(level), failed(failed_child) {
        worker->above_frame = parent + 1 - worker->frame_level;
      }
      HEIST_ALWAYS_INLINE ~Level() {
        WorkerCore* now = tls_worker;
        if (__builtin_expect(now->frame_level >= parent, 0)) failed = inline_child_done(parent + 1);
        now->above_frame = parent - now->frame_level;
      }
      int parent;
      bool& failed;
    } level(w, parent.level(), failed);
    call(ContextAccess::at(w->context_self, parent.level() + 1));
  }
  if (__builtin_expect(failed, 0)) raise_child_failure();
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
    bool failed = false;
    {
      struct Close {
        HEIST_ALWAYS_INLINE ~Close() {
          if (__builtin_expect(worker->frame_level >= level - 1, 0)) failed = inline_child_done(level);
        }
        WorkerCore* worker;
        int level;
        bool& failed;
      } close{w, parent.level() + 1, failed};
      call(ContextAccess::at(w, parent.level() + 1));
    }
    if (__builtin_expect(failed, 0)) raise_child_failure();
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

}  // namespace heist
