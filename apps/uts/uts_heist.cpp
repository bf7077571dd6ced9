#include "uts/uts_heist.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

#include <heist/heist.hpp>

#include "common/task_io.hpp"
#include "uts/uts_tree.hpp"

namespace heist::apps::uts {

using heist::uts::UtsCounts;
using heist::uts::UtsNode;
using heist::uts::UtsParams;

namespace {

// The traversal in progress. Every process of a job runs the same traversal
// with the same parameters, so tasks carry only the node.
const UtsParams* g_params = nullptr;
std::int32_t g_cutoff = 0;  // nodes at this height or deeper count their subtree sequentially (0: never)
std::atomic<unsigned> g_generation{0};

// Per-thread tallies: no shared counter on the per-node path. Each thread
// registers its tally once per traversal.
struct Tally {
  UtsCounts counts;
  unsigned generation = 0;
};
std::mutex g_tallies_mutex;
std::vector<Tally*> g_tallies;

Tally& my_tally() {
  thread_local Tally tally;
  const unsigned generation = g_generation.load(std::memory_order_relaxed);
  if (tally.generation != generation) {
    tally = Tally{{}, generation};
    std::lock_guard lock(g_tallies_mutex);
    g_tallies.push_back(&tally);
  }
  return tally;
}

void visit(const UtsNode& node);
const auto uts_task = heist::register_task<visit>("apps.uts.node");

void visit(const UtsNode& node) {
  Tally& tally = my_tally();
  if (g_cutoff > 0 && node.height >= g_cutoff) {  // the application's tree-depth cutoff (HotSLAW Fig. 7)
    tally.counts += heist::uts::uts_count_sequential(*g_params, node);
    return;
  }
  ++tally.counts.nodes;
  tally.counts.max_depth = std::max<std::int64_t>(tally.counts.max_depth, node.height);
  const int children = heist::uts::num_children(*g_params, node);
  if (children == 0) ++tally.counts.leaves;
  heist::uts::for_each_child(*g_params, node, children,
                             [](const UtsNode& child) { heist::async(uts_task, child); });
}

void begin_traversal(const UtsParams& params, int cutoff) {
  g_params = &params;
  g_cutoff = cutoff;
  g_generation.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(g_tallies_mutex);
  g_tallies.clear();
}

// This process's share of the counts; call after the traversal's finish.
UtsCounts collect_tallies() {
  UtsCounts total{};
  std::lock_guard lock(g_tallies_mutex);
  for (const Tally* t : g_tallies) {
    total.nodes += t->counts.nodes;
    total.leaves += t->counts.leaves;
    total.max_depth = std::max(total.max_depth, t->counts.max_depth);
  }
  return total;
}

}  // namespace

UtsCounts uts_count_heist(const UtsParams& params, int cutoff) {
  begin_traversal(params, cutoff);
  heist::finish([&] { heist::async(uts_task, heist::uts::make_root(params)); });
  return collect_tallies();  // finish has returned: every task (and its tally update) happened before
}

UtsCounts uts_count_heist(heist::Runtime& runtime, const UtsParams& params, int cutoff) {
  begin_traversal(params, cutoff);  // every rank: tasks that arrive read the parameters here
  runtime.root([&] { heist::async(uts_task, heist::uts::make_root(params)); });
  const UtsCounts mine = collect_tallies();
  UtsCounts total{};
  total.nodes = runtime.sum_over_ranks(mine.nodes);
  total.leaves = runtime.sum_over_ranks(mine.leaves);
  total.max_depth = static_cast<std::int64_t>(runtime.max_over_ranks(static_cast<std::uint64_t>(mine.max_depth)));
  return total;
}

std::vector<TaskIo> uts_task_io() { return {task_io_of(uts_task, "apps.uts.node")}; }

}  // namespace heist::apps::uts
