// spantree: the sequential DFS and the heist version of HelpFirst Figure 3
// (tryLabeling by compare-exchange, an escaping async per labelled vertex,
// one finish around the root). Public heist API only.
#include <atomic>
#include <vector>

#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "spantree/spantree.hpp"

namespace heist::apps::spantree {

std::uint64_t spanning_tree_sequential(const Graph& graph, std::uint32_t root, std::vector<std::uint32_t>& parent) {
  parent.assign(graph.vertices, kNoParent);
  parent[root] = root;
  std::vector<std::uint32_t> stack{root};
  std::uint64_t labelled = 0;
  while (!stack.empty()) {
    const std::uint32_t x = stack.back();
    stack.pop_back();
    ++labelled;
    for (std::uint32_t u : graph.neighbours(x)) {
      if (parent[u] != kNoParent) continue;
      parent[u] = x;
      stack.push_back(u);
    }
  }
  return labelled;
}

namespace {

// The traversal in progress (like uts's g_params): every task carries only
// its vertex id; the graph and parent[] are set up before the finish.
const Graph* g_graph = nullptr;
std::uint32_t* g_parent = nullptr;

// Vertices processed, per worker (each worker writes only its own line;
// finish orders the writes before the sum).
struct alignas(64) Count {
  std::uint64_t value = 0;
};
std::vector<Count> g_counts;

// Figure 3's tryLabeling: the one compare-exchange that wins labels u.
// Relaxed suffices: parent[] is read only after the finish, and the task
// input carries the vertex id.
bool try_label(std::uint32_t u, std::uint32_t parent) {
  std::atomic_ref<std::uint32_t> slot(g_parent[u]);
  if (slot.load(std::memory_order_relaxed) != kNoParent) return false;
  std::uint32_t expected = kNoParent;
  return slot.compare_exchange_strong(expected, parent, std::memory_order_relaxed);
}

// Figure 3's compute(): label every unlabelled neighbour and spawn its
// visit as an escaping async; nothing waits for it here. Whether a child
// runs before its parent continues (inline, work-first: a recursion as deep
// as the DFS tree) or is queued (help-first) is the spawn policy's choice;
// the inline policies queue once the stack is nearly full, and work-first —
// which cannot — stops with an error (HelpFirst §5.2, Figure 13). No state
// lives in thread-locals across a spawn: under work-first the code after an
// async may continue on another worker.
void visit(const std::uint32_t& v);
const auto visit_task = heist::register_task<visit>("apps.spantree.vertex", heist::Migration::process);

void visit(const std::uint32_t& v) {
  for (std::uint32_t u : g_graph->neighbours(v))
    if (try_label(u, v)) heist::async(visit_task, u);  // escaping async
  ++g_counts[static_cast<std::size_t>(heist::worker_id())].value;
}

}  // namespace

std::uint64_t spanning_tree_heist(const Graph& graph, std::uint32_t root, std::vector<std::uint32_t>& parent) {
  parent.assign(graph.vertices, kNoParent);
  g_graph = &graph;
  g_parent = parent.data();
  g_counts.assign(static_cast<std::size_t>(heist::num_workers()), Count{});
  heist::finish([&] {
    parent[root] = root;
    heist::async(visit_task, root);
  });
  // finish has returned: every task, and its count, happened before.
  std::uint64_t labelled = 0;
  for (const Count& c : g_counts) labelled += c.value;
  g_graph = nullptr;
  g_parent = nullptr;
  return labelled;
}

std::vector<TaskIo> spantree_task_io() { return {task_io_of(visit_task, "apps.spantree.vertex")}; }

}  // namespace heist::apps::spantree
