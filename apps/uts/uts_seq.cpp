// uts_seq.cpp - sequential depth-first UTS traversal with an explicit stack.
// Follows the UTS benchmark definition; see uts_seq.hpp.
#include "uts/uts_seq.hpp"

#include <vector>

namespace heist::uts {

UtsCounts uts_count_sequential(const UtsParams& p) {
  return uts_count_sequential(p, make_root(p));
}

UtsCounts uts_count_sequential(const UtsParams& p, const UtsNode& start) {
  UtsCounts c;
  std::vector<UtsNode> stack;
  stack.reserve(4096);
  stack.push_back(start);
  while (!stack.empty()) {
    const UtsNode node = stack.back();  // copy: push_back may reallocate
    stack.pop_back();
    ++c.nodes;
    if (node.height > c.max_depth) c.max_depth = node.height;
    const int n = num_children(p, node);
    if (n <= 0) {
      ++c.leaves;
      continue;
    }
    const TreeType type = child_type(p, node);
    for (int i = 0; i < n; ++i) make_child_into(node, i, type, stack.emplace_back());
  }
  return c;
}

}  // namespace heist::uts
