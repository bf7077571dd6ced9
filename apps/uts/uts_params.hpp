// uts_params.hpp - parameters of an Unbalanced Tree Search (UTS) tree, the
// UTS command-line flags, and the table of standard named sample trees.
//
// Follows the UTS benchmark definition (uts.c, sample_trees.sh): the tree
// kinds, geometric shape functions, defaults and flag letters are those of
// UTS, so `describe()` output can be pasted into the reference UTS binary.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace heist::uts {

// UTS "-t": how the number of children of a node is drawn.
enum class TreeType : std::uint8_t {
  Bin = 0,       // binomial: m children with probability q, root floor(b_0)
  Geo = 1,       // geometric with expected b_i children, b_i from the shape
  Hybrid = 2,    // Geo while height < shift_depth * gen_mx, then Bin
  Balanced = 3,  // floor(b_0) children while height < gen_mx (UTS extra)
};

// UTS "-a": how the expected branching factor b_i of a Geo node varies.
enum class GeoShape : std::uint8_t {
  Linear = 0,  // b_0 * (1 - d / gen_mx)
  ExpDec = 1,  // b_0 * d^(-log(b_0) / log(gen_mx))
  Cyclic = 2,  // b_0^sin(2 pi d / gen_mx), 0 beyond depth 5 * gen_mx
  Fixed = 3,   // b_0 while d < gen_mx, then 0
};

// UTS MAXNUMCHILDREN: larger draws are truncated to it (except the Bin root
// and Balanced trees), exactly as UTS does.
inline constexpr int kMaxNumChildren = 100;

// Geo nodes shallower than this use a precomputed log(1 - p(depth)) instead
// of evaluating the shape function (pow/sin/log) per node. Measured
// sequential speed with / without the table: T2 (cyclic) 15.5 / 10.0,
// T5 (linear) 14.3 / 12.8, T1 (fixed) 17.6 / 16.6 million nodes/s.
inline constexpr int kGeoTableDepth = 256;

// Values computed from the raw parameters by finalize_uts_params(). They are
// a pure cache: every value equals, bit for bit, what UTS computes per node.
struct UtsDerived {
  bool ready = false;
  double shift_height = 0.0;  // shift_depth * gen_mx (Hybrid switch)
  std::array<double, kGeoTableDepth> geo_log1mp{};  // log(1 - p), by depth
};

struct UtsParams {
  TreeType type = TreeType::Geo;       // -t
  GeoShape shape = GeoShape::Linear;   // -a
  int gen_mx = 6;                      // -d  (depth parameter)
  double b_0 = 4.0;                    // -b  (root branching factor)
  double non_leaf_prob = 15.0 / 64.0;  // -q  (Bin: P(node has children))
  int non_leaf_bf = 4;                 // -m  (Bin: children of a non-leaf)
  std::int32_t root_seed = 0;          // -r
  double shift_depth = 0.5;            // -f  (Hybrid: switch depth fraction)
  UtsDerived derived{};                // filled by finalize_uts_params()
};

// Validates `p` and (re)computes p.derived. Call it after changing any raw
// field; parse_uts_args() and find_named_tree() return finalized params.
// Throws std::invalid_argument naming the offending parameter.
void finalize_uts_params(UtsParams& p);

// Parses UTS flags ("-t 1", "-b 4", ...; each flag takes one value, later
// flags override earlier ones). Starts from the UTS defaults. Throws
// std::invalid_argument on an unknown flag, a missing or malformed value,
// or an out-of-range parameter.
[[nodiscard]] UtsParams parse_uts_args(std::span<const std::string> args);

// Convenience: splits `args` on whitespace and calls parse_uts_args().
[[nodiscard]] UtsParams parse_uts_args(std::string_view args);

// Non-fatal remarks, e.g. q*m >= 1 (a binomial tree that is expected to be
// infinite). Empty when nothing is suspicious.
[[nodiscard]] std::vector<std::string> uts_param_warnings(const UtsParams& p);

// UTS-style option string with the flags that matter for p.type, e.g.
// "-t 1 -a 3 -d 10 -b 4 -r 19". parse_uts_args(describe(p)) reproduces p.
[[nodiscard]] std::string describe(const UtsParams& p);

// Human-readable names, e.g. "Geometric", "Fixed branching factor".
[[nodiscard]] std::string_view tree_type_name(TreeType t) noexcept;
[[nodiscard]] std::string_view geo_shape_name(GeoShape s) noexcept;

// A standard UTS sample tree (sample_trees.sh) with its published counts,
// where published.
struct UtsNamedTree {
  std::string_view name;  // "T1", "T3L", ...
  std::string_view args;  // UTS flags, as published
  UtsParams params;       // parse_uts_args(args)
  std::optional<std::uint64_t> expected_nodes;
  std::optional<std::int64_t> expected_depth;
  std::optional<std::uint64_t> expected_leaves;
};

// Looks up a sample tree by name (case-insensitive): T1 T2 T3 T4 T5 T1L T2L
// T3L T1XL T1XXL T3XXL T2XXL T1WL T2WL T3WL.
[[nodiscard]] std::optional<UtsNamedTree> find_named_tree(std::string_view name);

// All names accepted by find_named_tree(), smallest trees first.
[[nodiscard]] std::span<const std::string_view> named_tree_names() noexcept;

}  // namespace heist::uts
