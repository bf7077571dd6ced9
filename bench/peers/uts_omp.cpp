#include <omp.h>

#include <vector>

#include "omp_kernels.hpp"
#include "uts_common.hpp"

namespace heist::peers {
namespace {

struct alignas(64) Tally {
  std::uint64_t nodes = 0;
};

void visit(const UtsParams& params, int cutoff, const UtsNode& node, std::vector<Tally>& tallies) {
  Tally& mine = tallies[static_cast<std::size_t>(omp_get_thread_num())];
  if (uts_below_cutoff(node, cutoff)) {
    mine.nodes += heist::uts::uts_count_sequential(params, node).nodes;
    return;
  }
  ++mine.nodes;
  const int children = heist::uts::num_children(params, node);
  for (int i = 0; i < children; ++i) {
    const UtsNode child = heist::uts::make_child(params, node, i);
#pragma omp task untied default(none) firstprivate(child, cutoff) shared(params, tallies)
    visit(params, cutoff, child, tallies);
  }
}

}  // namespace

std::uint64_t uts_omp(const Problem& problem) {
  const UtsParams& params = uts_params(problem.tree);
  std::vector<Tally> tallies(static_cast<std::size_t>(omp_get_num_threads()));
#pragma omp taskgroup
  visit(params, problem.cutoff, heist::uts::make_root(params), tallies);
  std::uint64_t total = 0;
  for (const Tally& t : tallies) total += t.nodes;
  return total;
}

}  // namespace heist::peers
