// Stack-overflow reports. Tasks nest on their worker's stack (tasks run
// inline, tasks run while waiting, the user's own recursion); a stack that
// runs out hits the guard page below it and the process gets SIGSEGV. Without
// help that is a bare "Segmentation fault". With it the process first prints
//   heist: rank R worker W: stack overflow: its S-byte stack is exhausted ...
// naming the option that raises the bound, then dies of the same SIGSEGV as
// before (the launcher still sees a signal death and ends the job).
//
// How: each worker thread gets an alternate signal stack (sigaltstack; only
// if it has none: a sanitizer's or the user's stays), and a process-wide
// SIGSEGV handler (SA_ONSTACK) compares the fault address with the faulting
// thread's stack bounds. Whatever the fault, the handler then puts the
// previous handler back and returns: the faulting access repeats and the
// previous handler (default action, MPI's backtrace printer, ASan) takes it.
// The handler only reads thread-local and global plain data and calls
// write(2) and sigaction(2), both async-signal-safe.
#pragma once

#include <cstddef>
#include <memory>

namespace heist::platform {

// Process-wide: installs the handler while at least one guard is alive
// (reference counted, thread-safe). Call after MPI_Init, so that an MPI
// library's own SIGSEGV handler is the one chained to.
class StackOverflowHandler {
 public:
  explicit StackOverflowHandler(int rank);
  ~StackOverflowHandler();
  StackOverflowHandler(const StackOverflowHandler&) = delete;
  StackOverflowHandler& operator=(const StackOverflowHandler&) = delete;
};

// Per thread, created and destroyed on the guarded thread: records its
// stack bounds and which worker it is, and gives it an alternate signal
// stack if it has none. `hint` names what raises this stack's size.
class ThreadStackGuard {
 public:
  ThreadStackGuard(int worker, const char* hint);
  ~ThreadStackGuard();
  ThreadStackGuard(const ThreadStackGuard&) = delete;
  ThreadStackGuard& operator=(const ThreadStackGuard&) = delete;

 private:
  std::unique_ptr<std::byte[]> alt_stack_;  // null: the thread already had one
};

}  // namespace heist::platform
