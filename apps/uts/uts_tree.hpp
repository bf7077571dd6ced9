// uts_tree.hpp - the Unbalanced Tree Search (UTS) tree: node representation,
// number of children of a node, and generation of child i of a node.
//
// Follows the UTS benchmark definition (uts.c: uts_initRoot,
// uts_numChildren, uts_childType, rng_spawn): any traversal order, sequential
// or parallel, that visits every node produced by these functions sees
// exactly the published UTS trees. All functions are pure, allocation-free
// and thread-safe, so the parallel runtime and the simulator can call them
// concurrently on copies of nodes.
#pragma once

#include <cstdint>
#include <type_traits>

#include "uts/uts_params.hpp"
#include "uts/uts_sha1.hpp"

namespace heist::uts {

// One tree node: its rng state (which determines the whole subtree), its
// height (root = 0) and its UTS node type. 28 bytes, trivially copyable, so
// it can be stored by value in a task slot or a work-stealing deque.
struct UtsNode {
  RngState state;           // 20-byte SHA-1 digest
  std::int32_t height = 0;  // distance from the root
  TreeType type = TreeType::Geo;
};

static_assert(std::is_trivially_copyable_v<UtsNode>);
static_assert(std::is_standard_layout_v<UtsNode>);
static_assert(sizeof(UtsNode) <= 32, "UtsNode must fit a small task slot");

// The root: rng_init(root_seed), height 0, type p.type.
[[nodiscard]] UtsNode make_root(const UtsParams& p) noexcept;

// Number of children of `node`, in [0, kMaxNumChildren] except for a Bin
// root (floor(b_0)) and Balanced trees. Draws larger than kMaxNumChildren are
// truncated to it, as UTS does (UTS prints a notice; we stay silent).
// `p` should be finalized (finalize_uts_params); if not, the derived values
// are recomputed per call, which is correct but slower.
[[nodiscard]] int num_children(const UtsParams& p, const UtsNode& node) noexcept;

// UTS type given to the children of `parent` (Hybrid switches Geo -> Bin at
// height shift_depth * gen_mx).
[[nodiscard]] TreeType child_type(const UtsParams& p, const UtsNode& parent) noexcept;

// Child number `i` (0-based, i < num_children(p, parent)) of `parent`.
[[nodiscard]] UtsNode make_child(const UtsParams& p, const UtsNode& parent,
                                 int i) noexcept;

// Expected number of children b_i of a Geo node at `depth` (UTS shape
// function; depth 0 gives b_0 for every shape).
[[nodiscard]] double geo_expected_children(const UtsParams& p, int depth) noexcept;

// log(1 - p) with p = 1 / (1 + b_i): the denominator of the inverse
// geometric CDF used for Geo nodes at `depth`.
[[nodiscard]] double geo_log1mp(const UtsParams& p, int depth) noexcept;

}  // namespace heist::uts
