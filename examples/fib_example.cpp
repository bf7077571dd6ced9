// The README's example, built and run by the tests so it stays true.
#include <heist/heist.hpp>
#include <cstdint>
#include <cstdio>

// A registered task: its input is copied into the task; *out is written in place.
void fib(const int& n, std::uint64_t* out);
const auto fib_task = heist::register_task<fib>("fib");

void fib(const int& n, std::uint64_t* out) {
  if (n < 2) { *out = n; return; }
  std::uint64_t x, y;
  heist::spawn(fib_task, n - 1, &x);   // queued or run inline, as the spawn policy says
  heist::spawn(fib_task, n - 2, &y);
  heist::wait();                       // runs and steals tasks until both are done
  *out = x + y;
}

int main() {
  heist::Runtime runtime;              // workers from HEIST_WORKERS, default one per core
  std::uint64_t result = 0;
  heist::finish([&] { heist::spawn(fib_task, 30, &result); });
  std::printf("fib(30) = %llu\n", static_cast<unsigned long long>(result));
  return result == 832040 ? 0 : 1;
}
