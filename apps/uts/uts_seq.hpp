// uts_seq.hpp - sequential depth-first traversal of an Unbalanced Tree Search
// (UTS) tree, the reference against which parallel traversals are checked.
// Follows the UTS benchmark definition of node, leaf and depth counts.
#pragma once

#include <cstdint>

#include "uts/uts_params.hpp"
#include "uts/uts_tree.hpp"

namespace heist::uts {

// Statistics of a (sub)tree, as UTS reports them.
struct UtsCounts {
  std::uint64_t nodes = 0;    // every visited node, root included
  std::uint64_t leaves = 0;   // nodes with no children
  std::int64_t max_depth = 0; // largest node height (root = 0)

  // Combines counts of disjoint subtrees (sum, sum, max).
  UtsCounts& operator+=(const UtsCounts& o) noexcept {
    nodes += o.nodes;
    leaves += o.leaves;
    if (o.max_depth > max_depth) max_depth = o.max_depth;
    return *this;
  }
  friend bool operator==(const UtsCounts&, const UtsCounts&) = default;
};

// Counts the whole tree described by `p` (finalized params), depth first,
// with an explicit stack (no recursion, any depth).
[[nodiscard]] UtsCounts uts_count_sequential(const UtsParams& p);

// Counts the subtree rooted at `start`; max_depth is the absolute height of
// the deepest node, so subtree counts combine with operator+=.
[[nodiscard]] UtsCounts uts_count_sequential(const UtsParams& p,
                                             const UtsNode& start);

}  // namespace heist::uts
