#pragma once

#include <cstdint>
#include <string_view>

namespace heist::peers {

// A benchmark computation: problem size and task cutoff in, result out.
using Kernel = std::uint64_t (*)(int n, int cutoff);

struct KernelEntry {
  std::string_view app;
  Kernel kernel;
};

}  // namespace heist::peers
