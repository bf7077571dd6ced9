// The locality options' text forms (src/api/locality_options.cpp) and their
// rules: --chunk with hcs and per-level values, --hvs-attempts, --victim,
// --balance, and the combinations Options::validate() rejects.
#include <gtest/gtest.h>

#include <string>

#include "heist/option_table.hpp"
#include "heist/options.hpp"
#include "policy/chunk_policy.hpp"

namespace {

using heist::ChunkSpec;
using heist::OptionError;
using heist::parse_chunk;
using heist::policy::ChunkPolicy;
using heist::policy::Level;

void set(heist::Options& o, const std::string& flag, const std::string& value) {
  for (const heist::OptionSpec& spec : heist::option_table())
    if (flag == spec.flag) return spec.set(o, value);
  FAIL() << "no option " << flag;
}

TEST(ChunkOption, FixedHalfAndHcs) {
  EXPECT_EQ(parse_chunk("3").kind, ChunkSpec::Kind::fixed);
  EXPECT_EQ(parse_chunk("3").k, 3u);
  EXPECT_EQ(parse_chunk("half").kind, ChunkSpec::Kind::half);
  const ChunkSpec hcs = parse_chunk("hcs");
  EXPECT_EQ(hcs.kind, ChunkSpec::Kind::hcs);
  EXPECT_EQ(hcs.k, 1u);
  EXPECT_EQ(heist::to_string(hcs), "hcs:1");
  const ChunkSpec four = parse_chunk("hcs:4");
  EXPECT_EQ(four.k, 4u);
  EXPECT_EQ(ChunkPolicy(four).take(100, Level::node), 4u);
  EXPECT_EQ(ChunkPolicy(four).take(100, Level::machine), 50u);
}

TEST(ChunkOption, PerLevelValuesRoundTrip) {
  const ChunkSpec c = parse_chunk("hcs:2,process=4,node=half,machine=16");
  EXPECT_EQ(c.k, 2u);
  const ChunkPolicy p(c);
  EXPECT_EQ(p.take(100, Level::cache), 2u);
  EXPECT_EQ(p.take(100, Level::process), 4u);
  EXPECT_EQ(p.take(100, Level::node), 50u);
  EXPECT_EQ(p.take(100, Level::machine), 16u);
  EXPECT_EQ(heist::to_string(c), "hcs:2,process=4,node=half,machine=16");
  EXPECT_EQ(parse_chunk(heist::to_string(c)), c);
  const ChunkSpec levels_only = parse_chunk("hcs:socket=3");
  EXPECT_EQ(levels_only.k, 1u);
  EXPECT_EQ(ChunkPolicy(levels_only).take(100, Level::socket), 3u);
}

TEST(ChunkOption, TheDefaultIsOneInsideAProcessHalfBetween) {
  const heist::Options o;
  EXPECT_EQ(heist::to_string(o.chunk), "hcs:1,node=half");
  const ChunkPolicy p(o.chunk);
  EXPECT_EQ(p.take(10, Level::process), 1u);
  EXPECT_EQ(p.take(10, Level::node), 5u);
  EXPECT_EQ(p.take(10, Level::machine), 5u);
}

TEST(ChunkOption, RejectsMalformedText) {
  for (const char* bad : {"0", "-1", "", "hcsx", "hcs:", "hcs:0", "hcs:2,worker=3", "hcs:2,node=0", "hcs:2,node",
                          "hcs:2,rack=3", "hcs:2,node=lots", "quarter"})
    EXPECT_THROW(parse_chunk(bad), OptionError) << bad;
}

TEST(VictimOptions, KindsCountsAndBalance) {
  heist::Options o;
  EXPECT_EQ(o.victim.kind, heist::VictimSpec::Kind::hvs);
  set(o, "--victim", "success-only");
  EXPECT_EQ(o.victim.kind, heist::VictimSpec::Kind::success_only);
  set(o, "--victim", "random");
  EXPECT_EQ(o.victim.kind, heist::VictimSpec::Kind::random);
  EXPECT_THROW(set(o, "--victim", "lifeline"), OptionError);
  set(o, "--hvs-attempts", "process=4,machine=24");
  EXPECT_EQ(o.victim.hvs.attempts[4], 4u);
  EXPECT_EQ(o.victim.hvs.attempts[6], 24u);
  EXPECT_EQ(heist::to_string(o.victim.hvs), "process=4,machine=24");
  EXPECT_EQ(heist::parse_hvs_counts("default"), heist::HvsCounts{});
  EXPECT_THROW(heist::parse_hvs_counts("machine=0"), OptionError);
  EXPECT_THROW(heist::parse_hvs_counts("worker=2"), OptionError);
  EXPECT_THROW(heist::parse_hvs_counts(""), OptionError);
  set(o, "--balance", "push");
  set(o, "--remote-steal", "sequential");
  set(o, "--push-min-ratio", "0.25");
  EXPECT_DOUBLE_EQ(o.push.min_ratio, 0.25);
  EXPECT_THROW(set(o, "--push-min-ratio", "1.5"), OptionError);
  EXPECT_THROW(set(o, "--push-share", "0"), OptionError);
  EXPECT_THROW(set(o, "--balance", "pull"), OptionError);
  EXPECT_THROW(set(o, "--remote-steal", "some"), OptionError);
}

TEST(VictimOptions, SuccessOnlyDoesNotMixWithPush) {
  heist::Options o;
  o.victim.kind = heist::VictimSpec::Kind::success_only;
  EXPECT_NO_THROW(o.validate());
  o.balance = heist::BalanceMode::push;
  EXPECT_THROW(o.validate(), OptionError);
  o.victim.kind = heist::VictimSpec::Kind::hvs;
  EXPECT_NO_THROW(o.validate());
}

TEST(VictimOptions, EveryValueSurvivesTheTable) {
  heist::Options o;
  set(o, "--chunk", "hcs:3,machine=8");
  set(o, "--hierarchy", "cache=2,socket=4");
  set(o, "--ranks-per-node", "2");
  set(o, "--inter-node-delay-us", "20");
  set(o, "--push-share", "0.75");
  EXPECT_NO_THROW(o.validate());  // re-parses every value from its text
  EXPECT_EQ(o.ranks_per_node, 2);
  EXPECT_EQ(o.inter_node_delay_us, 20);
  EXPECT_THROW(set(o, "--ranks-per-node", "-1"), OptionError);
}

}  // namespace
