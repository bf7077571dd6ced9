// uts_sha1.hpp - SHA-1 based splittable random number generator of the
// Unbalanced Tree Search (UTS) benchmark.
//
// Follows the UTS benchmark definition (its "BRG SHA-1" rng, rng/brg_sha1.c):
//   * a generator state is a 20-byte SHA-1 digest;
//   * rng_init(seed)      = SHA1(16 zero bytes || seed as 4 bytes big-endian);
//   * rng_spawn(s, i)     = SHA1(s || i as 4 bytes big-endian);
//   * rng_rand(s)         = last 4 bytes of s read big-endian, & 0x7fffffff;
//   * rng_to_prob(r)      = r / 2^31, a uniform value in [0, 1).
// Every function is pure and thread-safe; no state is shared between calls.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace heist::uts {

inline constexpr std::size_t kRngStateBytes = 20;  // one SHA-1 digest

using RngState = std::array<std::uint8_t, kRngStateBytes>;

// State of the root node for the given root seed (UTS "-r").
[[nodiscard]] RngState rng_init(std::int32_t seed) noexcept;

// State of child number `spawn_number` of a node whose state is `parent`.
[[nodiscard]] RngState rng_spawn(const RngState& parent,
                                 std::uint32_t spawn_number) noexcept;

// Same as rng_spawn but writes into `out` (which may alias `parent`).
void rng_spawn_into(const RngState& parent, std::uint32_t spawn_number,
                    RngState& out) noexcept;

// Non-negative 31-bit random value carried by a state.
[[nodiscard]] constexpr std::int32_t rng_rand(const RngState& s) noexcept {
  const std::uint32_t b = (std::uint32_t{s[16]} << 24) |
                          (std::uint32_t{s[17]} << 16) |
                          (std::uint32_t{s[18]} << 8) | std::uint32_t{s[19]};
  return static_cast<std::int32_t>(b & 0x7fffffffU);
}

// Maps a value of rng_rand to [0, 1) exactly as UTS does (r / 2^31).
[[nodiscard]] constexpr double rng_to_prob(std::int32_t r) noexcept {
  return r < 0 ? 0.0 : static_cast<double>(r) / 2147483648.0;
}

// Lower-case hex string of a state (for logs and tests).
[[nodiscard]] std::string rng_to_hex(const RngState& s);

}  // namespace heist::uts
