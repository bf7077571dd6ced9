#include <tbb/enumerable_thread_specific.h>
#include <tbb/task_group.h>

#include "tbb_kernels.hpp"
#include "uts_common.hpp"

namespace heist::peers {
namespace {

struct Traversal {
  const UtsParams& params;
  int cutoff;
  tbb::task_group group;
  tbb::enumerable_thread_specific<std::uint64_t> nodes;

  void visit(const UtsNode& node) {
    if (uts_below_cutoff(node, cutoff)) {
      nodes.local() += heist::uts::uts_count_sequential(params, node).nodes;
      return;
    }
    ++nodes.local();
    const int children = heist::uts::num_children(params, node);
    heist::uts::for_each_child(params, node, children,
                               [this](const UtsNode& child) { group.run([this, child] { visit(child); }); });
  }
};

}  // namespace

std::uint64_t uts_tbb(const Problem& problem) {
  const UtsParams& params = uts_params(problem.tree);
  Traversal t{params, problem.cutoff, {}, {}};
  t.group.run([&t, root = heist::uts::make_root(params)] { t.visit(root); });
  t.group.wait();
  std::uint64_t total = 0;
  for (const std::uint64_t n : t.nodes) total += n;
  return total;
}

}  // namespace heist::peers
