#include "fib/fib.hpp"

#include <heist/heist.hpp>

#include <string>

#include "common/task_io.hpp"

namespace heist::apps::fib {

namespace {

struct FibIn {
  int n;
  int cutoff;
};

void fib_body(const FibIn& in, std::uint64_t* out);
const auto fib_task = heist::register_task<fib_body>("apps.fib");

void fib_body(const FibIn& in, std::uint64_t* out) {
  if (in.n < 2) {
    *out = static_cast<std::uint64_t>(in.n);
    return;
  }
  if (in.n < in.cutoff) {
    *out = fib_sequential(in.n);
    return;
  }
  std::uint64_t x, y;
  heist::spawn(fib_task, FibIn{in.n - 1, in.cutoff}, &x);
  heist::spawn(fib_task, FibIn{in.n - 2, in.cutoff}, &y);
  heist::wait();
  *out = x + y;
}

// --style call, Lace's shape: spawn one child, compute the other by a plain
// call on this worker's stack, then wait for the spawned one.
void fib_call_body(const FibIn& in, std::uint64_t* out);
const auto fib_call_task = heist::register_task<fib_call_body>("apps.fib.call");

void fib_call_body(const FibIn& in, std::uint64_t* out) {
  if (in.n < 2) {
    *out = static_cast<std::uint64_t>(in.n);
    return;
  }
  if (in.n < in.cutoff) {
    *out = fib_sequential(in.n);
    return;
  }
  std::uint64_t x, y;
  heist::spawn(fib_call_task, FibIn{in.n - 1, in.cutoff}, &x);
  fib_call_body(FibIn{in.n - 2, in.cutoff}, &y);
  heist::wait();
  *out = x + y;
}

// The value form of a task body (`R f(In)`): input and result in registers
// whenever the task runs inline. --style value spawns both children,
// --style value-call is Lace's shape, --style value-plain the floor.
std::uint64_t fib_value_body(FibIn in);
const auto fib_value_task = heist::register_task<fib_value_body>("apps.fib.value");

std::uint64_t fib_value_body(FibIn in) {
  if (in.n < 2) return static_cast<std::uint64_t>(in.n);
  if (in.n < in.cutoff) return fib_sequential(in.n);
  std::uint64_t x, y;
  heist::spawn(fib_value_task, FibIn{in.n - 1, in.cutoff}, &x);
  heist::spawn(fib_value_task, FibIn{in.n - 2, in.cutoff}, &y);
  heist::wait();
  return x + y;
}

std::uint64_t fib_value_call_body(FibIn in);
const auto fib_value_call_task = heist::register_task<fib_value_call_body>("apps.fib.value-call");

std::uint64_t fib_value_call_body(FibIn in) {
  if (in.n < 2) return static_cast<std::uint64_t>(in.n);
  if (in.n < in.cutoff) return fib_sequential(in.n);
  std::uint64_t x;
  heist::spawn(fib_value_call_task, FibIn{in.n - 1, in.cutoff}, &x);
  const std::uint64_t y = fib_value_call_body(FibIn{in.n - 2, in.cutoff});
  heist::wait();
  return x + y;
}

[[gnu::noinline]] std::uint64_t fib_value_plain_body(FibIn in) {
  if (in.n < 2) return static_cast<std::uint64_t>(in.n);
  if (in.n < in.cutoff) return fib_sequential(in.n);
  return fib_value_plain_body(FibIn{in.n - 1, in.cutoff}) + fib_value_plain_body(FibIn{in.n - 2, in.cutoff});
}
const auto fib_value_plain_task = heist::register_task<fib_value_plain_body>("apps.fib.value-plain");

std::uint64_t fib_closure(int n, int cutoff);

// The closure of --style closure: a local-only async writing through a pointer.
struct FibClosure {
  std::uint64_t* result;
  int n;
  int cutoff;
  void operator()() const { *result = fib_closure(n, cutoff); }
};

std::uint64_t fib_closure(int n, int cutoff) {
  if (n < 2) return static_cast<std::uint64_t>(n);
  if (n < cutoff) return fib_sequential(n);
  std::uint64_t x = 0, y = 0;
  heist::finish([&] {
    heist::async(FibClosure{&x, n - 1, cutoff});
    heist::async(FibClosure{&y, n - 2, cutoff});
  });
  return x + y;
}

// --style plain: fib_body's shape, every child a plain call. noinline, as a
// task body called through its registered function is never inlined into
// itself.
[[gnu::noinline]] void fib_plain_body(const FibIn& in, std::uint64_t* out) {
  if (in.n < 2) {
    *out = static_cast<std::uint64_t>(in.n);
    return;
  }
  if (in.n < in.cutoff) {
    *out = fib_sequential(in.n);
    return;
  }
  std::uint64_t x, y;
  fib_plain_body(FibIn{in.n - 1, in.cutoff}, &x);
  fib_plain_body(FibIn{in.n - 2, in.cutoff}, &y);
  *out = x + y;
}
const auto fib_plain_task = heist::register_task<fib_plain_body>("apps.fib.plain");

}  // namespace

std::uint64_t fib_heist(int n, int cutoff) {
  std::uint64_t result = 0;
  heist::spawn(fib_task, FibIn{n, cutoff}, &result);
  heist::wait();
  return result;
}

std::uint64_t fib_heist_calls(int n, int cutoff) {
  std::uint64_t result = 0;
  heist::spawn(fib_call_task, FibIn{n, cutoff}, &result);
  heist::wait();
  return result;
}

std::uint64_t fib_heist_plain(int n, int cutoff) {
  std::uint64_t result = 0;
  heist::spawn(fib_plain_task, FibIn{n, cutoff}, &result);
  heist::wait();
  return result;
}

std::uint64_t fib_heist_values(const std::string& style, int n, int cutoff) {
  std::uint64_t result = 0;
  const FibIn in{n, cutoff};
  if (style == "value") heist::spawn(fib_value_task, in, &result);
  if (style == "value-call") heist::spawn(fib_value_call_task, in, &result);
  if (style == "value-plain") heist::spawn(fib_value_plain_task, in, &result);
  heist::wait();
  return result;
}

std::uint64_t fib_heist_closures(int n, int cutoff) {
  std::uint64_t result = 0;
  heist::finish([&] { heist::async([&] { result = fib_closure(n, cutoff); }); });
  return result;
}

std::vector<TaskIo> fib_task_io(const std::string& style) {
  if (style == "closure") return {closure_io_of<FibClosure>("fib closure (local-only async)")};
  if (style == "call") return {task_io_of(fib_call_task, "apps.fib.call")};
  if (style == "plain") return {task_io_of(fib_plain_task, "apps.fib.plain")};
  if (style == "value") return {task_io_of(fib_value_task, "apps.fib.value")};
  if (style == "value-call") return {task_io_of(fib_value_call_task, "apps.fib.value-call")};
  if (style == "value-plain") return {task_io_of(fib_value_plain_task, "apps.fib.value-plain")};
  return {task_io_of(fib_task, "apps.fib")};
}

}  // namespace heist::apps::fib
