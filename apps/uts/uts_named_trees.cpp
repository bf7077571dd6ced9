// uts_named_trees.cpp - the standard UTS sample trees (T1 ... T3WL) with the
// node, depth and leaf counts published with the UTS benchmark
// (sample_trees.sh). Follows the UTS benchmark definition.
#include <algorithm>
#include <cctype>

#include "uts/uts_params.hpp"

namespace heist::uts {
namespace {

struct Entry {
  std::string_view name;
  std::string_view args;
  std::optional<std::uint64_t> nodes;
  std::optional<std::int64_t> depth;
  std::optional<std::uint64_t> leaves;
};

constexpr auto kNone = std::nullopt;

// clang-format off
constexpr std::array<Entry, 15> kTrees{{
  // Small (~4 million nodes)
  {"T1",    "-t 1 -a 3 -d 10 -b 4 -r 19",                      4'130'071,  10,   3'305'118},
  {"T5",    "-t 1 -a 0 -d 20 -b 4 -r 34",                      4'147'582,  20,   2'181'318},
  {"T2",    "-t 1 -a 2 -d 16 -b 6 -r 502",                     4'117'769,  81,   2'342'762},
  {"T3",    "-t 0 -b 2000 -q 0.124875 -m 8 -r 42",             4'112'897,  1572, 3'599'034},
  {"T4",    "-t 2 -a 0 -d 16 -b 6 -r 1 -q 0.234375 -m 4 -r 1", 4'132'453,  134,  3'108'986},
  // Large (~100 million nodes)
  {"T1L",   "-t 1 -a 3 -d 13 -b 4 -r 29",                      102'181'082, 13,    81'746'377},
  {"T2L",   "-t 1 -a 2 -d 23 -b 7 -r 220",                     96'793'510,  67,    53'791'152},
  {"T3L",   "-t 0 -b 2000 -q 0.200014 -m 5 -r 7",              111'345'631, 17844, 89'076'904},
  // Extra large (~1.6 billion nodes)
  {"T1XL",  "-t 1 -a 3 -d 15 -b 4 -r 29",                      1'635'119'272, 15, 1'308'100'063},
  // Extra extra large (~3-10 billion nodes)
  {"T1XXL", "-t 1 -a 3 -d 15 -b 4 -r 19",                      4'230'646'601, 15,     kNone},
  {"T3XXL", "-t 0 -b 2000 -q 0.499995 -m 2 -r 316",            2'793'220'501, kNone,  kNone},
  {"T2XXL", "-t 0 -b 2000 -q 0.499999995 -m 2 -r 0",           10'612'052'303, 216370, 5'306'027'151},
  // Wicked large (~150-300 billion nodes)
  {"T1WL",  "-t 1 -a 3 -d 18 -b 4 -r 19",                      270'751'679'750, 18,      216'601'257'283},
  {"T2WL",  "-t 0 -b 2000 -q 0.4999999995 -m 2 -r 559",        295'393'891'003, 1021239, 147'696'946'501},
  {"T3WL",  "-t 0 -b 2000 -q 0.4999995 -m 2 -r 559",           157'063'495'159, 758577,  78'531'748'579},
}};
// clang-format on

constexpr std::array<std::string_view, kTrees.size()> kNames = [] {
  std::array<std::string_view, kTrees.size()> names{};
  for (std::size_t i = 0; i < kTrees.size(); ++i) names[i] = kTrees[i].name;
  return names;
}();

bool iequals(std::string_view a, std::string_view b) {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::toupper(static_cast<unsigned char>(x)) ==
           std::toupper(static_cast<unsigned char>(y));
  });
}

}  // namespace

std::optional<UtsNamedTree> find_named_tree(std::string_view name) {
  for (const Entry& e : kTrees) {
    if (iequals(e.name, name)) {
      return UtsNamedTree{e.name,  e.args,  parse_uts_args(e.args),
                          e.nodes, e.depth, e.leaves};
    }
  }
  return std::nullopt;
}

std::span<const std::string_view> named_tree_names() noexcept { return kNames; }

}  // namespace heist::uts
