#include "fib/fib.hpp"

#include <heist/heist.hpp>

#include <string>

#include "common/task_io.hpp"

namespace heist::apps::fib {

namespace {

// A task's input is its n alone, as in the sequential code and in Lace's
// fib; the cutoff is a constant of the run (every rank's FibApp sets it
// before the run: set_fib_cutoff). With {n, cutoff} as the input GCC
// assembled the pair through an SSE register on every call, which made the
// value floor (--style value-plain) twice as slow as the recursion over an
// int, and --style plain 1.3x.
int run_cutoff = 0;

// Every registered body below is declared inline. A spawn that runs inline
// calls the body directly, so with the hint GCC unrolls the recursion
// through the inline path (each unrolled child still tests its worker's
// credits and request flag, and may still be queued), as it unrolls
// fib_sequential without one. Without it, -O3 leaves every self-call a
// call: a body with a spawn's slow paths is over GCC's size limit for
// functions not declared inline (max-inline-insns-auto). See
// docs/programming.md, "Fine-grained tasks", and
// docs/results/journal/2026-12-02-task-bodies-declared-inline.md.

inline void fib_body(const int& n, std::uint64_t* out);
const auto fib_task = heist::register_task<fib_body>("apps.fib");

inline void fib_body(const int& n, std::uint64_t* out) {
  if (n < 2) {
    *out = static_cast<std::uint64_t>(n);
    return;
  }
  if (n < run_cutoff) {
    *out = fib_sequential(n);
    return;
  }
  std::uint64_t x, y;
  heist::spawn(fib_task, n - 1, &x);
  heist::spawn(fib_task, n - 2, &y);
  heist::wait();
  *out = x + y;
}

// --style call, Lace's shape: spawn one child, compute the other by a plain
// call on this worker's stack, then wait for the spawned one.
inline void fib_call_body(const int& n, std::uint64_t* out);
const auto fib_call_task = heist::register_task<fib_call_body>("apps.fib.call");

inline void fib_call_body(const int& n, std::uint64_t* out) {
  if (n < 2) {
    *out = static_cast<std::uint64_t>(n);
    return;
  }
  if (n < run_cutoff) {
    *out = fib_sequential(n);
    return;
  }
  std::uint64_t x, y;
  heist::spawn(fib_call_task, n - 1, &x);
  fib_call_body(n - 2, &y);
  heist::wait();
  *out = x + y;
}

// The value form of a task body (`R f(In)`): input and result in registers
// whenever the task runs inline. --style value spawns both children,
// --style value-call is Lace's shape, --style value-plain the floor.
inline std::uint64_t fib_value_body(int n);
const auto fib_value_task = heist::register_task<fib_value_body>("apps.fib.value");

inline std::uint64_t fib_value_body(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  std::uint64_t x, y;
  heist::spawn(fib_value_task, n - 1, &x);
  heist::spawn(fib_value_task, n - 2, &y);
  heist::wait();
  return x + y;
}

inline std::uint64_t fib_value_call_body(int n);
const auto fib_value_call_task = heist::register_task<fib_value_call_body>("apps.fib.value-call");

inline std::uint64_t fib_value_call_body(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  std::uint64_t x;
  heist::spawn(fib_value_call_task, n - 1, &x);
  const std::uint64_t y = fib_value_call_body(n - 2);
  heist::wait();
  return x + y;
}

// The value forms again with a Context (R f(Context, In)): the bodies pass
// it to their spawns and waits, which then compute each child's nesting
// level instead of loading it. --style context spawns both children,
// --style context-call is Lace's shape.
inline std::uint64_t fib_context_body(heist::Context c, int n);
const auto fib_context_task = heist::register_task<fib_context_body>("apps.fib.context");

inline std::uint64_t fib_context_body(heist::Context c, int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  std::uint64_t x, y;
  heist::spawn(c, fib_context_task, n - 1, &x);
  heist::spawn(c, fib_context_task, n - 2, &y);
  heist::wait(c);
  return x + y;
}

inline std::uint64_t fib_context_call_body(heist::Context c, int n);
const auto fib_context_call_task = heist::register_task<fib_context_call_body>("apps.fib.context-call");

inline std::uint64_t fib_context_call_body(heist::Context c, int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  std::uint64_t x;
  heist::spawn(c, fib_context_call_task, n - 1, &x);
  const std::uint64_t y = fib_context_call_body(c, n - 2);
  heist::wait(c);
  return x + y;
}

inline std::uint64_t fib_value_plain_body(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  return fib_value_plain_body(n - 1) + fib_value_plain_body(n - 2);
}
const auto fib_value_plain_task = heist::register_task<fib_value_plain_body>("apps.fib.value-plain");

std::uint64_t fib_closure(int n);

// The closure of --style closure: a local-only async writing through a pointer.
struct FibClosure {
  std::uint64_t* result;
  int n;
  void operator()() const { *result = fib_closure(n); }
};

std::uint64_t fib_closure(int n) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < run_cutoff) return fib_sequential(n);
  std::uint64_t x = 0, y = 0;
  heist::finish([&] {
    heist::async(FibClosure{&x, n - 1});
    heist::async(FibClosure{&y, n - 2});
  });
  return x + y;
}

// --style plain: fib_body's shape, every child a plain call, inline as the
// task bodies are, so that it stays their floor.
inline void fib_plain_body(const int& n, std::uint64_t* out) {
  if (n < 2) {
    *out = static_cast<std::uint64_t>(n);
    return;
  }
  if (n < run_cutoff) {
    *out = fib_sequential(n);
    return;
  }
  std::uint64_t x, y;
  fib_plain_body(n - 1, &x);
  fib_plain_body(n - 2, &y);
  *out = x + y;
}
const auto fib_plain_task = heist::register_task<fib_plain_body>("apps.fib.plain");

}  // namespace

void set_fib_cutoff(int cutoff) { run_cutoff = cutoff; }

namespace {
// The root call as a task of `task`'s kind, and its result.
template <auto Body>
std::uint64_t root_task(heist::Task<Body> task, int n) {
  std::uint64_t result = 0;
  heist::spawn(task, n, &result);
  heist::wait();
  return result;
}
}  // namespace

std::uint64_t fib_heist(int n) { return root_task(fib_task, n); }

std::uint64_t fib_heist_calls(int n) { return root_task(fib_call_task, n); }

std::uint64_t fib_heist_plain(int n) { return root_task(fib_plain_task, n); }

std::uint64_t fib_heist_values(const std::string& style, int n) {
  if (style == "value-call") return root_task(fib_value_call_task, n);
  if (style == "value-plain") return root_task(fib_value_plain_task, n);
  if (style == "context") return root_task(fib_context_task, n);
  if (style == "context-call") return root_task(fib_context_call_task, n);
  return root_task(fib_value_task, n);
}

std::uint64_t fib_heist_closures(int n) {
  std::uint64_t result = 0;
  heist::finish([&] { heist::async([&] { result = fib_closure(n); }); });
  return result;
}

std::vector<TaskIo> fib_task_io(const std::string& style) {
  if (style == "closure") return {closure_io_of<FibClosure>("fib closure (local-only async)")};
  if (style == "call") return {task_io_of(fib_call_task, "apps.fib.call")};
  if (style == "plain") return {task_io_of(fib_plain_task, "apps.fib.plain")};
  if (style == "value") return {task_io_of(fib_value_task, "apps.fib.value")};
  if (style == "value-call") return {task_io_of(fib_value_call_task, "apps.fib.value-call")};
  if (style == "value-plain") return {task_io_of(fib_value_plain_task, "apps.fib.value-plain")};
  if (style == "context") return {task_io_of(fib_context_task, "apps.fib.context")};
  if (style == "context-call") return {task_io_of(fib_context_call_task, "apps.fib.context-call")};
  return {task_io_of(fib_task, "apps.fib")};
}

}  // namespace heist::apps::fib
