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
// The same, written into `child` (no temporary to copy).
void make_child_into(const UtsParams& p, const UtsNode& parent, int i,
                     UtsNode& child) noexcept;
// The same with the children's type already known (child_type(p, parent)):
// a traversal computes it once per parent. Writes every field of `child`.
inline void make_child_into(const UtsNode& parent, int i, TreeType type, UtsNode& child) noexcept {
  rng_spawn_into(parent.state, static_cast<std::uint32_t>(i), child.state);
  child.height = parent.height + 1;
  child.type = type;
}

// Calls spawn(child) for children 0 .. children-1 of `parent`, in order,
// generating them a batch at a time into an array first, as the sequential
// traversal pushes all of a node's children before it visits one. A child
// copied right after it is generated (into a task slot, an OpenMP
// firstprivate, a lambda capture) is read with wide loads that span the
// digest's narrow stores still in flight: the store-to-load forwarding
// fails and the copy stalls. Measured on UTS T1 (1 worker, 2026-11-25,
// AMD EPYC VM): 38% of visit()'s samples on that load, the whole run 8%
// slower than with the batch. Every parallel version (heist, OpenMP, TBB)
// uses this loop, so they stay comparable. The batch is left uninitialized
// (every field is written): UtsNode's default initializers cost
// 16 stores a visit, most of them for leaves, which have no children.
template <class Spawn>
void for_each_child(const UtsParams& p, const UtsNode& parent, int children, Spawn&& spawn) {
  constexpr int kBatch = 8;
  union Slot {
    Slot() noexcept {}  // NOLINT: no initialization on purpose
    UtsNode node;
  };
  if (children <= 0) return;
  Slot batch[kBatch];
  const TreeType type = child_type(p, parent);
  for (int first = 0; first < children; first += kBatch) {
    const int n = children - first < kBatch ? children - first : kBatch;
    for (int i = 0; i < n; ++i) make_child_into(parent, first + i, type, batch[i].node);
    for (int i = 0; i < n; ++i) spawn(static_cast<const UtsNode&>(batch[i].node));
  }
}

// Expected number of children b_i of a Geo node at `depth` (UTS shape
// function; depth 0 gives b_0 for every shape).
[[nodiscard]] double geo_expected_children(const UtsParams& p, int depth) noexcept;

// log(1 - p) with p = 1 / (1 + b_i): the denominator of the inverse
// geometric CDF used for Geo nodes at `depth`.
[[nodiscard]] double geo_log1mp(const UtsParams& p, int depth) noexcept;

}  // namespace heist::uts
