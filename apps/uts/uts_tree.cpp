// uts_tree.cpp - number of children and child generation of UTS tree nodes.
// Follows the UTS benchmark definition (uts.c); see uts_tree.hpp.
//
// Bit-exactness: the published tree sizes depend on the exact doubles UTS
// computes (log, pow, sin, floor of IEEE doubles), so the expressions below
// keep UTS's operation order, and the library is built with
// -ffp-contract=off. Fast-math would change the trees, so it is rejected.
#include "uts/uts_tree.hpp"

#include <cmath>

#ifdef __FAST_MATH__
#error "UTS trees must be generated with IEEE math; do not build with -ffast-math"
#endif

namespace heist::uts {
namespace {

// Clamps a floor()ed double draw to an int without undefined behaviour.
// Non-positive and NaN draws mean "no children" (UTS treats a negative
// count as a leaf); huge draws saturate well above kMaxNumChildren.
int to_count(double x) noexcept {
  constexpr double kBig = 1e9;
  if (!(x > 0.0)) return 0;
  return x >= kBig ? static_cast<int>(kBig) : static_cast<int>(x);
}

// uts_numChildren_bin: m children with probability q (root excluded).
int bin_children(const UtsParams& p, const UtsNode& node) noexcept {
  const double d = rng_to_prob(rng_rand(node.state));
  return d < p.non_leaf_prob ? p.non_leaf_bf : 0;
}

// uts_numChildren_geo: inverse geometric CDF with mean b_i(depth).
int geo_children(const UtsParams& p, const UtsNode& node) noexcept {
  const int depth = node.height;
  const double log1mp =
      p.derived.ready && depth < kGeoTableDepth
          ? p.derived.geo_log1mp[static_cast<std::size_t>(depth)]
          : geo_log1mp(p, depth);
  const std::int32_t h = rng_rand(node.state);
  return to_count(std::floor(
      std::log(1.0 - static_cast<double>(h) / 2147483648.0) / log1mp));
}

double shift_height(const UtsParams& p) noexcept {
  return p.derived.ready ? p.derived.shift_height
                         : p.shift_depth * static_cast<double>(p.gen_mx);
}

}  // namespace

double geo_expected_children(const UtsParams& p, int depth) noexcept {
  if (depth <= 0) return p.b_0;
  const double d = static_cast<double>(depth);
  const double mx = static_cast<double>(p.gen_mx);
  switch (p.shape) {
    case GeoShape::ExpDec:  // expected size polynomial in depth
      return p.b_0 * std::pow(d, -std::log(p.b_0) / std::log(mx));
    case GeoShape::Cyclic:  // cyclic tree size
      if (depth > 5 * p.gen_mx) return 0.0;
      // UTS's literal for pi, same operation order as UTS.
      return std::pow(p.b_0, std::sin(2.0 * 3.141592653589793 * d / mx));
    case GeoShape::Fixed:  // identical distribution up to max depth
      return depth < p.gen_mx ? p.b_0 : 0.0;
    case GeoShape::Linear:  // linear decrease in b_i
      break;
  }
  return p.b_0 * (1.0 - d / mx);
}

double geo_log1mp(const UtsParams& p, int depth) noexcept {
  const double prob = 1.0 / (1.0 + geo_expected_children(p, depth));
  return std::log(1.0 - prob);
}

UtsNode make_root(const UtsParams& p) noexcept {
  UtsNode root;
  root.state = rng_init(p.root_seed);
  root.height = 0;
  root.type = p.type;
  return root;
}

int num_children(const UtsParams& p, const UtsNode& node) noexcept {
  int n = 0;
  switch (p.type) {
    case TreeType::Bin:
      n = node.height == 0 ? static_cast<int>(std::floor(p.b_0))
                           : bin_children(p, node);
      break;
    case TreeType::Geo:
      n = geo_children(p, node);
      break;
    case TreeType::Hybrid:
      n = static_cast<double>(node.height) < shift_height(p)
              ? geo_children(p, node)
              : bin_children(p, node);
      break;
    case TreeType::Balanced:
      n = node.height < p.gen_mx ? static_cast<int>(p.b_0) : 0;
      break;
  }
  // Only a Bin root may have more than kMaxNumChildren (up to ceil(b_0)).
  if (node.height == 0 && node.type == TreeType::Bin) {
    const int root_cap = static_cast<int>(std::ceil(p.b_0));
    if (n > root_cap) n = root_cap;
  } else if (p.type != TreeType::Balanced && n > kMaxNumChildren) {
    n = kMaxNumChildren;
  }
  return n;
}

TreeType child_type(const UtsParams& p, const UtsNode& parent) noexcept {
  if (p.type != TreeType::Hybrid) return p.type;
  return static_cast<double>(parent.height) < shift_height(p) ? TreeType::Geo
                                                              : TreeType::Bin;
}

void make_child_into(const UtsParams& p, const UtsNode& parent, int i, UtsNode& child) noexcept {
  make_child_into(parent, i, child_type(p, parent), child);
}

UtsNode make_child(const UtsParams& p, const UtsNode& parent, int i) noexcept {
  UtsNode child;
  make_child_into(p, parent, i, child);
  return child;
}

}  // namespace heist::uts
