// Chunk selection (DESIGN layer 5): how many tasks a thief claims from the
// public tasks it found. Pure logic, shared with the simulator.
#pragma once

#include <algorithm>
#include <cstdint>

#include "heist/options.hpp"

namespace heist::policy {

class ChunkPolicy {
 public:
  explicit ChunkPolicy(ChunkSpec spec = {}) noexcept : spec_(spec) {}

  // Tasks to take when `available` (> 0) are public: fixed k (capped), or
  // steal-half (at least one).
  std::uint32_t take(std::uint32_t available) const noexcept {
    if (spec_.kind == ChunkSpec::Kind::half) return std::max<std::uint32_t>(1, available / 2);
    return std::min(spec_.k, available);
  }

  const ChunkSpec& spec() const noexcept { return spec_; }

 private:
  ChunkSpec spec_;
};

}  // namespace heist::policy
