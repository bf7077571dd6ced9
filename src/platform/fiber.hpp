// Execution contexts and their stacks: the machine-level switch behind
// continuation stealing (sched/continuations.hpp). A Context is either a
// thread's own stack (a "native" context, adopted where it runs) or a fiber:
// an mmap'd FiberStack on which a function is started with prepare().
// switch_to() saves the running context's registers and resumes another one
// on the calling thread; a suspended fiber may later be resumed by any
// thread, so code after a switch must not assume it runs on the thread that
// switched away (see "thread-local storage" below).
//
// Mechanism: Boost.Context's fcontext (make_fcontext / jump_fcontext, a few
// dozen instructions of assembly saving the callee-saved registers on the
// stack being left). A jump hands one pointer to the context it resumes; we
// hand a Packet naming the context we left, and the arriving side stores the
// left context's saved stack pointer into it (fcontext returns it only to the
// side that arrives). So the left context becomes resumable only after the
// arriving side ran; anything that publishes it (to a deque, to a waiter
// slot) must be done by the arriving side, after arrive() returned.
//
// Sanitizers: ASan is told about every stack switch (start/finish_switch_fiber,
// so it does not mistake the fiber stack for an overflow) and TSan follows
// fibers as its own threads of execution (__tsan_switch_to_fiber). A context
// given up for good (`abandon`) tells ASan to drop its fake stack.
//
// Thread-local storage: after a switch returns, this may be another thread.
// gcc keeps the thread pointer implicit in %fs-relative loads for the
// initial-exec and local-exec TLS models (never caching it in a register),
// but the general-dynamic model (-fPIC code) calls __tls_get_addr, whose
// result the optimiser may reuse within one function. Code that may migrate
// therefore reads thread-local state only through a function that is not
// inlined (sched::Worker::resumed), or takes what it needs from the Packet.
#pragma once

#include <cstddef>

namespace heist::platform {

// A stack for a fiber: `usable` bytes (rounded up to pages) plus a guard
// region below them (64 KiB) that faults on overflow. Memory is reserved, not
// committed: pages are backed as the stack first touches them.
class FiberStack {
 public:
  explicit FiberStack(std::size_t usable);
  ~FiberStack();
  FiberStack(const FiberStack&) = delete;
  FiberStack& operator=(const FiberStack&) = delete;

  char* low() const noexcept { return base_ + guard_; }         // lowest usable byte
  char* high() const noexcept { return base_ + guard_ + size_; }  // one past the top
  std::size_t size() const noexcept { return size_; }

 private:
  char* base_ = nullptr;   // mapping start (the guard page)
  std::size_t guard_ = 0;  // guard bytes
  std::size_t size_ = 0;   // usable bytes
};

// One execution context.
struct Context {
  void* fctx = nullptr;               // registers saved by its last switch away (fcontext)
  const void* stack_low = nullptr;    // its stack (ASan; learnt at the first switch for a native)
  std::size_t stack_size = 0;
  void* tsan = nullptr;               // TSan fiber handle (null without TSan)
  void* asan_fake_stack = nullptr;    // ASan's fake stack while suspended
  void (*entry)(void* message) = nullptr;  // what a prepared fiber starts with (never returns)
};

// Adopt the calling thread's own stack as `ctx` (before its first switch):
// its bounds (pthread_getattr_np) and TSan identity.
void adopt_native(Context& ctx) noexcept;

// Prepare `ctx` to run entry(message) on `stack` when next switched to; any
// previous state of `ctx` on that stack is discarded. `entry` must never
// return: it ends by switching away for good.
void prepare(Context& ctx, FiberStack& stack, void (*entry)(void* message));

// Release what sanitizers keep for a fiber context (not the running one).
void retire(Context& ctx) noexcept;

// Switch from `from` (the running context) to `to`, handing it `message`
// (a prepared fiber receives it as its entry's argument). Returns the
// message handed to `from` by whoever resumes it, possibly on another
// thread. With `abandon`, `from` is never resumed (it may be prepared again).
[[gnu::noinline]] void* switch_to(Context& from, Context& to, void* message, bool abandon = false);

}  // namespace heist::platform
