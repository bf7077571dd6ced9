#pragma once

// The peers traverse heist's own UTS trees (apps/uts: SHA-1 node hashing,
// named trees) and count below their cutoff with its sequential traversal,
// so every implementation shares the per-node code.
#include <optional>
#include <string>

#include "uts/uts_params.hpp"
#include "uts/uts_seq.hpp"
#include "uts/uts_tree.hpp"

namespace heist::peers {

using heist::uts::UtsCounts;
using heist::uts::UtsNode;
using heist::uts::UtsParams;

// The parameters of a named tree ("T1", "T3L", ...) or of UTS options
// ("-t 1 -a 3 -d 10 -b 4 -r 19"); throws std::invalid_argument.
const UtsParams& uts_params(const std::string& tree);
// The published node count of a named tree, if it has one.
std::optional<std::uint64_t> uts_reference_nodes(const std::string& tree);

// A node below the cutoff height (cutoff > 0) counts its subtree sequentially.
inline bool uts_below_cutoff(const UtsNode& node, int cutoff) { return cutoff > 0 && node.height >= cutoff; }

}  // namespace heist::peers
