// One of two translation units with identical code: a lambda passed to
// async_any inside a function of an anonymous namespace. The two closure
// types are distinct but have the same typeid name (internal linkage), and
// both must register and run (see test_async_any_tus.cpp).
#include <atomic>

#include "heist/heist.hpp"

namespace {
std::atomic<int> runs{0};
void spawn_one(int value) {
  heist::async_any([value] { runs.fetch_add(value, std::memory_order_relaxed); });
}
}  // namespace

int async_any_tu_a(int n) {
  runs = 0;
  heist::finish([n] {
    for (int i = 1; i <= n; ++i) spawn_one(i);
  });
  return runs.load();
}
