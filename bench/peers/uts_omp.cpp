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
  heist::uts::for_each_child(params, node, children, [&](const UtsNode& generated) {
    // Named locals: OpenMP's data-sharing clauses take variables, not lambda captures.
    const UtsParams& p = params;
    std::vector<Tally>& t = tallies;
    const int cut = cutoff;
    const UtsNode child = generated;
#pragma omp task untied default(none) firstprivate(child, cut) shared(p, t)
    visit(p, cut, child, t);
  });
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
