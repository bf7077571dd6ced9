#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "kernel.hpp"

namespace heist::peers {

// What a benchmark is, independent of the parallel model running it.
struct AppInfo {
  std::string_view name;
  int default_n;
  int min_n;
  int max_n;
  Kernel sequential;
  // Known correct result for size n, if one is available without running the kernel.
  std::optional<std::uint64_t> (*reference)(int n);
};

std::span<const AppInfo> all_apps();

const AppInfo* find_app(std::string_view name);

// Correct result for size n: the reference value, or else the sequential kernel's result.
std::uint64_t expected_result(const AppInfo& app, int n);

}  // namespace heist::peers
