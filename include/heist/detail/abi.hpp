// The library entry points and the little worker state that the inline
// templates of heist.hpp use. Not part of the public API: names, layout and
// signatures may change between versions.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace heist::detail {

// A registered task body: reads its input, writes its output (may be null).
// The signature of a C task (heist.h), so C functions register directly.
using TaskInvoke = void (*)(void* in, void* out);

// Counts the outstanding tasks of a finish scope or of a task's joined
// children. Split so that the common case — the owner (the execution context
// that opened the scope and waits on it: a worker's thread stack, or the
// fiber a task runs on) running its own tasks — needs no atomic:
//   pending = local + remote
//   local:  changed only by the owner (+1 per task it registers, -1 per task it completes)
//   remote: atomic, +1/-1 for registrations/completions by any other context
// Every task's -1 follows its +1 in `remote`'s modification order, and a
// child registers before its parent completes, so the sum is never 0 while a
// task is outstanding. Completions use release and the owner's check
// acquire, so a task's outputs are visible once the owner sees 0.
// A suspended waiter (work-first, sched/continuations.hpp) folds `local`
// into `remote` with kWaiting added; the completion that brings `remote`
// down to exactly kWaiting is the last one, and it resumes `waiter`.
struct TaskFailure;  // sched/task_failure.hpp: an exception on its way to the join that raises it
void drop_failure(std::atomic<TaskFailure*>& failure) noexcept;

struct FinishScope {
  static constexpr std::int64_t kWaiting = std::int64_t{1} << 62;

  FinishScope() = default;
  FinishScope(const FinishScope&) = delete;
  FinishScope& operator=(const FinishScope&) = delete;
  ~FinishScope() {
    if (failure.load(std::memory_order_relaxed) != nullptr) [[unlikely]] drop_failure(failure);
  }

  int owner = -1;           // the owning stack's id (worker index for a thread's own stack); a proxy's: its worker's
  std::int8_t policy = -1;  // spawn policy of tasks whose IEF this is (SpawnPolicy); -1: the run's
  std::uint8_t proxy = 0;   // kNotProxy, or a worker's stand-in for another's scope (sched/proxy_scope.hpp)
  std::int64_t local = 0;   // owner-only
  std::atomic<std::int64_t> remote{0};
  FinishScope* saved_ief = nullptr;  // owner-only: the finish this one nests in
  void* waiter = nullptr;            // the suspended owner, while remote carries kWaiting
  // The first exception of a task counted here (sched/task_failure.hpp):
  // written before that task's completion (whose release publishes it),
  // taken by the join that waits for this scope once it drained.
  std::atomic<TaskFailure*> failure{nullptr};

  bool drained_for_owner() const noexcept {
    return local + remote.load(std::memory_order_acquire) == 0;
  }
};

// The part of a task's frame that inline wait() reads.
struct FrameCore {
  FinishScope join;     // the task's joined children (spawn/wait)
  int level = 0;        // WorkerCore::level of the task this frame belongs to
  bool fenced = false;  // fence() was called: wait() must take the slow path

  // Nothing for a wait on this frame to do: a join scope counts only its
  // task's own spawns, so local == 0 means drained (thieves' completions
  // only ever subtract from remote), and no fence holds tasks back.
  bool nothing_to_wait_for() const noexcept { return join.local == 0 && !fenced; }
};

// The part of a worker that inline spawn/async/wait read and write. Owned by
// one thread; reached through tls_worker. Two cache lines (64 bytes, as
// platform::kCacheLine): the first holds what the owner writes on every
// inline spawn, the second what thieves write (work_wanted,
// context_limit), so a thief that looks at or raises the flag never takes
// the owner's line away.
struct WorkerCore {
  // Inline credits: while negative, spawns run inline without calling into
  // the library, each adding one; at 0 the next spawn takes the slow path,
  // whose spawn policy decides and may grant new credits. Spent credits are
  // the count of fast-path inline spawns (the worker derives it).
  // Invariant: room < 0 only while the innermost frame (`frame`) is not
  // fenced — fence(), entering a fenced frame and a stack switch to one
  // drop the credits, and the slow path grants none there — so the fast
  // path needs no fence test.
  alignas(64) std::int64_t room = 0;
  // The nesting level of task bodies on this stack is frame_level +
  // above_frame. A task run inline gets the next level but no frame: one is
  // made only if it queues a joined child, which makes above_frame 0. So the
  // inline path saves it, stores one more before the call and the saved
  // value after it; a 0 found there says the task made a frame to close.
  // wait() tests above_frame against 0 (its task has no frame otherwise).
  int above_frame = 0;
  int frame_level = 0;         // == frame->level, kept here so the inline path reads one line
  FrameCore* frame = nullptr;  // the innermost frame; set only with frame_level
  // What a heist::Context made on this worker carries, so the store-free
  // path's test and wait(Context)'s need no TLS load: this worker where a
  // body never changes worker (no continuations), else &roaming_worker (a
  // body resumed elsewhere must not read this one's state).
  WorkerCore* context_self = nullptr;
  // The checked mode of the Context rule (HEIST_CHECK_CONTEXT, heist.hpp):
  // the innermost task body running on this stack (a detail::CheckedBody),
  // or null; it travels with the stack (sched::StackState). Written only by
  // code built in that mode.
  const void* checked_body = nullptr;
  // Set by a thief that found this worker's public queue empty; the plain
  // fast path then defers to the slow path, which sees the request and queues.
  // Relaxed: a hint; a late or lost flag only delays one task's queueing.
  alignas(64) std::atomic<bool> work_wanted{false};
  // The store-free path of a body that takes a Context: its spawns of
  // Context bodies run inline, writing nothing, while the spawner's level
  // is below this. Set by the slow path's grant to the level the stack can
  // reach where the decision stands until a thief asks
  // (SpawnStep::until_asked) in a run of one process without continuations
  // and without --count-context-spawns; 0 otherwise, and 0 like room under
  // a fence. Those spawns are not counted, and they leave above_frame as
  // they found it: while Context bodies run so, frame_level + above_frame
  // is the level of some task below them on the stack, not theirs. So every
  // call a Context body makes into the library sets above_frame from its
  // Context first (sync_level), the inline frame's close and the end of a
  // Context body entered from the plain paths or a queue (call_body) put
  // it right, and plain calls inside such a body are not
  // allowed (heist::Context).
  // The request is folded into the limit, so the path tests one word, not
  // two: a thief that raises work_wanted then stores 0 here, and the grant
  // that stores a limit then reads work_wanted and stores 0 if it is set.
  // Those four are seq_cst (a Dekker handshake: flag then limit against
  // limit then flag; in their single total order either the grant's read
  // comes after the flag and sees it, or the thief's 0 comes after the
  // grant's limit and stays), so a request is never left behind a standing
  // limit. A 0 that lands late only sends one spawn to the slow path. The
  // owner's other accesses are relaxed: its reads need no order, and it is
  // the only writer of other values. On the thieves' line: a thief writes
  // it, and the owner already reads that line on every plain spawn
  // (work_wanted).
  std::atomic<int> context_limit{0};

  // A request for work: the flag, then the limit's 0 (the write side of the
  // handshake above; the grant's is WorkerQueue::grant). Raised by a thief,
  // or by the owner for another rank's request.
  void ask_for_work() noexcept {
    work_wanted.store(true, std::memory_order_seq_cst);
    context_limit.store(0, std::memory_order_seq_cst);
  }
};
static_assert(sizeof(WorkerCore) == 128, "WorkerCore: the owner's line, then the thieves' line");

// What tls_worker points at on a thread that is not a worker: a WorkerCore
// no inline path can use (room 0: every spawn takes the slow path; a fenced
// frame at its level: every wait() does), so the fast paths need no null
// test, and the slow paths report the misuse. Never written.
extern WorkerCore outside_worker;

// What a heist::Context carries where a body may change worker (a run with
// continuations), and outside the runtime: its context_limit is 0, so no
// spawn takes the store-free path, and its frame_level is INT_MAX, so
// every wait(Context) reads the worker afresh. Never written.
extern WorkerCore roaming_worker;

// The calling thread's worker, or &outside_worker outside the runtime. Initial-exec
// TLS even in -fPIC code: every read is a %fs-relative load, so code that a
// stolen continuation resumes on another thread reads that thread's worker
// (the general-dynamic model's __tls_get_addr result may be reused by the
// optimiser within a function; see platform/fiber.hpp).
extern constinit thread_local WorkerCore* tls_worker [[gnu::tls_model("initial-exec")]];

// A local-only closure, described so the library can run it in place
// (inline), copy it into a task slot, or box it on the heap.
struct ClosureOps {
  void (*run_in_place)(void* object);  // call the object where it is (inline execution)
  // Copy the object, then call the copy: for a task slot, which the
  // closure's own spawns may reuse. Null unless trivially_copyable.
  void (*run_copy)(const void* object);
  void (*run_boxed)(void* box);        // call and delete a heap box
  void* (*make_box)(void* object);     // move the object into a new heap box
  std::size_t size;
  std::size_t align;
  bool trivially_copyable;  // may be copied into a slot with memcpy
};

std::uint32_t register_task(const char* name, TaskInvoke invoke, std::size_t in_size,
                            std::size_t out_size, bool local_only = false);
// An async_any closure type, named by its typeid name. Closure types with
// internal linkage in different translation units can share that name, so a
// repeat is registered as "<name>#2", "#3", ... (in registration order,
// which is the same in every process of the binary).
std::uint32_t register_closure_task(const char* type_name, TaskInvoke invoke, std::size_t in_size);

enum class Join : std::uint8_t {
  escaping,  // registers with the current finish scope (X10 async)
  joined,    // registers with the spawning task; waited for by wait() and at task end
};

void spawn_registered(std::uint32_t fn, const void* in, std::size_t in_size, void* out, Join join);
// The same for an input of in_size <= 8 bytes, held in the first bytes of `in`.
void spawn_registered_word(std::uint32_t fn, std::uint64_t in, std::size_t in_size, void* out, Join join);
void spawn_closure(const ClosureOps& ops, void* object);
void wait_slow();
// wait(Context) of a body whose frame is the calling worker's innermost.
void wait_own_frame();
// An inline task at `child_level` ended, with a frame of its own or its
// spawner with one (the inline paths test for either with one compare):
// closes the task's frame (its implicit wait), and if the task threw,
// waits for the spawner's queued children, whose outputs may point into
// the spawner's locals, which the exception is about to destroy. Returns
// true when the task failed with the first failure of its own queued
// children, which it keeps for raise_child_failure (called by the inline
// path once it has closed the level: the inline paths' destructors do not
// throw, which keeps their code that of a plain call); false, keeping
// nothing, while an exception is already unwinding the task.
bool inline_child_done(int child_level);
// The same for a task whose level the worker holds (the plain inline path):
// no argument, which keeps that path's code small at every spawn (with the
// level computed for an argument, GCC stopped unrolling other recursive
// bodies of the same file; docs/design/spawn-fast-path-and-context.md).
bool inline_child_done();
// Throws the failure the last inline_child_done of this thread kept.
[[noreturn]] void raise_child_failure();
// Called from the handler of an async that ran inline and threw: records
// the exception for the finish that governs the async (the async call
// itself returns normally, as for a queued async).
void inline_async_failed() noexcept;

struct SyncNode;  // completion record of a task with a handle
SyncNode* spawn_with_handle(std::uint32_t fn, const void* in, std::size_t in_size, void* out,
                            SyncNode* const* after, std::size_t n_after);
void sync_retain(SyncNode* node) noexcept;
void sync_release(SyncNode* node) noexcept;
bool sync_done(const SyncNode* node) noexcept;
void wait_sync(SyncNode* node);

FrameCore* finish_begin();
FrameCore* finish_begin_with(int policy);  // a finish whose tasks spawn under `policy` (SpawnPolicy)
void finish_end(FrameCore* finish);             // helps until the scope's tasks are done, then closes it
void finish_abort(FrameCore* finish) noexcept;  // the body threw: wait, close, let the exception go on

}  // namespace heist::detail
