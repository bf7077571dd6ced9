// Multi-rank checks of heist, run under mpirun by CTest (tests/mpi/CMakeLists.txt).
// Each subcommand is collective and exits 0 only if rank 0 found every check true:
//   tree      exactly-once: a random task tree (joined spawns with outputs, escaping
//             asyncs, nested finish) whose per-task ids are counted on every rank and
//             combined; outputs are checked against the sequential evaluation.
//   pool      SPMD task pool: every rank (or rank 0 only, --seed-rank 0) seeds trees.
//   progress  rank 0 runs one long task while rank 1 steals: the first steal must
//             be served while the long task is still running.
//   mismatch  rank 1 registers one more task: every rank must fail at start-up.
//   dependents a task released by another rank's completion while the deque is
//             full waits for another remote task: both must complete.
//   full_mailbox rank 1 holds its first task for --long-s without polling while
//             rank 0 pushes to it (--balance push): rank 0 must wait for room in
//             rank 1's mailbox, and every task must still run exactly once.
//   answer_round rank 0 holds its first task for --long-s while the other ranks
//             (success-only, each rank its own node) ask it for work: its next
//             poll answers several requests in one round (each into its thief's
//             answer area, rma/answer_slots.hpp); every task once.
//   matrix    one tree for each combination of --victims x --chunks x --protocols x
//             --balances x --remote-steals (comma lists), exactly-once each; the
//             statistics per level must agree with the totals, and success-only
//             must report no failed steal across nodes.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <stdexcept>
#include <thread>
#include <vector>

#include <CLI/CLI.hpp>
#include <heist/heist.hpp>
#include <heist/option_table.hpp>

namespace {

std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// ---- the random tree ----
// Node id -> children: 0..4 by hash, depth-limited. A node's value (its
// output) is id + the sum of its joined children's values; escaping
// children are counted but return nothing.
struct Node {
  std::uint64_t id;
  std::uint32_t depth;
  std::uint32_t max_depth;
  std::uint32_t spin;  // busy iterations, so steals have time to happen
};

int children_of(const Node& n) { return n.depth >= n.max_depth ? 0 : static_cast<int>(mix(n.id) % 5); }
bool escaping(const Node& n, int i) { return (mix(n.id ^ (0x51ull + static_cast<std::uint64_t>(i))) & 3u) == 0; }
Node child(const Node& n, int i) { return {mix(n.id * 31 + static_cast<std::uint64_t>(i) + 1), n.depth + 1, n.max_depth, n.spin}; }

// Per-process tallies of executed tasks: count, sum of ids, sum of squared ids
// (mod 2^64): a lost or duplicated task changes them (with overwhelming probability).
std::atomic<std::uint64_t> g_count{0}, g_sum{0}, g_sq{0};

void tally(std::uint64_t id) {
  g_count.fetch_add(1, std::memory_order_relaxed);
  g_sum.fetch_add(id, std::memory_order_relaxed);
  g_sq.fetch_add(id * id, std::memory_order_relaxed);
}

void spin(std::uint32_t n) {
  volatile std::uint64_t x = 0;
  for (std::uint32_t i = 0; i < n; ++i) x = x + i;
}

void visit(const Node& n, std::uint64_t* out);
const auto visit_task = heist::register_task<visit>("mpi_driver.visit");
void escaped(const Node& n);
const auto escaped_task = heist::register_task<escaped>("mpi_driver.escaped");

void visit(const Node& n, std::uint64_t* out) {
  tally(n.id);
  spin(n.spin);
  const int k = children_of(n);
  std::uint64_t values[5] = {};
  for (int i = 0; i < k; ++i) {
    if (escaping(n, i)) heist::async(escaped_task, child(n, i));  // registers with the enclosing finish
    else heist::spawn(visit_task, child(n, i), &values[i]);
  }
  heist::wait();
  std::uint64_t v = n.id;
  for (int i = 0; i < k; ++i) v += values[i];
  *out = v;
}

// An escaping subtree: runs its own finish over a joined visit.
void escaped(const Node& n) {
  std::uint64_t value = 0;
  heist::finish([&] { heist::spawn(visit_task, n, &value); });
}

struct Expected {
  std::uint64_t count = 0, sum = 0, sq = 0;
};

// Sequential evaluation: the expected tallies and the root's value.
std::uint64_t expect(const Node& n, Expected& e) {
  ++e.count;
  e.sum += n.id;
  e.sq += n.id * n.id;
  std::uint64_t v = n.id;
  for (int i = 0; i < children_of(n); ++i) {
    if (escaping(n, i)) {
      expect(child(n, i), e);  // the escaped task is not tallied; the visit it runs is
    } else {
      v += expect(child(n, i), e);
    }
  }
  return v;
}

bool combine_and_check(heist::Runtime& rt, const Expected& e, const char* what) {
  const std::uint64_t count = rt.sum_over_ranks(g_count.load());
  const std::uint64_t sum = rt.sum_over_ranks(g_sum.load());
  const std::uint64_t sq = rt.sum_over_ranks(g_sq.load());
  const bool ok = count == e.count && sum == e.sum && sq == e.sq;
  if (rt.rank() == 0)
    std::printf("%s: tasks %llu (expected %llu), id sums %s\n", what, static_cast<unsigned long long>(count),
                static_cast<unsigned long long>(e.count), ok ? "match" : "DIFFER");
  g_count = g_sum = g_sq = 0;
  return ok;
}

struct Settings {
  heist::Options options = heist::Options::from_env();
  std::uint32_t depth = 9;
  std::uint32_t spin = 2000;
  int trees = 3;
  int seed_rank = -1;  // pool: -1 every rank seeds
  int expect_nodes = 0;  // tree: check the statistics' nodes (consecutive ranks) and inter-node RMA
  double long_s = 1.5;
};

// Nodes as --ranks-per-node made them: `nodes` groups of consecutive ranks.
// Every rank reports the end of each region to rank 0, so ranks of another
// node made inter-node RMA operations exactly when there is more than one node.
bool check_nodes(const heist::RunStats& stats, int ranks, int nodes) {
  bool ok = true;
  for (const heist::WorkerStats& w : stats.workers) {
    const std::uint32_t want = w.rank / static_cast<std::uint32_t>(ranks / nodes);
    if (w.node != want) {
      std::printf("rank %u: node %u, expected %u\n", w.rank, w.node, want);
      ok = false;
    }
  }
  const std::uint64_t far = stats.total().rma_inter_node;
  std::printf("RMA operations across nodes: %llu\n", static_cast<unsigned long long>(far));
  if ((far > 0) != (nodes > 1)) {
    std::printf("expected %s inter-node RMA operations with %d node(s)\n", nodes > 1 ? "some" : "no", nodes);
    ok = false;
  }
  return ok;
}

// Runs one tree as a root task (from rank 0) and checks it: exactly once by
// node id on every rank, and the root's value on rank 0.
bool run_root_tree(heist::Runtime& rt, const Node& root, const char* what) {
  Expected e;
  const std::uint64_t want = expect(root, e);
  std::uint64_t got = 0;
  rt.root([&] {
    heist::spawn(visit_task, root, &got);
    heist::wait();
  });
  bool ok = combine_and_check(rt, e, what);
  if (rt.rank() == 0 && got != want) {
    std::printf("%s: root value %llu, expected %llu\n", what, static_cast<unsigned long long>(got),
                static_cast<unsigned long long>(want));
    ok = false;
  }
  return ok;
}

int run_tree(Settings& s) {
  heist::Runtime rt(s.options);
  bool ok = true;
  for (int t = 0; t < s.trees; ++t)
    ok = run_root_tree(rt, Node{mix(1000 + static_cast<std::uint64_t>(t)), 0, s.depth, s.spin}, "tree") && ok;
  const heist::RunStats stats = rt.stats();
  if (rt.rank() == 0) {
    const heist::WorkerStats total = stats.total();
    std::printf("remote steals %llu of %llu attempts, completions %llu\n",
                static_cast<unsigned long long>(total.remote_steals),
                static_cast<unsigned long long>(total.remote_steal_attempts),
                static_cast<unsigned long long>(total.completions_sent));
    if (s.expect_nodes > 0) ok = check_nodes(stats, rt.ranks(), s.expect_nodes) && ok;
  }
  return rt.rank() == 0 && !ok ? 1 : 0;
}

int run_pool(Settings& s) {
  heist::Runtime rt(s.options);
  const int ranks = rt.ranks();
  Expected e;
  for (int r = 0; r < ranks; ++r) {
    if (s.seed_rank >= 0 && r != s.seed_rank) continue;
    for (int t = 0; t < s.trees; ++t) expect(Node{mix(77 + static_cast<std::uint64_t>(r * 100 + t)), 0, s.depth, s.spin}, e);
  }
  std::uint64_t values[64] = {};
  rt.pool([&] {
    if (s.seed_rank >= 0 && rt.rank() != s.seed_rank) return;
    for (int t = 0; t < s.trees && t < 64; ++t)
      heist::spawn(visit_task, Node{mix(77 + static_cast<std::uint64_t>(rt.rank() * 100 + t)), 0, s.depth, s.spin},
                   &values[t]);
  });
  const bool ok = combine_and_check(rt, e, "pool");
  return rt.rank() == 0 && !ok ? 1 : 0;
}

// ---- matrix: policy combinations in one launch ----
std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = std::min(text.find(',', at), text.size());
    if (comma > at) out.push_back(text.substr(at, comma - at));
    at = comma + 1;
  }
  return out;
}

void set_option(heist::Options& o, const std::string& flag, const std::string& value) {
  for (const heist::OptionSpec& spec : heist::option_table())
    if (flag == spec.flag) return spec.set(o, value);
  throw std::invalid_argument("no option " + flag);
}

// The per-level counts agree with the per-process ones, and success-only
// never fails a steal across nodes (it only queues requests there).
bool check_levels(const heist::WorkerStats& t, const std::string& victim, const std::string& what) {
  bool ok = true;
  std::uint64_t inside_attempts = 0, inside_failures = 0;
  for (int l = 1; l <= 4; ++l) {
    inside_attempts += t.levels[l].attempts;
    inside_failures += t.levels[l].failures;
  }
  for (int l = 1; l <= 6; ++l)
    if (t.levels[l].successes + t.levels[l].failures > t.levels[l].attempts) ok = false;
  if (inside_attempts != t.steal_attempts || inside_failures != t.failed_steals) ok = false;
  if (t.levels[5].failures + t.levels[6].failures != t.remote_failed_steals) ok = false;
  const heist::LevelStealStats& across = t.levels[6];
  if (victim == "success-only" && across.failures != 0) ok = false;
  std::printf("%s: node %llu/%llu, machine %llu/%llu (failed %llu), pushed %llu%s\n", what.c_str(),
              static_cast<unsigned long long>(t.levels[5].successes),
              static_cast<unsigned long long>(t.levels[5].attempts),
              static_cast<unsigned long long>(across.successes), static_cast<unsigned long long>(across.attempts),
              static_cast<unsigned long long>(across.failures), static_cast<unsigned long long>(t.tasks_pushed),
              ok ? "" : "  STATISTICS DISAGREE");
  return ok;
}

struct Matrix {
  std::string victims = "random,hvs,success-only";
  std::string chunks = "1,3,half,hcs";
  std::string protocols = "sws,sdc";
  std::string balances = "steal";
  std::string remote_steals = "parallel";
};

int run_matrix(Settings& s, const Matrix& m) {
  bool ok = true;
  int rank = 0;
  std::uint64_t n = 0;
  for (const std::string& victim : split(m.victims))
    for (const std::string& chunk : split(m.chunks))
      for (const std::string& protocol : split(m.protocols))
        for (const std::string& balance : split(m.balances))
          for (const std::string& remote : split(m.remote_steals)) {
            if (victim == "success-only" && balance == "push") continue;  // rejected by Options::validate
            heist::Options o = s.options;
            set_option(o, "--victim", victim);
            set_option(o, "--chunk", chunk);
            set_option(o, "--protocol", protocol);
            set_option(o, "--balance", balance);
            set_option(o, "--remote-steal", remote);
            heist::Runtime rt(o);
            rank = rt.rank();
            const Node root{mix(1000 + n++ % 3), 0, s.depth, s.spin};  // the tree subcommand's roots
            const std::string what = victim + " x " + chunk + " x " + protocol + " x " + balance + " x " + remote;
            ok = run_root_tree(rt, root, what.c_str()) && ok;
            const heist::RunStats stats = rt.stats();
            if (rank != 0) continue;
            ok = check_levels(stats.total(), victim, what) && ok;
          }
  return rank == 0 && !ok ? 1 : 0;
}

// ---- progress ----
// SPMD pool: rank 0 seeds 256 small tasks and one long task that computes
// long_s seconds without calling the runtime (its only worker runs it first);
// rank 1 seeds a gate (a local-only closure) that keeps its worker busy until a time fixed
// before the run, a third into the long task. Rank 1 therefore steals only
// after the long task began, and its first small task starts before the long
// task ends only if rank 0's process served the steal meanwhile.
std::atomic<std::int64_t> g_first_foreign_ns{0};
std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
std::int64_t g_long_begin_ns = 0, g_long_end_ns = 0, g_gate_ns = 0;
double g_long_s = 1.5;

void small_task(const std::uint32_t& origin) {
  std::int64_t none = 0;  // relaxed: read after the run, which orders it
  g_first_foreign_ns.compare_exchange_strong(none, now_ns(), std::memory_order_relaxed);
  spin(20000);
  (void)origin;
}
const auto small = heist::register_task<small_task>("mpi_driver.small");

void long_task(const std::uint32_t&) {
  // Computes without calling the runtime: no polls from this worker.
  g_long_begin_ns = now_ns();
  while (now_ns() - g_long_begin_ns < static_cast<std::int64_t>(g_long_s * 1e9)) spin(1000);
  g_long_end_ns = now_ns();
}
const auto long_one = heist::register_task<long_task>("mpi_driver.long");

int run_progress(Settings& s) {
  g_long_s = s.long_s;
  heist::Runtime rt(s.options);
  // One machine, one steady clock: rank 0 fixes the gate for all.
  g_gate_ns = static_cast<std::int64_t>(
      rt.max_over_ranks(rt.rank() == 0 ? static_cast<std::uint64_t>(now_ns() + static_cast<std::int64_t>(g_long_s * 1e9 / 3)) : 0));
  rt.pool([&] {
    if (rt.rank() == 1)  // a closure: local-only, so rank 1 cannot offer it and steal in its place
      heist::async([] {
        while (now_ns() < g_gate_ns) spin(1000);
      });
    if (rt.rank() != 0) return;
    for (std::uint32_t i = 0; i < 256; ++i) heist::async(small, 0u);
    heist::async(long_one, 0u);  // newest: rank 0's worker runs it first
  });
  const auto first = static_cast<std::int64_t>(
      rt.max_over_ranks(rt.rank() == 1 ? static_cast<std::uint64_t>(g_first_foreign_ns.load(std::memory_order_relaxed)) : 0));
  const auto begin = static_cast<std::int64_t>(rt.max_over_ranks(rt.rank() == 0 ? static_cast<std::uint64_t>(g_long_begin_ns) : 0));
  const auto end = static_cast<std::int64_t>(rt.max_over_ranks(rt.rank() == 0 ? static_cast<std::uint64_t>(g_long_end_ns) : 0));
  const heist::RunStats stats = rt.stats();
  if (rt.rank() != 0) return 0;
  const auto rel = [&](std::int64_t t) { return static_cast<double>(t - begin) / 1e9; };
  if (begin >= g_gate_ns) {  // rank 0 started late: rank 1 may have stolen before the long task
    std::printf("inconclusive: the long task began %.3f s after the gate\n", -rel(g_gate_ns));
    return 3;
  }
  if (first != 0 && first < g_gate_ns) {
    std::printf("inconclusive: rank 1 ran a task %.3f s before the gate\n", static_cast<double>(g_gate_ns - first) / 1e9);
    return 3;
  }
  const bool ok = first != 0 && first < end;
  std::printf("long task %.3f s; rank 1 stole from %.3f s; its first task started at %.3f s: %s\n", rel(end),
              rel(g_gate_ns), rel(first), ok ? "steal served during the long task" : "NO steal served during the long task");
  std::printf("remote steals %llu\n", static_cast<unsigned long long>(stats.total().remote_steals));
  return ok ? 0 : 1;
}

// ---- dependents: a task released by another rank's completion, deque full ----
// Rank 0 (1 worker, --deque-max-tasks 4) spawns A (short) and B (long)
// with handles, D after A, and fillers that keep its deque full; rank 1
// steals A, runs it, then steals B. A's completion
// reaches rank 0's inbox; the poll that applies it releases D while the
// deque is full. D waits for B, whose completion comes through the same
// inbox later. D used to run right there, inside the inbox drain (which
// holds the inbox lock), so no poll could apply B's completion while D
// waited: both ranks waited forever (the soak's master seed 202).
int g_rank = -1;
heist::TaskHandle g_b;
std::atomic<bool> g_d_done{false};

// Computes for `ns` without calling the runtime.
void busy_for(std::int64_t ns) {
  const std::int64_t until = now_ns() + ns;
  while (now_ns() < until) spin(100);
}

int where(std::uint32_t ms) {  // a value task: returns the rank it ran on
  busy_for(static_cast<std::int64_t>(ms) * 1000000);
  return g_rank;
}
const auto where_task = heist::register_task<where>("mpi_driver.where");

void waits_for_b(const int&) {
  heist::wait(g_b);
  g_d_done.store(true, std::memory_order_relaxed);  // read by the same thread after the region
}
const auto waits_for_b_task = heist::register_task<waits_for_b>("mpi_driver.waits_for_b", heist::Migration::process);

void filler(const std::uint32_t& us) { busy_for(static_cast<std::int64_t>(us) * 1000); }
const auto filler_task = heist::register_task<filler>("mpi_driver.filler", heist::Migration::process);

int run_dependents(Settings& s) {
  heist::Runtime rt(s.options);
  g_rank = rt.rank();
  int a_rank = -1, b_rank = -1;
  rt.root([&] {
    const heist::TaskHandle a = heist::spawn_handle(where_task, 5u, &a_rank);  // the oldest: stolen first
    g_b = heist::spawn_handle(where_task, 400u, &b_rank);
    heist::spawn_after({a}, waits_for_b_task, 0);
    // Spawn until B has surely completed: the deque stays at its maximum
    // (spawns past it run inline) and each spawn polls when a poll is due.
    const std::int64_t until = now_ns() + 600'000'000;
    while (now_ns() < until) heist::spawn(filler_task, 200u);
    heist::wait();
  });
  g_b = heist::TaskHandle();
  const heist::RunStats stats = rt.stats();
  if (rt.rank() != 0) return 0;
  std::printf("A ran on rank %d, B on rank %d; D %s; remote steals %llu\n", a_rank, b_rank,
              g_d_done.load() ? "done" : "NOT done", static_cast<unsigned long long>(stats.total().remote_steals));
  if (!g_d_done.load()) return 1;
  if (a_rank != 1 || b_rank != 1) {
    std::printf("inconclusive: A and B did not both run on rank 1\n");
    return 3;
  }
  return 0;
}

// The sum of one rank's workers' statistics (rt.stats() on rank 0 holds every rank's).
heist::WorkerStats rank_total(const heist::RunStats& stats, std::uint32_t rank) {
  heist::RunStats of_rank;
  for (const heist::WorkerStats& w : stats.workers)
    if (w.rank == rank) of_rank.workers.push_back(w);
  return of_rank.total();
}

// Runs `tasks` tasks with ids 1..tasks, all spawned by the root on rank 0
// once every rank is up, and checks each ran once (tallies over the ranks).
template <class Task>
bool run_id_tasks(heist::Runtime& rt, const Task& task, std::uint64_t tasks, const char* what) {
  Expected e;
  for (std::uint64_t id = 1; id <= tasks; ++id) {
    ++e.count;
    e.sum += id;
    e.sq += id * id;
  }
  (void)rt.sum_over_ranks(0);  // every rank is up before rank 0 starts
  rt.root([&] {
    for (std::uint64_t id = 1; id <= tasks; ++id) heist::spawn(task, id);
    heist::wait();
  });
  return combine_and_check(rt, e, what);
}

// full_mailbox and answer_round: 100 us tasks, of which the first one run on
// the held side (rank 0, or a rank other than 0) holds its rank for
// --long-s without polling. One process runs one of the two.
std::atomic<bool> g_held{false};
double g_hold_s = 0;
bool g_hold_rank0 = false;

void held_task(const std::uint64_t& id) {
  tally(id);
  if ((g_rank == 0) == g_hold_rank0 && !g_held.exchange(true, std::memory_order_relaxed))
    busy_for(static_cast<std::int64_t>(g_hold_s * 1e9));
  busy_for(100'000);
}
const auto held_task_ = heist::register_task<held_task>("mpi_driver.held_task");

// One run of a timing-dependent case: every task ran once (`ok`), and the
// case under test occurred (`occurred`, as rank 0 sees it).
struct CaseRun {
  bool ok;
  bool occurred;
};

// The held side's hold gives the other ranks time to act (push, ask), but
// on a loaded machine they may not get a core within it. A run in which the
// case did not occur is repeated with the hold doubled, up to three runs;
// every run must run each task once, and the case must occur in one of
// them (else the test did not test it, and fails). Collective.
template <class Run>
int run_until_case_occurs(heist::Runtime& rt, double hold_s, Run run) {
  bool ok = true, occurred = false;
  for (int attempt = 1; attempt <= 3 && !occurred; ++attempt) {
    rt.reset_stats();
    g_held = false;
    g_hold_s = hold_s * (1 << (attempt - 1));
    const CaseRun r = run(attempt);
    ok = ok && r.ok;
    occurred = rt.sum_over_ranks(rt.rank() == 0 && r.occurred ? 1 : 0) > 0;  // rank 0's view, on every rank
  }
  if (rt.rank() == 0 && !occurred) std::printf("the case under test did not occur in 3 runs\n");
  return rt.rank() == 0 && !(ok && occurred) ? 1 : 0;
}

// ---- full_mailbox: pushes to a rank that does not drain its mailbox ----
// Rank 1 runs the first task it gets for --long-s without polling, so the
// batches rank 0 pushes meanwhile pile up in its mailbox until rank 0 has
// to wait for room (RingRoom: a sender that took room it does not have
// overwrites batches not yet read, and tasks are lost or the run hangs).
// Checks: every task once (tallies over both ranks), and rank 0 reported at
// least one wait in one of up to three runs (else the test did not test the
// full case).
int run_full_mailbox(Settings& s) {
  heist::Runtime rt(s.options);
  g_rank = rt.rank();
  // 2,000 tasks, 0.2 s on rank 0 alone: it still has tasks when rank 1 starts, on a loaded machine too.
  return run_until_case_occurs(rt, s.long_s, [&](int attempt) {
    const bool ok = run_id_tasks(rt, held_task_, 2000, "full_mailbox");
    const heist::WorkerStats total = rt.stats().total();  // every rank's workers, on rank 0
    const std::uint64_t waits = total.mailbox_full_waits;
    if (rt.rank() == 0)
      std::printf("run %d: tasks pushed %llu, sends that waited for room %llu\n", attempt,
                  static_cast<unsigned long long>(total.tasks_pushed), static_cast<unsigned long long>(waits));
    return CaseRun{ok, waits > 0};
  });
}

// ---- answer_round: several success-only answers in one mailbox round ----
// Rank 0 spawns every task (help-first: all queued, its polls advertise
// them), then runs the first for --long-s without polling, while the other
// ranks, idle, read its load on the board and ask it for work. Its next
// poll finds their requests waiting and answers them in one round
// (TaskMailbox::send_round with several batches). Checks: every task once,
// and rank 0 sent fewer rounds than answers in one of up to three runs
// (else the case did not occur).
int run_answer_round(Settings& s) {
  heist::Runtime rt(s.options);
  g_rank = rt.rank();
  g_hold_rank0 = true;
  return run_until_case_occurs(rt, s.long_s, [&](int attempt) {
    const bool ok = run_id_tasks(rt, held_task_, 600, "answer_round");
    const heist::WorkerStats rank0 = rank_total(rt.stats(), 0);  // every rank's workers, on rank 0
    const std::uint64_t answers = rank0.requests_served, rounds = rank0.mailbox_rounds;
    if (rt.rank() == 0)
      std::printf("run %d: rank 0 sent %llu answers in %llu mailbox rounds\n", attempt,
                  static_cast<unsigned long long>(answers), static_cast<unsigned long long>(rounds));
    return CaseRun{ok, rounds < answers};
  });
}

// ---- foreign_reports: escaping tasks of another rank, reported in bulk ----
// Rank 0's root opens a finish and asyncs --trees x 1,000 tasks (help-first:
// all queued, so the other rank steals many); each task with an id up to
// half of them asyncs a child, which registers with the proxy of the rank
// it runs on. A rank that runs rank 0's escaping tasks counts them in a
// foreign proxy per scope and reports them in one entry per drain
// (sched/proxy_scope.hpp); the first such task rank 1 runs throws after
// spawning its child, and the error must reach rank 0's root. Checks: every
// task once (tallies over the ranks), rank 1 reported more tasks than it
// sent entries, and the root threw rank 1's error.
std::atomic<bool> g_thrown{false};
void reported(const std::uint64_t& id);
const auto reported_task = heist::register_task<reported>("mpi_driver.reported");

void reported(const std::uint64_t& id) {
  tally(id);
  busy_for(20'000);
  constexpr std::uint64_t kHalf = 1u << 30;  // children's ids: id + kHalf
  if (id < kHalf && id % 2 == 1) heist::async(reported_task, id + kHalf);
  if (g_rank == 1 && id < kHalf && !g_thrown.exchange(true, std::memory_order_relaxed))  // one of rank 0's
    throw std::runtime_error("reported task " + std::to_string(id));
}

int run_foreign_reports(Settings& s) {
  heist::Runtime rt(s.options);
  g_rank = rt.rank();
  const std::uint64_t tasks = 1000 * static_cast<std::uint64_t>(s.trees);
  Expected e;
  for (std::uint64_t id = 1; id <= tasks; ++id) {
    for (const std::uint64_t t : {id, id + (std::uint64_t{1} << 30)}) {
      if (t != id && id % 2 == 0) continue;
      ++e.count;
      e.sum += t;
      e.sq += t * t;
    }
  }
  (void)rt.sum_over_ranks(0);  // every rank is up before rank 0 starts
  std::string error;
  try {
    rt.root([&] {
      heist::finish([&] {
        for (std::uint64_t id = 1; id <= tasks; ++id) heist::async(reported_task, id);
      });
    });
  } catch (const std::exception& x) {
    error = x.what();
  }
  bool ok = combine_and_check(rt, e, "foreign_reports");
  const std::uint64_t ran_on_1 = rt.sum_over_ranks(g_thrown.load() ? 1 : 0);
  const heist::RunStats stats = rt.stats();
  if (rt.rank() == 0) {
    const heist::WorkerStats rank1 = rank_total(stats, 1);
    const std::uint64_t entries = rank1.completions_sent, reported_tasks = rank1.tasks_reported;
    std::printf("rank 1: %llu tasks of rank 0 reported in %llu entries; root error: %s\n",
                static_cast<unsigned long long>(reported_tasks), static_cast<unsigned long long>(entries),
                error.empty() ? "(none)" : error.c_str());
    if (ran_on_1 == 0 || reported_tasks <= entries) {
      std::printf("rank 1 reported no batch: the case under test did not occur\n");
      ok = false;
    }
    if (ran_on_1 > 0 && error.find("threw on rank 1") == std::string::npos) {
      std::printf("rank 1's task threw, and rank 0's root did not report it\n");
      ok = false;
    }
  }
  return rt.rank() == 0 && !ok ? 1 : 0;
}

void extra_task(const int&) {}

int run_mismatch(Settings& s) {
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank == nullptr) rank = std::getenv("PMI_RANK");
  if (rank != nullptr && std::string(rank) == "1") heist::register_task<extra_task>("mpi_driver.only_on_rank_1");
  try {
    heist::Runtime rt(s.options);
  } catch (const std::exception& e) {
    std::printf("rank %s: %s\n", rank ? rank : "?", e.what());
    return 3;
  }
  std::printf("rank %s: no error\n", rank ? rank : "?");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heist multi-rank test driver"};
  app.require_subcommand(1);
  Settings s;
  for (const heist::OptionSpec& spec : heist::option_table())
    app.add_option_function<std::string>(spec.flag, [&s, &spec](const std::string& v) { spec.set(s.options, v); },
                                         spec.help);
  app.add_option("--depth", s.depth);
  app.add_option("--spin", s.spin);
  app.add_option("--trees", s.trees);
  app.add_option("--seed-rank", s.seed_rank);
  app.add_option("--long-s", s.long_s);
  app.add_option("--expect-nodes", s.expect_nodes);
  int rc = 0;
  app.add_subcommand("tree")->callback([&] { rc = run_tree(s); });
  Matrix matrix;
  CLI::App* combos = app.add_subcommand("matrix");
  combos->add_option("--victims", matrix.victims);
  combos->add_option("--chunks", matrix.chunks);
  combos->add_option("--protocols", matrix.protocols);
  combos->add_option("--balances", matrix.balances);
  combos->add_option("--remote-steals", matrix.remote_steals);
  combos->callback([&] { rc = run_matrix(s, matrix); });
  app.add_subcommand("pool")->callback([&] { rc = run_pool(s); });
  app.add_subcommand("progress")->callback([&] { rc = run_progress(s); });
  app.add_subcommand("mismatch")->callback([&] { rc = run_mismatch(s); });
  app.add_subcommand("dependents")->callback([&] { rc = run_dependents(s); });
  app.add_subcommand("full_mailbox")->callback([&] { rc = run_full_mailbox(s); });
  app.add_subcommand("answer_round")->callback([&] { rc = run_answer_round(s); });
  app.add_subcommand("foreign_reports")->callback([&] { rc = run_foreign_reports(s); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpi_driver: %s\n", e.what());
    return 2;
  }
  return rc;
}
