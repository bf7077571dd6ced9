// test_uts_tree.cpp - unit tests of the UTS tree generator (apps/uts): the
// SHA-1 rng, child generation, parameter parsing and the published node /
// leaf / depth counts of the standard UTS sample trees T1-T5, which follow
// the UTS benchmark definition.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "uts/uts_params.hpp"
#include "uts/uts_seq.hpp"
#include "uts/uts_sha1.hpp"
#include "uts/uts_tree.hpp"

namespace {

using namespace heist::uts;

UtsParams parse(std::vector<std::string> args) {
  return parse_uts_args(std::span<const std::string>(args));
}

// --- rng --------------------------------------------------------------------

TEST(UtsSha1, RootAndSpawnMatchIndependentSha1) {
  // Expected digests computed with Python's hashlib:
  // sha1(bytes(16) + seed.to_bytes(4, "big")) and sha1(root + i (BE32)).
  EXPECT_EQ(rng_to_hex(rng_init(19)), "c6988ab70cc9559ae4d6cba254e29a845a85f86b");
  EXPECT_EQ(rng_to_hex(rng_init(0)), "6768033e216468247bd031a0a2d9876d79818f8f");
  EXPECT_EQ(rng_to_hex(rng_init(-1)), "3d5a12e598fbe21084820e15173b38e2fe809ef7");
  EXPECT_EQ(rng_to_hex(rng_spawn(rng_init(19), 3)),
            "4e62c7789552ef31fa428ed5d9023d3f3ec368ef");
}

TEST(UtsSha1, RandIsLast31BitsBigEndian) {
  RngState s{};
  s[16] = 0xff; s[17] = 0x01; s[18] = 0x02; s[19] = 0x03;
  EXPECT_EQ(rng_rand(s), 0x7f010203);
  EXPECT_DOUBLE_EQ(rng_to_prob(0), 0.0);
  EXPECT_DOUBLE_EQ(rng_to_prob(0x40000000), 0.5);
  EXPECT_LT(rng_to_prob(0x7fffffff), 1.0);
}

// --- child generation -------------------------------------------------------

TEST(UtsTree, NodeIsSmallAndTriviallyCopyable) {
  static_assert(std::is_trivially_copyable_v<UtsNode>);
  EXPECT_LE(sizeof(UtsNode), 32U);
}

TEST(UtsTree, ChildGenerationIsDeterministic) {
  const UtsParams p = find_named_tree("T1")->params;
  const UtsNode root = make_root(p);
  EXPECT_EQ(root.height, 0);
  EXPECT_EQ(root.state, make_root(p).state);
  const int n = num_children(p, root);
  ASSERT_GT(n, 1);
  EXPECT_EQ(n, num_children(p, root));
  for (int i = 0; i < n; ++i) {
    const UtsNode a = make_child(p, root, i);
    const UtsNode b = make_child(p, root, i);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.state, rng_spawn(root.state, static_cast<std::uint32_t>(i)));
    EXPECT_EQ(a.height, 1);
    EXPECT_EQ(a.type, TreeType::Geo);
    EXPECT_EQ(num_children(p, a), num_children(p, b));
  }
  EXPECT_NE(make_child(p, root, 0).state, make_child(p, root, 1).state);
}

TEST(UtsTree, BinRootHasFloorB0Children) {
  const UtsParams p = find_named_tree("T3")->params;
  EXPECT_EQ(num_children(p, make_root(p)), 2000);  // no MAXNUMCHILDREN cap
  const UtsParams q = parse({"-t", "0", "-b", "7.5", "-r", "3"});
  EXPECT_EQ(num_children(q, make_root(q)), 7);
}

TEST(UtsTree, HybridSwitchesToBinomialBelowShiftDepth) {
  const UtsParams p = find_named_tree("T4")->params;  // 0.5 * 16 = height 8
  UtsNode n = make_root(p);
  n.height = 7;
  EXPECT_EQ(child_type(p, n), TreeType::Geo);
  n.height = 8;
  EXPECT_EQ(child_type(p, n), TreeType::Bin);
  const int k = num_children(p, n);
  EXPECT_TRUE(k == 0 || k == 4) << k;
}

TEST(UtsTree, UnfinalizedParamsGiveSameChildren) {
  const UtsParams fin = find_named_tree("T2")->params;
  UtsParams raw = fin;
  raw.derived = UtsDerived{};  // forces the per-call slow path
  UtsNode n = make_root(fin);
  for (int depth = 0; depth < 40; ++depth) {
    n.height = depth;
    EXPECT_EQ(num_children(raw, n), num_children(fin, n)) << depth;
  }
}

// --- published counts -------------------------------------------------------

// Counts the named tree once and checks it against the published counts,
// both as literals here and as stored in the named-tree table.
void expect_counts(const char* name, const UtsCounts& published) {
  const auto tree = find_named_tree(name);
  ASSERT_TRUE(tree.has_value()) << name;
  EXPECT_EQ(tree->expected_nodes, published.nodes) << name;
  EXPECT_EQ(tree->expected_leaves, published.leaves) << name;
  EXPECT_EQ(tree->expected_depth, published.max_depth) << name;
  const UtsCounts c = uts_count_sequential(tree->params);
  EXPECT_EQ(c.nodes, published.nodes) << name;
  EXPECT_EQ(c.leaves, published.leaves) << name;
  EXPECT_EQ(c.max_depth, published.max_depth) << name;
}

TEST(UtsCounts, T1) { expect_counts("T1", {4'130'071, 3'305'118, 10}); }
TEST(UtsCounts, T2) { expect_counts("T2", {4'117'769, 2'342'762, 81}); }
TEST(UtsCounts, T3) { expect_counts("T3", {4'112'897, 3'599'034, 1572}); }
TEST(UtsCounts, T4) { expect_counts("T4", {4'132'453, 3'108'986, 134}); }
TEST(UtsCounts, T5) { expect_counts("T5", {4'147'582, 2'181'318, 20}); }

TEST(UtsCounts, UtsDefaultTree) {
  // UTS defaults (-t 1 -a 0 -d 6 -b 4 -r 0): 1732 nodes, 1050 leaves.
  const UtsCounts c = uts_count_sequential(parse({}));
  EXPECT_EQ(c.nodes, 1732U);
  EXPECT_EQ(c.leaves, 1050U);
  EXPECT_EQ(c.max_depth, 6);
}
TEST(UtsCounts, SubtreesCombineToWholeTree) {
  const UtsParams p = find_named_tree("T5")->params;
  const UtsNode root = make_root(p);
  UtsCounts sum{1, 0, 0};  // the root itself (it has children)
  for (int i = 0; i < num_children(p, root); ++i) {
    sum += uts_count_sequential(p, make_child(p, root, i));
  }
  EXPECT_EQ(sum, (UtsCounts{4'147'582, 2'181'318, 20}));
}

// --- parameters -------------------------------------------------------------

TEST(UtsParams, DefaultsAreUts) {
  const UtsParams p = parse({});
  EXPECT_EQ(p.type, TreeType::Geo);
  EXPECT_EQ(p.shape, GeoShape::Linear);
  EXPECT_EQ(p.gen_mx, 6);
  EXPECT_EQ(p.b_0, 4.0);
  EXPECT_EQ(p.non_leaf_prob, 15.0 / 64.0);
  EXPECT_EQ(p.non_leaf_bf, 4);
  EXPECT_EQ(p.root_seed, 0);
  EXPECT_EQ(p.shift_depth, 0.5);
  EXPECT_TRUE(p.derived.ready);
}

TEST(UtsParams, LaterFlagsOverrideEarlierOnes) {
  const UtsParams p = parse({"-t", "2", "-a", "0", "-d", "16", "-b", "6",
                             "-r", "1", "-q", "0.234375", "-m", "4", "-r", "1"});
  EXPECT_EQ(p.type, TreeType::Hybrid);
  EXPECT_EQ(p.root_seed, 1);
  EXPECT_EQ(p.non_leaf_prob, 0.234375);
  EXPECT_EQ(parse({"-r", "5", "-r", "9"}).root_seed, 9);
  EXPECT_EQ(parse_uts_args("-t 1 -r 5 -b 3 -r 7").root_seed, 7);
}

TEST(UtsParams, DescribeRoundTrips) {
  EXPECT_EQ(describe(find_named_tree("T1")->params), "-t 1 -a 3 -d 10 -b 4 -r 19");
  EXPECT_EQ(describe(find_named_tree("T3")->params),
            "-t 0 -b 2000 -q 0.124875 -m 8 -r 42");
  EXPECT_EQ(describe(find_named_tree("T4")->params),
            "-t 2 -a 0 -d 16 -b 6 -q 0.234375 -m 4 -f 0.5 -r 1");
  for (const std::string_view name : named_tree_names()) {
    const auto t = find_named_tree(name);
    ASSERT_TRUE(t.has_value()) << name;
    EXPECT_EQ(describe(parse_uts_args(describe(t->params))), describe(t->params));
    EXPECT_EQ(parse_uts_args(describe(t->params)).non_leaf_prob,
              t->params.non_leaf_prob) << name;
  }
}

TEST(UtsParams, NamedTrees) {
  EXPECT_EQ(named_tree_names().size(), 15U);
  EXPECT_FALSE(find_named_tree("T9").has_value());
  const auto t3l = find_named_tree("t3l");  // case-insensitive
  ASSERT_TRUE(t3l.has_value());
  EXPECT_EQ(t3l->name, "T3L");
  EXPECT_EQ(t3l->expected_nodes, 111'345'631U);
  EXPECT_EQ(t3l->expected_depth, 17844);
  const auto t3xxl = find_named_tree("T3XXL");
  ASSERT_TRUE(t3xxl.has_value());
  EXPECT_EQ(t3xxl->expected_nodes, 2'793'220'501U);
  EXPECT_FALSE(t3xxl->expected_leaves.has_value());
  EXPECT_EQ(find_named_tree("T2WL")->params.non_leaf_prob, 0.4999999995);
}

TEST(UtsParams, ErrorsAreInvalidArgument) {
  const std::vector<std::vector<std::string>> bad = {
      {"-x", "1"},          // unknown flag
      {"-t"},               // missing value
      {"-t", "one"},        // not a number
      {"-b", "4x"},         // trailing garbage
      {"-d", "1.5"},        // integer expected
      {"-t", "7"},          // no such tree type
      {"-a", "-1"},         // no such shape
      {"-q", "1.5"},        // probability out of range
      {"-b", "-2"},         // negative branching factor
      {"-m", "-1"},         // negative m
      {"-d", "0"},          // GEO needs depth >= 1
      {"-r", "99999999999"},  // seed out of int32 range
      {"t", "1"},           // not a flag
  };
  for (const auto& args : bad) {
    EXPECT_THROW((void)parse(args), std::invalid_argument) << args[0];
  }
  try {
    (void)parse({"-z", "3"});
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("-z"), std::string::npos) << e.what();
  }
}

TEST(UtsParams, SupercriticalBinomialOnlyWarns) {
  UtsParams p;
  EXPECT_NO_THROW(p = parse({"-t", "0", "-q", "0.5", "-m", "2"}));
  EXPECT_FALSE(uts_param_warnings(p).empty());
  EXPECT_TRUE(uts_param_warnings(find_named_tree("T3")->params).empty());
}

}  // namespace
