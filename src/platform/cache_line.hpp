// Cache-line size and padding, so that state written by different threads
// never shares a line (false sharing turns every owner push into a miss).
#pragma once

#include <cstddef>

namespace heist::platform {

// 64 bytes on every x86-64 and most AArch64 parts heist targets. Not
// std::hardware_destructive_interference_size: its value may change between
// compiler versions and it is part of our layout.
inline constexpr std::size_t kCacheLine = 64;

}  // namespace heist::platform
