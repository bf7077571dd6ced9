// Chunk selection (the policy layer of docs/architecture.md): how many tasks a thief claims from the
// public tasks it found, by how far the victim is (HotSLAW §3.2.2). Pure
// logic, shared with the simulator.
//   fixed  k at every level
//   half   steal-half at every level (at least one task)
//   hcs    Hierarchical Chunk Selection: k at every level inside a node
//          (worker .. node), steal-half across nodes (machine); each level's
//          value can be set (ChunkSpec::levels: a count or ChunkSpec::kHalf)
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "heist/options.hpp"
#include "policy/topology.hpp"

namespace heist::policy {

using heist::ChunkSpec;

class ChunkPolicy {
 public:
  explicit ChunkPolicy(ChunkSpec spec = {}) noexcept : spec_(spec) {
    static_assert(kLevels == kHierarchyLevels);
    for (int l = 0; l < kLevels; ++l) per_level_[static_cast<std::size_t>(l)] = resolve(spec, level_at(l));
  }

  // Tasks to take when `available` (> 0) are public at a victim at `level`
  // from the thief: at most `available`, at least one. `sharers` thieves
  // asking the victim at once (success-only requests answered in one poll)
  // share steal-half's half: each takes available / (2 sharers), so the
  // victim keeps about 60 % whatever their number (answered one after the
  // other with a half each, 63 requests left it 1 task in 2^63); a fixed
  // count stays per thief.
  std::uint32_t take(std::uint32_t available, Level level = Level::worker, std::uint32_t sharers = 1) const noexcept {
    if (available == 0) return 0;
    const std::uint32_t per = per_level_[static_cast<std::size_t>(index(level))];
    if (per == ChunkSpec::kHalf)
      return std::max<std::uint32_t>(1, static_cast<std::uint32_t>(available / (2 * std::uint64_t{std::max(sharers, 1u)})));
    return std::min(per, available);
  }

  // The value in force at `level`: a count, or ChunkSpec::kHalf.
  std::uint32_t at(Level level) const noexcept { return per_level_[static_cast<std::size_t>(index(level))]; }
  const ChunkSpec& spec() const noexcept { return spec_; }

  static std::uint32_t resolve(const ChunkSpec& spec, Level level) noexcept {
    switch (spec.kind) {
      case ChunkSpec::Kind::fixed: return spec.k;
      case ChunkSpec::Kind::half: return ChunkSpec::kHalf;
      case ChunkSpec::Kind::hcs: break;
    }
    const std::uint32_t set = spec.levels[static_cast<std::size_t>(index(level))];
    if (set != 0) return set;
    return level == Level::machine ? ChunkSpec::kHalf : spec.k;
  }

 private:
  ChunkSpec spec_;
  std::array<std::uint32_t, kLevels> per_level_{};
};

}  // namespace heist::policy
