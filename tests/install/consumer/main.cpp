// Consumer of an installed heist: sums 1..n with finish/async and fib with
// registered tasks, and exits non-zero if either is wrong.
#include <heist/heist.hpp>

#include <atomic>
#include <cstdio>

namespace {

void fib_body(const int& n, long* out);
const auto fib_task = heist::register_task<fib_body>("consumer.fib");
void fib_body(const int& n, long* out) {
  if (n < 2) {
    *out = n;
    return;
  }
  long a = 0, b = 0;
  heist::spawn(fib_task, n - 1, &a);
  heist::spawn(fib_task, n - 2, &b);
  heist::wait();
  *out = a + b;
}

void sum_range(std::atomic<long>& total, long lo, long hi) {
  if (hi - lo <= 100) {
    long s = 0;
    for (long i = lo; i < hi; ++i) s += i;
    total.fetch_add(s, std::memory_order_relaxed);
    return;
  }
  const long mid = lo + (hi - lo) / 2;
  heist::async([&total, lo, mid] { sum_range(total, lo, mid); });
  sum_range(total, mid, hi);
}

}  // namespace

int main() {
  heist::Options options;
  options.workers = 2;
  heist::Runtime runtime(options);

  const long n = 100000;
  std::atomic<long> total{0};
  heist::finish([&] { sum_range(total, 1, n + 1); });

  long fib20 = 0;
  heist::spawn(fib_task, 20, &fib20);
  heist::wait();

  const bool ok = total.load() == n * (n + 1) / 2 && fib20 == 6765;
  std::printf("consumer: sum=%ld fib(20)=%ld %s\n", total.load(), fib20, ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
