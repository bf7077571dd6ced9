// Registered tasks with outputs (spawn + wait, HotSLAW style), dependencies
// through task handles (spawn_handle / spawn_after / wait(handle)) and fence
// ordering, for 1..4 workers and every spawn policy, plus oversubscribed runs.
// Ordering is checked with a global sequence counter: each task takes a
// number when it starts and another when it ends, so "B started after A
// completed" is end(A) < start(B) — exact, no clocks.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

#include "heist/heist.hpp"
#include "heist_test.hpp"

namespace {

using heist::SpawnPolicy;
using heist_test::scaled;

std::atomic<std::int64_t> g_seq{0};
std::int64_t tick() { return g_seq.fetch_add(1, std::memory_order_acq_rel); }

long fib_seq(int n) { return heist_test::fib_iterative(n); }

// ---------------------------------------------------------------- registered tasks

void fib_body(const int& n, long* out);
const auto fib_task = heist::register_task<fib_body>("test_outputs_deps.fib");
void fib_body(const int& n, long* out) {
  if (n < 2) {
    *out = n;
    return;
  }
  long a = -1, b = -1;
  heist::spawn(fib_task, n - 1, &a);
  heist::spawn(fib_task, n - 2, &b);
  heist::wait();
  *out = a + b;
}

// The value form: the body returns its result (input by value, or by const
// reference in Lace's shape: spawn one child, call the other, wait).
long value_fib_body(int n);
const auto value_fib_task = heist::register_task<value_fib_body>("test_outputs_deps.value_fib");
long value_fib_body(int n) {
  if (n < 2) return n;
  long a = -1, b = -1;
  heist::spawn(value_fib_task, n - 1, &a);
  heist::spawn(value_fib_task, n - 2, &b);
  heist::wait();
  return a + b;
}
long lace_fib_body(const int& n);
const auto lace_fib_task = heist::register_task<lace_fib_body>("test_outputs_deps.lace_fib");
long lace_fib_body(const int& n) {
  if (n < 2) return n;
  long a = -1;
  heist::spawn(lace_fib_task, n - 1, &a);
  const long b = lace_fib_body(n - 2);
  heist::wait();
  return a + b;
}
// A value task returning a struct, and one whose result is discarded.
struct Pair {
  long sum;
  int n;
};
Pair pair_body(int n) { return Pair{fib_seq(n), n}; }
const auto pair_task = heist::register_task<pair_body>("test_outputs_deps.pair");
std::atomic<long> g_discarded{0};
long discarded_body(int n) {
  g_discarded.fetch_add(n, std::memory_order_relaxed);
  return n;
}
const auto discarded_task = heist::register_task<discarded_body>("test_outputs_deps.discarded");

// A task that spawns its child with its own output pointer and returns
// without wait(): the implicit wait at the end of the task makes the
// child's output visible when the grandparent's wait() returns.
void triple_body(const int& v, long* out) { *out = 3L * v; }
const auto triple_task = heist::register_task<triple_body>("test_outputs_deps.triple");
void forward_body(const int& v, long* out) { heist::spawn(triple_task, v, out); }
const auto forward_task = heist::register_task<forward_body>("test_outputs_deps.forward");

// Spawns, waits, spawns again with the same locals, waits again.
void two_rounds_body(const int& n, long* out) {
  long x[4];
  for (int i = 0; i < 4; ++i) heist::spawn(triple_task, n + i, &x[i]);
  heist::wait();
  const long first = x[0] + x[1] + x[2] + x[3];
  for (int i = 0; i < 4; ++i) heist::spawn(triple_task, first + i, &x[i]);
  heist::wait();
  *out = x[0] + x[1] + x[2] + x[3];
}
const auto two_rounds_task = heist::register_task<two_rounds_body>("test_outputs_deps.two_rounds");
long two_rounds_seq(int n) {
  const long first = 3L * (4L * n + 6);
  return 3L * (4L * first + 6);
}

class OutputsDeps : public ::testing::TestWithParam<heist_test::WorkersPolicy> {
 protected:
  int workers() const { return std::get<0>(GetParam()); }
  SpawnPolicy policy() const { return std::get<1>(GetParam()); }
  heist::Options opts() const { return heist_test::options(workers(), policy()); }
};

TEST_P(OutputsDeps, FibOutputsAvailableAtWait) {
  heist::Runtime rt(opts());
  const int n = heist_test::scale_divisor() > 1 ? 20 : 25;
  for (int rep = 0; rep < 2; ++rep) {
    long result = -1;
    heist::spawn(fib_task, n, &result);
    heist::wait();
    EXPECT_EQ(result, fib_seq(n));
  }
  // Many roots at once.
  long r[12];
  for (int i = 0; i < 12; ++i) heist::spawn(fib_task, i + 5, &r[i]);
  heist::wait();
  for (int i = 0; i < 12; ++i) EXPECT_EQ(r[i], fib_seq(i + 5)) << i;
}

TEST_P(OutputsDeps, ValueTasksReturnTheirResults) {
  heist::Runtime rt(opts());
  const int n = heist_test::scale_divisor() > 1 ? 18 : 23;
  long two = -1, lace = -1;
  heist::spawn(value_fib_task, n, &two);
  heist::spawn(lace_fib_task, n, &lace);
  Pair pairs[16] = {};
  for (int i = 0; i < 16; ++i) heist::spawn(pair_task, i, &pairs[i]);
  g_discarded = 0;
  for (int i = 1; i <= 100; ++i) heist::spawn(discarded_task, i, nullptr);
  heist::wait();
  EXPECT_EQ(two, fib_seq(n));
  EXPECT_EQ(lace, fib_seq(n));
  for (int i = 0; i < 16; ++i) {
    EXPECT_EQ(pairs[i].sum, fib_seq(i)) << i;
    EXPECT_EQ(pairs[i].n, i) << i;
  }
  EXPECT_EQ(g_discarded.load(), 5050);  // every discarded-result task ran once
  // Each form counts as tasks like every other: 2 fib(n+1) - 1 for two
  // spawns per call, fib(n+1) for Lace's shape, and the 116 single ones.
  const auto created = static_cast<long>(rt.stats().total().tasks_created);
  EXPECT_EQ(created, 2 * fib_seq(n + 1) - 1 + fib_seq(n + 1) + 116);
}

TEST_P(OutputsDeps, OutputsAvailableAtEndOfEnclosingTask) {
  heist::Runtime rt(opts());
  const int n = static_cast<int>(scaled(5000, 100));
  std::vector<long> out(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) heist::spawn(forward_task, i, &out[static_cast<std::size_t>(i)]);
  heist::wait();
  for (int i = 0; i < n; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], 3L * i) << i;
}

TEST_P(OutputsDeps, RepeatedWaitsInOneTask) {
  heist::Runtime rt(opts());
  std::vector<long> out(200, -1);
  for (int i = 0; i < 200; ++i) heist::spawn(two_rounds_task, i, &out[static_cast<std::size_t>(i)]);
  heist::wait();
  for (int i = 0; i < 200; ++i) ASSERT_EQ(out[static_cast<std::size_t>(i)], two_rounds_seq(i)) << i;
}

TEST_P(OutputsDeps, SpawnInsideFinishAndAsync) {
  // Registered tasks spawned by local closures: each closure task waits for
  // its own spawns.
  heist::Runtime rt(opts());
  std::vector<long> out(64, -1);
  std::atomic<int> wrong{0};
  heist::finish([&] {
    for (int i = 0; i < 64; ++i)
      heist::async([&out, &wrong, i] {
        long local = -1;
        heist::spawn(fib_task, 15, &local);
        heist::wait();
        if (local != fib_seq(15)) wrong.fetch_add(1);
        out[static_cast<std::size_t>(i)] = local + i;
      });
  });
  EXPECT_EQ(wrong.load(), 0);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(out[static_cast<std::size_t>(i)], fib_seq(15) + i);
}

void failing_body(const int& n, long* out) {
  if (n == 0) throw std::runtime_error("failing task");
  long a = 0, b = 0;
  heist::spawn(fib_task, 10, &a);
  heist::spawn(fib_task, 11, &b);
  heist::wait();
  *out = a + b;
}
const auto failing_task = heist::register_task<failing_body>("test_outputs_deps.failing");

TEST_P(OutputsDeps, ExceptionInSpawnedTaskReachesTopLevelWait) {
  heist::Runtime rt(opts());
  std::vector<long> out(20, -1);
  EXPECT_THROW(
      {
        for (int i = 0; i < 20; ++i) heist::spawn(failing_task, i == 7 ? 0 : 1, &out[static_cast<std::size_t>(i)]);
        heist::wait();
      },
      std::runtime_error);
  heist::wait();  // whatever the policy ran before the throw has completed; nothing is reported twice
  // Help-first queued all 20 before any ran; inline policies stopped spawning at the throw.
  for (int i = 0; i < 20; ++i) {
    const long v = out[static_cast<std::size_t>(i)];
    if (i == 7 || (v == -1 && policy() != SpawnPolicy::help_first)) continue;
    EXPECT_EQ(v, fib_seq(10) + fib_seq(11)) << i;
  }
  long r = -1;
  heist::spawn(fib_task, 15, &r);
  EXPECT_NO_THROW(heist::wait());
  EXPECT_EQ(r, fib_seq(15));
}

// ---------------------------------------------------------------- DAG dependencies

struct DagNode {
  std::uint32_t deps[3];
  std::uint32_t n_deps;
};

struct DagRecord {
  std::vector<DagNode> nodes;
  std::vector<std::atomic<std::int64_t>> start, end;
  std::vector<std::atomic<int>> runs;
  std::atomic<int> early{0};  // a task that saw a dependency not yet ended
  explicit DagRecord(std::size_t n) : nodes(n), start(n), end(n), runs(n) {
    for (std::size_t i = 0; i < n; ++i) {
      start[i].store(-1, std::memory_order_relaxed);
      end[i].store(-1, std::memory_order_relaxed);
      runs[i].store(0, std::memory_order_relaxed);
    }
  }
};
DagRecord* g_dag = nullptr;

void dag_body(const std::uint32_t& i, std::uint64_t* out) {
  DagRecord& d = *g_dag;
  d.start[i].store(tick(), std::memory_order_release);
  d.runs[i].fetch_add(1, std::memory_order_relaxed);
  for (std::uint32_t k = 0; k < d.nodes[i].n_deps; ++k)
    if (d.end[d.nodes[i].deps[k]].load(std::memory_order_acquire) < 0) d.early.fetch_add(1);
  std::uint64_t h = i;
  for (int r = 0; r < 50; ++r) h = h * 6364136223846793005ull + 1;  // a little work
  *out = h;
  d.end[i].store(tick(), std::memory_order_release);
}
const auto dag_task = heist::register_task<dag_body>("test_outputs_deps.dag");

std::uint64_t dag_expected(std::uint32_t i) {
  std::uint64_t h = i;
  for (int r = 0; r < 50; ++r) h = h * 6364136223846793005ull + 1;
  return h;
}

// Random DAG: node i depends on up to 3 distinct earlier nodes, mostly
// recent ones (long chains) with some far ones (wide fan-in).
void make_dag(DagRecord& d, std::uint64_t seed) {
  std::uint64_t s = seed;
  auto rnd = [&s](std::uint32_t bound) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<std::uint32_t>((s >> 33) % bound);
  };
  for (std::uint32_t i = 0; i < d.nodes.size(); ++i) {
    DagNode& node = d.nodes[i];
    node.n_deps = i == 0 ? 0 : std::min<std::uint32_t>(i, rnd(4));
    for (std::uint32_t k = 0; k < node.n_deps; ++k) {
      std::uint32_t dep;
      do {
        dep = rnd(2) ? i - 1 - rnd(std::min<std::uint32_t>(i, 8)) : rnd(i);
      } while (std::find(node.deps, node.deps + k, dep) != node.deps + k);
      node.deps[k] = dep;
    }
  }
}

heist::TaskHandle spawn_node(DagRecord& d, std::vector<heist::TaskHandle>& h, std::vector<std::uint64_t>& out,
                             std::uint32_t i) {
  const DagNode& n = d.nodes[i];
  std::uint64_t* o = &out[i];
  switch (n.n_deps) {
    case 0: return heist::spawn_handle(dag_task, i, o);
    case 1: return heist::spawn_after({h[n.deps[0]]}, dag_task, i, o);
    case 2: return heist::spawn_after({h[n.deps[0]], h[n.deps[1]]}, dag_task, i, o);
    default: return heist::spawn_after({h[n.deps[0]], h[n.deps[1]], h[n.deps[2]]}, dag_task, i, o);
  }
}

void check_dag(const DagRecord& d, const std::vector<std::uint64_t>& out) {
  EXPECT_EQ(d.early.load(), 0);
  int bad_runs = 0, bad_order = 0, bad_out = 0;
  for (std::uint32_t i = 0; i < d.nodes.size(); ++i) {
    bad_runs += d.runs[i].load() != 1;
    bad_out += out[i] != dag_expected(i);
    for (std::uint32_t k = 0; k < d.nodes[i].n_deps; ++k)
      bad_order += !(d.end[d.nodes[i].deps[k]].load() < d.start[i].load());
  }
  EXPECT_EQ(bad_runs, 0);
  EXPECT_EQ(bad_order, 0);
  EXPECT_EQ(bad_out, 0);
}

TEST_P(OutputsDeps, DagRunsEachTaskAfterItsDependencies) {
  heist::Runtime rt(opts());
  const std::size_t n = scaled(3000, 200);
  for (int rep = 0; rep < 2; ++rep) {
    DagRecord d(n);
    g_dag = &d;
    make_dag(d, 99 + static_cast<std::uint64_t>(rep));
    std::vector<std::uint64_t> out(n, 0);
    std::vector<heist::TaskHandle> h(n);
    for (std::uint32_t i = 0; i < n; ++i) h[i] = spawn_node(d, h, out, i);
    // wait(handle) on a few nodes mid-way: the node and its dependencies are done.
    for (std::uint32_t k : {static_cast<std::uint32_t>(n / 3), static_cast<std::uint32_t>(n - 1)}) {
      heist::wait(h[k]);
      EXPECT_TRUE(h[k].done());
      EXPECT_GE(d.end[k].load(), 0);
      EXPECT_EQ(out[k], dag_expected(k));
      for (std::uint32_t j = 0; j < d.nodes[k].n_deps; ++j) EXPECT_TRUE(h[d.nodes[k].deps[j]].done());
    }
    heist::wait();
    for (std::uint32_t i = 0; i < n; ++i) ASSERT_TRUE(h[i].done()) << i;
    check_dag(d, out);
    g_dag = nullptr;
  }
}

TEST_P(OutputsDeps, DagInsideTasksWithDroppedHandles) {
  // Each of several tasks builds a DAG over its own slice of nodes; handles
  // are dropped as soon as no later node needs them. The enclosing task
  // waits for its slice implicitly.
  heist::Runtime rt(opts());
  const std::uint32_t slices = 8;
  const std::uint32_t per = static_cast<std::uint32_t>(scaled(400, 50));
  DagRecord d(std::size_t{slices} * per);
  g_dag = &d;
  std::vector<std::uint64_t> out(d.nodes.size(), 0);
  // Dependencies stay inside a slice.
  std::uint64_t s = 5;
  for (std::uint32_t i = 0; i < d.nodes.size(); ++i) {
    const std::uint32_t local = i % per;
    DagNode& node = d.nodes[i];
    node.n_deps = std::min<std::uint32_t>(local, 2);
    for (std::uint32_t k = 0; k < node.n_deps; ++k) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      node.deps[k] = k == 0 ? i - 1 : i - 1 - static_cast<std::uint32_t>((s >> 33) % std::min<std::uint32_t>(local, 16));
      if (node.n_deps == 2 && node.deps[1] == node.deps[0]) node.n_deps = 1;
    }
  }
  heist::finish([&] {
    for (std::uint32_t sl = 0; sl < slices; ++sl)
      heist::async([&, sl] {
        std::vector<heist::TaskHandle> h(d.nodes.size());
        for (std::uint32_t i = sl * per; i < (sl + 1) * per; ++i) {
          h[i] = spawn_node(d, h, out, i);
          if (i >= sl * per + 17) h[i - 17] = heist::TaskHandle();  // no later node depends on it
        }
      });
  });
  check_dag(d, out);
  g_dag = nullptr;
}

TEST_P(OutputsDeps, WaitOnOneHandleInsideATask) {
  heist::Runtime rt(opts());
  std::atomic<int> wrong{0};
  heist::finish([&] {
    for (int t = 0; t < 32; ++t)
      heist::async([&wrong, t] {
        long slow = -1, quick = -1;
        heist::spawn(fib_task, 18, &slow);  // joined, not waited for yet
        heist::TaskHandle h = heist::spawn_handle(triple_task, t, &quick);
        heist::wait(h);
        if (!h.done() || quick != 3L * t) wrong.fetch_add(1);
        heist::wait();
        if (slow != fib_seq(18)) wrong.fetch_add(1);
      });
  });
  EXPECT_EQ(wrong.load(), 0);
}

// ---------------------------------------------------------------- fence

constexpr std::uint32_t kGenerations = 4;

struct FenceRecord {
  std::uint32_t per_gen = 0;
  std::vector<std::atomic<std::int64_t>> start, end;  // [gen * per_gen + i]; end includes children
  explicit FenceRecord(std::uint32_t per) : per_gen(per), start(kGenerations * per), end(kGenerations * per) {
    for (auto& a : start) a.store(-1);
    for (auto& a : end) a.store(-1);
  }
};
FenceRecord* g_fence = nullptr;

struct GenIn {
  std::uint32_t gen, idx;
  std::uint32_t children;  // joined children, waited implicitly at the end
};

// Records a tick as the end of task (gen, idx) if later than what is there:
// the task and each of its children call it when they end.
void record_end(std::uint32_t gen, std::uint32_t idx) {
  FenceRecord& f = *g_fence;
  const std::int64_t t = tick();
  std::atomic<std::int64_t>& e = f.end[gen * f.per_gen + idx];
  std::int64_t cur = e.load();
  while (cur < t && !e.compare_exchange_weak(cur, t)) {
  }
}

void gen_child_body(const GenIn& in) { record_end(in.gen, in.idx); }
const auto gen_child_task = heist::register_task<gen_child_body>("test_outputs_deps.gen_child");

void gen_body(const GenIn& in) {
  FenceRecord& f = *g_fence;
  f.start[in.gen * f.per_gen + in.idx].store(tick());
  for (std::uint32_t c = 0; c < in.children; ++c) heist::spawn(gen_child_task, GenIn{in.gen, in.idx, 0});
  heist::wait();
  record_end(in.gen, in.idx);  // its own end, after its children
}
const auto gen_task = heist::register_task<gen_body>("test_outputs_deps.gen");

void check_generations(const FenceRecord& f) {
  for (std::uint32_t g = 0; g < kGenerations; ++g) {
    std::int64_t min_start = std::numeric_limits<std::int64_t>::max(), max_end = -1;
    int missing = 0;
    for (std::uint32_t i = 0; i < f.per_gen; ++i) {
      const std::int64_t s = f.start[g * f.per_gen + i].load(), e = f.end[g * f.per_gen + i].load();
      missing += s < 0 || e < 0;
      min_start = std::min(min_start, s);
      max_end = std::max(max_end, e);
    }
    EXPECT_EQ(missing, 0) << "generation " << g;
    if (g + 1 < kGenerations) {
      std::int64_t next_min_start = std::numeric_limits<std::int64_t>::max();
      for (std::uint32_t i = 0; i < f.per_gen; ++i)
        next_min_start = std::min(next_min_start, f.start[(g + 1) * f.per_gen + i].load());
      EXPECT_LT(max_end, next_min_start) << "a task of generation " << g + 1
                                         << " started before generation " << g << " completed";
    }
  }
}

// Spawns kGenerations generations of `per` tasks, a fence between each.
void spawn_generations(std::uint32_t per, std::uint32_t children) {
  for (std::uint32_t g = 0; g < kGenerations; ++g) {
    for (std::uint32_t i = 0; i < per; ++i) heist::spawn(gen_task, GenIn{g, i, children});
    heist::fence();
  }
  heist::wait();
}

// 100 tasks per generation: more than the bounded policy's queue_bound (40),
// so spawns after a fence meet a full queue.
TEST_P(OutputsDeps, FenceOrdersGenerationsAtTopLevel) {
  heist::Runtime rt(opts());
  for (std::uint32_t children : {0u, 3u}) {
    FenceRecord f(100);
    g_fence = &f;
    spawn_generations(100, children);
    check_generations(f);
    g_fence = nullptr;
  }
}

TEST_P(OutputsDeps, FenceOrdersGenerationsInsideATask) {
  heist::Runtime rt(opts());
  FenceRecord f(100);
  g_fence = &f;
  heist::finish([] { heist::async([] { spawn_generations(100, 2); }); });
  check_generations(f);
  g_fence = nullptr;
}

void handle_gen_body(const GenIn& in, long* out) {
  gen_body(in);
  *out = in.idx;
}
const auto handle_gen_task = heist::register_task<handle_gen_body>("test_outputs_deps.handle_gen");

TEST_P(OutputsDeps, FenceOrdersTasksSpawnedWithHandles) {
  // spawn_handle is a joined spawn: a fence orders it like spawn.
  heist::Runtime rt(opts());
  FenceRecord f(50);
  g_fence = &f;
  std::vector<long> out(kGenerations * 50, -1);
  std::vector<heist::TaskHandle> handles;
  for (std::uint32_t g = 0; g < kGenerations; ++g) {
    for (std::uint32_t i = 0; i < 50; ++i)
      handles.push_back(heist::spawn_handle(handle_gen_task, GenIn{g, i, 1}, &out[g * 50 + i]));
    heist::fence();
  }
  heist::wait();
  check_generations(f);
  for (std::uint32_t k = 0; k < out.size(); ++k) EXPECT_EQ(out[k], static_cast<long>(k % 50));
  g_fence = nullptr;
}

// wait(handle) on a task that its own fence holds back: the wait releases it
// once the generation before has completed (the soak found it waiting
// forever instead), at top level and inside a task.
void wait_behind_fence() {
  FenceRecord& f = *g_fence;
  std::vector<long> out(kGenerations * f.per_gen, -1);
  for (std::uint32_t g = 0; g < kGenerations; ++g) {
    heist::TaskHandle last;
    for (std::uint32_t i = 0; i < f.per_gen; ++i)
      last = heist::spawn_handle(handle_gen_task, GenIn{g, i, 1}, &out[g * f.per_gen + i]);
    heist::wait(last);
    if (out[g * f.per_gen + f.per_gen - 1] != static_cast<long>(f.per_gen - 1)) ADD_FAILURE() << "output missing";
    heist::fence();
  }
  heist::wait();
}

TEST_P(OutputsDeps, WaitOnAHandleItsFenceHolds) {
  heist::Runtime rt(opts());
  for (bool in_task : {false, true}) {
    FenceRecord f(8);
    g_fence = &f;
    if (in_task) heist::finish([] { heist::async([] { wait_behind_fence(); }); });
    else wait_behind_fence();
    check_generations(f);
    g_fence = nullptr;
  }
}

TEST(FenceEdge, FenceWithDequeAtItsMaximum) {
  // A deque of at most 4 slots: spawns past it run inline, except those a
  // fence holds back, which need no slot.
  for (int workers : {1, 2}) {
    heist::Options o = heist_test::options(workers, SpawnPolicy::help_first);
    o.deque_initial_tasks = 2;
    o.deque_max_tasks = 4;
    heist::Runtime rt(o);
    FenceRecord f(30);
    g_fence = &f;
    spawn_generations(30, 2);
    check_generations(f);
    g_fence = nullptr;
  }
}

INSTANTIATE_TEST_SUITE_P(Policies, OutputsDeps,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4), ::testing::ValuesIn(heist_test::kStackPolicies)), heist_test::WorkersPolicyName());
INSTANTIATE_TEST_SUITE_P(Continuations, OutputsDeps, ::testing::ValuesIn(heist_test::kContinuationRuns), heist_test::WorkersPolicyName());

// ---------------------------------------------------------------- many workers

class ManyWorkers : public ::testing::TestWithParam<int> {};

TEST_P(ManyWorkers, FibAndDagOversubscribed) {
  heist::Options o;
  o.workers = GetParam();
  heist::Runtime rt(o);
  EXPECT_EQ(heist::num_workers(), GetParam());
  long result = -1;
  heist::spawn(fib_task, 22, &result);
  heist::wait();
  EXPECT_EQ(result, fib_seq(22));

  const std::size_t n = scaled(2000, 200);
  DagRecord d(n);
  g_dag = &d;
  make_dag(d, 4242);
  std::vector<std::uint64_t> out(n, 0);
  std::vector<heist::TaskHandle> h(n);
  for (std::uint32_t i = 0; i < n; ++i) h[i] = spawn_node(d, h, out, i);
  heist::wait();
  check_dag(d, out);
  g_dag = nullptr;
  const heist::WorkerStats t = rt.stats().total();
  EXPECT_EQ(t.tasks_created, t.tasks_executed);
}

INSTANTIATE_TEST_SUITE_P(Oversubscribed, ManyWorkers, ::testing::Values(8, 16));

}  // namespace
