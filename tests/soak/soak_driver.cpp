// Exactly-once soak: runs random task DAGs (soak_dag.hpp) under the runtime
// options given on the command line (every option of the option table) and
// checks, for every DAG:
//   * every task id ran exactly once, summed over all ranks;
//   * every output arrived: each task compares its children's outputs with
//     their sequential values, and the root's (or the pool seeds') outputs
//     are compared too;
//   * spawn_after ran each task after its dependencies ended, and fence()
//     started the joined children after a fence only after the joined
//     children before it ended (CLOCK_MONOTONIC timestamps: one host only).
// DAGs alternate between root-task mode and SPMD pool mode (drawn from the
// seed). Collective under mpirun; also runs as one process. Exit status 0
// iff every check held; on failure rank 0 prints what failed and the seed.
//   heist_soak_driver --seed S [--dags K] [--nodes N] [runtime options...]
// tools/soak.py draws the runtime options and ranks from a seed and runs
// this driver thousands of times.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <heist/heist.hpp>
#include <heist/option_table.hpp>

#ifdef HEIST_SOAK_MPI
#include <mpi.h>
#endif

#include "soak_dag.hpp"

namespace {

using heist::soak::Child;
using heist::soak::Dag;
using heist::soak::Edge;

std::uint64_t now_ns() {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
          .count());
}

// What every rank records about the DAG being run (indexed by node id).
struct Tally {
  explicit Tally(std::size_t n)
      : runs(new std::atomic<std::uint64_t>[n]()), start(new std::atomic<std::uint64_t>[n]()),
        end(new std::atomic<std::uint64_t>[n]()) {}
  std::unique_ptr<std::atomic<std::uint64_t>[]> runs, start, end;
  std::atomic<std::uint64_t> bad_outputs{0};
  std::atomic<std::uint64_t> first_bad{~std::uint64_t{0}};  // node whose child's output was wrong
};

std::vector<Dag> g_dags;
std::vector<std::unique_ptr<Tally>> g_tallies;

struct NodeIn {
  std::uint32_t dag;
  std::uint32_t node;
};

void run_node(const NodeIn& in, std::uint64_t* out);
void run_escaping(const NodeIn& in) { run_node(in, nullptr); }
const auto node_task = heist::register_task<run_node>("soak.node");
const auto escaping_task = heist::register_task<run_escaping>("soak.escaping");

void spin_ns(std::uint32_t ns) {
  const std::uint64_t until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

void check_output(Tally& t, const Dag& dag, std::uint32_t parent, std::uint32_t child, std::uint64_t got) {
  if (got == dag.value[child]) return;
  t.bad_outputs.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t first = ~std::uint64_t{0};
  t.first_bad.compare_exchange_strong(first, parent, std::memory_order_relaxed);
}

// Spawns child `c` of a node the way its edge says.
void spawn_child(const NodeIn& parent, const Child& c, std::uint64_t* out, std::vector<heist::TaskHandle>& handles,
                 std::size_t k) {
  const NodeIn in{parent.dag, c.node};
  switch (c.edge) {
    case Edge::spawn: heist::spawn(node_task, in, out); break;
    case Edge::async: heist::async(escaping_task, in); break;
    case Edge::closure: heist::async([in] { run_node(in, nullptr); }); break;
    case Edge::async_any: heist::async_any([in] { run_node(in, nullptr); }); break;
    case Edge::finish: heist::finish([&] { heist::async(escaping_task, in); }); break;
    case Edge::handle: handles[k] = heist::spawn_handle(node_task, in, out); break;
    case Edge::after:
      handles[k] = c.deps == 1 ? heist::spawn_after({handles[c.dep[0]]}, node_task, in, out)
                               : heist::spawn_after({handles[c.dep[0]], handles[c.dep[1]]}, node_task, in, out);
      break;
  }
}

void run_node(const NodeIn& in, std::uint64_t* out) {
  const Dag& dag = g_dags[in.dag];
  Tally& t = *g_tallies[in.dag];
  t.start[in.node].store(now_ns(), std::memory_order_relaxed);
  t.runs[in.node].fetch_add(1, std::memory_order_relaxed);
  const heist::soak::Node& n = dag.nodes[in.node];
  spin_ns(n.work_ns);
  std::vector<std::uint64_t> values(n.children, 0);
  std::vector<heist::TaskHandle> handles(n.children);
  for (std::uint32_t k = 0; k < n.children; ++k) {
    const Child& c = dag.children[n.first_child + k];
    if (c.fence_before) heist::fence();
    spawn_child(in, c, &values[k], handles, k);
  }
  for (std::uint32_t k = 0; k < n.children; ++k)
    if (dag.children[n.first_child + k].wait_handle) heist::wait(handles[k]);
  heist::wait();
  std::uint64_t v = dag.own_value(in.node);
  for (std::uint32_t k = 0; k < n.children; ++k) {
    const Child& c = dag.children[n.first_child + k];
    if (!heist::soak::has_output(c.edge)) continue;
    check_output(t, dag, in.node, c.node, values[k]);
    v += values[k];
  }
  t.end[in.node].store(now_ns(), std::memory_order_relaxed);
  if (out != nullptr) *out = v;
}

// ---- combining the ranks' tallies ----

void reduce(std::vector<std::uint64_t>& v, bool max) {
#ifdef HEIST_SOAK_MPI
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized)
    MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, max ? MPI_MAX : MPI_SUM,
                  MPI_COMM_WORLD);
#else
  (void)v;
  (void)max;
#endif
}

std::vector<std::uint64_t> gather(const std::unique_ptr<std::atomic<std::uint64_t>[]>& a, std::size_t n, bool max) {
  std::vector<std::uint64_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = a[i].load(std::memory_order_relaxed);
  reduce(v, max);
  return v;
}

struct Verdict {
  std::uint64_t lost = 0, duplicated = 0, bad_outputs = 0, order = 0;
  std::string first;  // the first problem, in words
  void note(const std::string& what) {
    if (first.empty()) first = what;
  }
  bool ok() const { return lost + duplicated + bad_outputs + order == 0; }
};

// Every rank: check the combined tallies of DAG `d` (`root_ok`: this rank's
// root or pool-seed outputs were right).
Verdict check_dag(std::uint32_t d, std::uint64_t wrong_roots) {
  const Dag& dag = g_dags[d];
  Tally& t = *g_tallies[d];
  const std::size_t n = dag.nodes.size();
  const std::vector<std::uint64_t> runs = gather(t.runs, n, false);
  const std::vector<std::uint64_t> start = gather(t.start, n, true);
  const std::vector<std::uint64_t> end = gather(t.end, n, true);
  std::vector<std::uint64_t> outputs{t.bad_outputs.load(), wrong_roots};
  reduce(outputs, false);
  Verdict v;
  for (std::uint32_t id = 0; id < n; ++id) {
    const std::uint64_t want = dag.pool && id == 0 ? 0 : 1;
    if (runs[id] == want) continue;
    (runs[id] < want ? v.lost : v.duplicated) += 1;
    v.note("task " + std::to_string(id) + " ran " + std::to_string(runs[id]) + " times");
  }
  v.bad_outputs = outputs[0] + outputs[1];
  if (v.bad_outputs > 0) v.note(std::to_string(v.bad_outputs) + " wrong outputs");
  // Orders: spawn_after after its dependencies; joined children across a fence.
  for (std::uint32_t id = 0; id < n; ++id) {
    const heist::soak::Node& node = dag.nodes[id];
    std::uint64_t fence_end = 0;    // latest end of the joined children before the last fence
    std::uint64_t joined_end = 0;   // latest end of the joined children so far
    for (std::uint32_t k = 0; k < node.children; ++k) {
      const Child& c = dag.children[node.first_child + k];
      if (c.fence_before) fence_end = std::max(fence_end, joined_end);
      if (!heist::soak::joined(c.edge)) continue;
      if (start[c.node] < fence_end) {
        ++v.order;
        v.note("task " + std::to_string(c.node) + " started before the tasks spawned before its fence ended");
      }
      for (std::uint8_t i = 0; i < c.deps; ++i) {
        const std::uint32_t dep = dag.children[node.first_child + c.dep[i]].node;
        if (start[c.node] < end[dep]) {
          ++v.order;
          v.note("task " + std::to_string(c.node) + " started before its dependency " + std::to_string(dep) + " ended");
        }
      }
      joined_end = std::max(joined_end, end[c.node]);
    }
  }
  return v;
}

// Runs DAG d in its mode; returns how many root or seed outputs this rank saw wrong.
std::uint64_t run_dag(heist::Runtime& rt, std::uint32_t d) {
  const Dag& dag = g_dags[d];
  std::uint64_t wrong = 0;
  if (!dag.pool) {
    std::uint64_t value = 0;
    rt.root([&] {
      heist::spawn(node_task, NodeIn{d, 0}, &value);
      heist::wait();
    });
    if (rt.rank() == 0 && value != dag.value[0]) ++wrong;
    return wrong;
  }
  // Pool: rank r seeds the root's children k with k % ranks == r.
  const heist::soak::Node& root = dag.nodes[0];
  std::vector<std::uint64_t> values(root.children, 0);
  std::vector<heist::TaskHandle> none(root.children);
  rt.pool([&] {
    for (std::uint32_t k = 0; k < root.children; ++k)
      if (static_cast<int>(k % static_cast<std::uint32_t>(rt.ranks())) == rt.rank())
        spawn_child(NodeIn{d, 0}, dag.children[root.first_child + k], &values[k], none, k);
  });
  for (std::uint32_t k = 0; k < root.children; ++k) {
    const Child& c = dag.children[root.first_child + k];
    if (static_cast<int>(k % static_cast<std::uint32_t>(rt.ranks())) == rt.rank() && heist::soak::has_output(c.edge) &&
        values[k] != dag.value[c.node])
      ++wrong;
  }
  return wrong;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heist exactly-once soak: random task DAGs checked by id, output and order"};
  heist::Options options = heist::Options::from_env();
  std::uint64_t seed = 1;
  std::uint32_t dags = 4;
  heist::soak::DagShape shape;
  for (const heist::OptionSpec& spec : heist::option_table())
    app.add_option_function<std::string>(spec.flag, [&options, &spec](const std::string& v) { spec.set(options, v); },
                                         spec.help);
  app.add_option("--soak-seed", seed, "seed of the DAGs (DAG k uses a seed drawn from it)");
  app.add_option("--dags", dags, "DAGs to run, one region each")->check(CLI::Range(1u, 100000u));
  app.add_option("--nodes", shape.max_nodes, "largest DAG (tasks)")->check(CLI::Range(1u, 1000000u));
  app.add_option("--depth", shape.max_depth, "deepest DAG")->check(CLI::Range(0u, 64u));
  app.add_option("--fanout", shape.max_fanout, "most children per task")->check(CLI::Range(0u, 64u));
  app.add_option("--work-ns", shape.max_work_ns, "most busy time per task, ns")->check(CLI::Range(0u, 100000000u));
  bool print = false;
  app.add_flag("--print-dags", print, "print the DAGs (node: children as edge:node) and exit");
  try {
    app.parse(argc, argv);
    options.validate();
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "soak: %s\n", e.what());
    return 2;
  }
  for (std::uint32_t d = 0; d < dags; ++d) {
    g_dags.push_back(heist::soak::make_dag(heist::soak::mix(seed * 1000003 + d), shape));
    g_tallies.push_back(std::make_unique<Tally>(g_dags.back().nodes.size()));
  }
  if (print) {
    static const char* const names[] = {"spawn", "async", "closure", "async_any", "finish", "handle", "after"};
    for (const Dag& dag : g_dags) {
      std::printf("dag %s, %zu tasks\n", dag.pool ? "pool" : "root", dag.nodes.size());
      for (std::uint32_t id = 0; id < dag.nodes.size(); ++id) {
        if (dag.nodes[id].children == 0) continue;
        std::printf("  %u:", id);
        for (std::uint32_t k = 0; k < dag.nodes[id].children; ++k) {
          const Child& c = dag.children[dag.nodes[id].first_child + k];
          std::printf(" %s%s:%u%s", c.fence_before ? "| " : "", names[static_cast<int>(c.edge)], c.node,
                      c.wait_handle ? "(waited)" : "");
          for (std::uint8_t i = 0; i < c.deps; ++i) std::printf("%s#%u", i == 0 ? "<" : ",", c.dep[i]);
        }
        std::printf("\n");
      }
    }
    return 0;
  }
  heist::Runtime rt(options);
  std::uint64_t tasks = 0, failures = 0;
  std::string first;
  for (std::uint32_t d = 0; d < dags; ++d) {
    const std::uint64_t wrong_roots = run_dag(rt, d);
    const Verdict v = check_dag(d, wrong_roots);
    tasks += g_dags[d].nodes.size();
    if (!v.ok()) {
      ++failures;
      if (rt.rank() == 0)
        std::printf("soak: seed %llu dag %u (%s, %zu tasks): %llu lost, %llu duplicated, %llu wrong outputs, %llu "
                    "order violations; first: %s\n",
                    static_cast<unsigned long long>(seed), d, g_dags[d].pool ? "pool" : "root",
                    g_dags[d].nodes.size(), static_cast<unsigned long long>(v.lost),
                    static_cast<unsigned long long>(v.duplicated), static_cast<unsigned long long>(v.bad_outputs),
                    static_cast<unsigned long long>(v.order), v.first.c_str());
    }
  }
  const heist::RunStats stats = rt.stats();
  if (rt.rank() == 0) {
    const heist::WorkerStats total = stats.total();
    std::printf("soak: seed %llu: %u DAGs, %llu tasks, %d rank(s) x %d worker(s): %s (steals %llu, between ranks %llu; "
                "rank 0 pushed %llu; reported in bulk %llu in %llu entries)\n",
                static_cast<unsigned long long>(seed), dags, static_cast<unsigned long long>(tasks), rt.ranks(),
                rt.workers(), failures == 0 ? "every task once, every output right, every order kept" : "FAILED",
                static_cast<unsigned long long>(total.steals), static_cast<unsigned long long>(total.remote_steals),
                static_cast<unsigned long long>(total.tasks_pushed), static_cast<unsigned long long>(total.tasks_reported),
                static_cast<unsigned long long>(total.completions_sent));
  }
  return failures == 0 ? 0 : 1;
}
