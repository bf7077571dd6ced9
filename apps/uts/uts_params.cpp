// uts_params.cpp - validation, UTS flag parsing and description of UTS tree
// parameters. Follows the UTS benchmark definition (uts.c: uts_parseParams,
// uts_paramsToStr); see uts_params.hpp.
#include "uts/uts_params.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <system_error>
#include <type_traits>

#include "uts/uts_tree.hpp"

namespace heist::uts {
namespace {

[[noreturn]] void fail(const std::string& msg) {
  throw std::invalid_argument("UTS parameters: " + msg);
}

template <typename T>
T parse_number(std::string_view flag, std::string_view text) {
  T value{};
  const char* const end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec == std::errc::result_out_of_range) {
    fail("value '" + std::string(text) + "' for " + std::string(flag) +
         " is out of range");
  }
  if (text.empty() || ec != std::errc{} || ptr != end) {
    fail("bad value '" + std::string(text) + "' for " + std::string(flag) +
         (std::is_integral_v<T> ? " (expected an integer)"
                                : " (expected a number)"));
  }
  return value;
}

std::string format_double(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest
  return ec == std::errc{} ? std::string(buf, ptr) : std::to_string(v);
}

bool uses_gen_mx(TreeType t) { return t != TreeType::Bin; }

void check_type(int type) {
  if (type < 0 || type > 3) {
    fail("-t " + std::to_string(type) +
         " is not a tree type (0=BIN, 1=GEO, 2=HYBRID, 3=BALANCED)");
  }
}

void check_shape(int shape) {
  if (shape < 0 || shape > 3) {
    fail("-a " + std::to_string(shape) +
         " is not a shape (0=LINEAR, 1=EXPDEC, 2=CYCLIC, 3=FIXED)");
  }
}

}  // namespace

void finalize_uts_params(UtsParams& p) {
  p.derived = UtsDerived{};
  check_type(static_cast<int>(p.type));
  check_shape(static_cast<int>(p.shape));
  if (uses_gen_mx(p.type) && p.gen_mx < 1) {
    fail("-d " + std::to_string(p.gen_mx) + ": depth must be >= 1");
  }
  constexpr double kMaxB0 = std::numeric_limits<std::int32_t>::max();
  if (!std::isfinite(p.b_0) || p.b_0 < 0.0 || p.b_0 > kMaxB0) {
    fail("-b " + format_double(p.b_0) + ": branching factor must be in [0, 2^31)");
  }
  if (!std::isfinite(p.non_leaf_prob) || p.non_leaf_prob < 0.0 ||
      p.non_leaf_prob > 1.0) {
    fail("-q " + format_double(p.non_leaf_prob) + ": probability must be in [0, 1]");
  }
  if (p.non_leaf_bf < 0) {
    fail("-m " + std::to_string(p.non_leaf_bf) + ": must be >= 0");
  }
  if (!std::isfinite(p.shift_depth) || p.shift_depth < 0.0) {
    fail("-f " + format_double(p.shift_depth) + ": shift depth must be >= 0");
  }

  UtsDerived& d = p.derived;
  d.shift_height = p.shift_depth * static_cast<double>(p.gen_mx);
  if (p.type == TreeType::Geo || p.type == TreeType::Hybrid) {
    for (int depth = 0; depth < kGeoTableDepth; ++depth) {
      d.geo_log1mp[static_cast<std::size_t>(depth)] = geo_log1mp(p, depth);
    }
  }
  d.ready = true;
}

UtsParams parse_uts_args(std::span<const std::string> args) {
  UtsParams p;
  int type = static_cast<int>(p.type);
  int shape = static_cast<int>(p.shape);
  for (std::size_t i = 0; i < args.size(); i += 2) {
    const std::string& flag = args[i];
    if (flag.size() != 2 || flag[0] != '-') {
      fail("unexpected argument '" + flag + "' (expected a flag like -t)");
    }
    if (std::string_view("tadbqmrf").find(flag[1]) == std::string_view::npos) {
      fail("unknown flag '" + flag +
           "' (known: -t -a -d -b -q -m -r -f)");
    }
    if (i + 1 >= args.size()) fail("flag " + flag + " needs a value");
    const std::string_view value = args[i + 1];
    switch (flag[1]) {
      case 't': type = parse_number<int>(flag, value); break;
      case 'a': shape = parse_number<int>(flag, value); break;
      case 'd': p.gen_mx = parse_number<int>(flag, value); break;
      case 'b': p.b_0 = parse_number<double>(flag, value); break;
      case 'q': p.non_leaf_prob = parse_number<double>(flag, value); break;
      case 'm': p.non_leaf_bf = parse_number<int>(flag, value); break;
      case 'r': p.root_seed = parse_number<std::int32_t>(flag, value); break;
      case 'f': p.shift_depth = parse_number<double>(flag, value); break;
      default: break;  // unreachable: checked above
    }
  }
  check_type(type);
  check_shape(shape);
  p.type = static_cast<TreeType>(type);
  p.shape = static_cast<GeoShape>(shape);
  finalize_uts_params(p);
  return p;
}

UtsParams parse_uts_args(std::string_view args) {
  std::vector<std::string> tokens;
  constexpr std::string_view kSpace = " \t\r\n";
  std::size_t pos = args.find_first_not_of(kSpace);
  while (pos != std::string_view::npos) {
    const std::size_t end = args.find_first_of(kSpace, pos);
    tokens.emplace_back(args.substr(pos, end - pos));
    pos = args.find_first_not_of(kSpace, end);
  }
  return parse_uts_args(std::span<const std::string>(tokens));
}

std::vector<std::string> uts_param_warnings(const UtsParams& p) {
  std::vector<std::string> out;
  if (p.type == TreeType::Bin || p.type == TreeType::Hybrid) {
    const double qm = p.non_leaf_prob * p.non_leaf_bf;
    if (qm >= 1.0) {
      out.push_back("q*m = " + format_double(qm) +
                    " >= 1: the binomial tree is expected to be infinite");
    }
    if (p.non_leaf_bf > kMaxNumChildren) {
      out.push_back("m = " + std::to_string(p.non_leaf_bf) +
                    " > " + std::to_string(kMaxNumChildren) +
                    ": UTS truncates non-root nodes to that many children");
    }
  }
  return out;
}

std::string describe(const UtsParams& p) {
  std::string s = "-t " + std::to_string(static_cast<int>(p.type));
  const bool geo = p.type == TreeType::Geo || p.type == TreeType::Hybrid;
  const bool bin = p.type == TreeType::Bin || p.type == TreeType::Hybrid;
  if (geo) s += " -a " + std::to_string(static_cast<int>(p.shape));
  if (p.type != TreeType::Bin) s += " -d " + std::to_string(p.gen_mx);
  s += " -b " + format_double(p.b_0);
  if (bin) {
    s += " -q " + format_double(p.non_leaf_prob);
    s += " -m " + std::to_string(p.non_leaf_bf);
  }
  if (p.type == TreeType::Hybrid) s += " -f " + format_double(p.shift_depth);
  s += " -r " + std::to_string(p.root_seed);
  return s;
}

std::string_view tree_type_name(TreeType t) noexcept {
  switch (t) {
    case TreeType::Bin: return "Binomial";
    case TreeType::Geo: return "Geometric";
    case TreeType::Hybrid: return "Hybrid";
    case TreeType::Balanced: return "Balanced";
  }
  return "Unknown";
}

std::string_view geo_shape_name(GeoShape s) noexcept {
  switch (s) {
    case GeoShape::Linear: return "Linear decrease";
    case GeoShape::ExpDec: return "Exponential decrease";
    case GeoShape::Cyclic: return "Cyclic";
    case GeoShape::Fixed: return "Fixed branching factor";
  }
  return "Unknown";
}

}  // namespace heist::uts
