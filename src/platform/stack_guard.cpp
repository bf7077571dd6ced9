#include "platform/stack_guard.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>

namespace heist::platform {

namespace {

// The guarded thread's stack, read by the signal handler on that thread.
// constinit + trivial type: static TLS, no lazy initialisation in the handler.
struct ThreadStack {
  std::uintptr_t lo = 0;  // lowest usable address; the guard page lies below
  std::uintptr_t hi = 0;
  int worker = -1;        // -1: not a guarded thread
  const char* hint = nullptr;
};
constinit thread_local ThreadStack t_stack;

// A fault this far below the stack (or a few bytes into it) is an overflow:
// the guard page, or the gap below the main thread's stack, reached by a
// frame that skipped part of the guard.
constexpr std::uintptr_t kBelow = std::uintptr_t{1} << 20;
constexpr std::uintptr_t kInto = 64;
constexpr std::size_t kAltStackBytes = std::size_t{64} << 10;

std::mutex g_mutex;             // install/uninstall (never taken in the handler)
int g_installs = 0;             // guarded by g_mutex
struct sigaction g_previous {};  // written under g_mutex before the handler can run
std::atomic<int> g_rank{0};     // relaxed: written before install, read in the handler

// Async-signal-safe message building: a fixed buffer, no allocation.
class Line {
 public:
  Line& operator<<(const char* text) {
    while (*text != '\0' && n_ < sizeof buffer_) buffer_[n_++] = *text++;
    return *this;
  }
  Line& operator<<(std::uint64_t value) {
    char digits[24];
    int k = 0;
    do {
      digits[k++] = static_cast<char>('0' + value % 10);
      value /= 10;
    } while (value != 0);
    while (k > 0 && n_ < sizeof buffer_) buffer_[n_++] = digits[--k];
    return *this;
  }
  void write_to_stderr() const {
    std::size_t done = 0;
    while (done < n_) {
      const ssize_t w = ::write(STDERR_FILENO, buffer_ + done, n_ - done);
      if (w <= 0) return;
      done += static_cast<std::size_t>(w);
    }
  }

 private:
  char buffer_[640];
  std::size_t n_ = 0;
};

void on_segv(int, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  const ThreadStack& s = t_stack;
  if (s.worker >= 0 && addr < s.lo + kInto && addr + kBelow >= s.lo) {
    Line line;
    line << "heist: rank " << static_cast<std::uint64_t>(g_rank.load(std::memory_order_relaxed)) << " worker "
         << static_cast<std::uint64_t>(s.worker) << ": stack overflow: its " << static_cast<std::uint64_t>(s.hi - s.lo)
         << "-byte stack is exhausted by nested calls (recursion inside a task; tasks run inline by the spawn "
            "policy, or because the deque is full at --deque-max-tasks; tasks run while waiting); raise "
         << s.hint << ", or lower --max-help-depth\n";
    line.write_to_stderr();
  }
  // The faulting access repeats when this returns; the previous handler
  // (or the default action: death by SIGSEGV) takes it.
  sigaction(SIGSEGV, &g_previous, nullptr);
}

}  // namespace

StackOverflowHandler::StackOverflowHandler(int rank) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_rank.store(rank, std::memory_order_relaxed);
  if (g_installs++ > 0) return;
  struct sigaction action {};
  action.sa_sigaction = &on_segv;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  sigaction(SIGSEGV, &action, &g_previous);
}

StackOverflowHandler::~StackOverflowHandler() {
  std::lock_guard<std::mutex> lock(g_mutex);
  if (--g_installs > 0) return;
  struct sigaction current {};
  sigaction(SIGSEGV, nullptr, &current);
  if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &on_segv)
    sigaction(SIGSEGV, &g_previous, nullptr);  // leave a handler installed since then alone
}

ThreadStackGuard::ThreadStackGuard(int worker, const char* hint) {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* addr = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
      t_stack.lo = reinterpret_cast<std::uintptr_t>(addr);
      t_stack.hi = t_stack.lo + size;
      t_stack.hint = hint;
      t_stack.worker = worker;
    }
    pthread_attr_destroy(&attr);
  }
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && (current.ss_flags & SS_DISABLE) != 0) {
    alt_stack_ = std::make_unique<std::byte[]>(kAltStackBytes);
    stack_t ours{};
    ours.ss_sp = alt_stack_.get();
    ours.ss_size = kAltStackBytes;
    if (sigaltstack(&ours, nullptr) != 0) alt_stack_.reset();
  }
}

ThreadStackGuard::~ThreadStackGuard() {
  t_stack = ThreadStack{};
  if (alt_stack_) {
    stack_t off{};
    off.ss_flags = SS_DISABLE;
    sigaltstack(&off, nullptr);
  }
}

}  // namespace heist::platform
