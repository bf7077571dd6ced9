#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "kernel.hpp"

namespace heist::peers {

// What a benchmark is, independent of the parallel model running it.
struct AppInfo {
  std::string_view name;
  int default_n;  // fib, nqueens; 0 for apps without --n
  int min_n;
  int max_n;
  Kernel sequential;
  // Known correct result, if one is available without running the kernel.
  std::optional<std::uint64_t> (*reference)(const Problem& problem);
  // Throws std::invalid_argument when the problem is invalid; builds what
  // every run reads (inputs, caches) so that no timed run pays for it.
  void (*prepare)(const Problem& problem);
  // The `params` object of the JSON report.
  nlohmann::ordered_json (*params)(const Problem& problem);
};

std::span<const AppInfo> all_apps();

const AppInfo* find_app(std::string_view name);

// Correct result for the problem: the reference value, or else the sequential kernel's result.
std::uint64_t expected_result(const AppInfo& app, const Problem& problem);

}  // namespace heist::peers
