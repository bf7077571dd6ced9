#include "apps.hpp"

#include <algorithm>
#include <array>

#include "fib_kernels.hpp"
#include "nqueens_kernels.hpp"

namespace heist::peers {
namespace {

std::uint64_t fib_sequential(int n, int /*cutoff*/) { return fib_seq(n); }

std::uint64_t nqueens_sequential(int n, int /*cutoff*/) { return nqueens_seq(n); }

std::optional<std::uint64_t> fib_reference(int n) { return fib_iterative(n); }

constexpr std::array<std::uint64_t, 16> nqueens_counts{
    1, 1, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596, 2279184};

std::optional<std::uint64_t> nqueens_reference(int n) {
  if (n < 0 || static_cast<std::size_t>(n) >= nqueens_counts.size()) {
    return std::nullopt;
  }
  return nqueens_counts[static_cast<std::size_t>(n)];
}

constexpr std::array apps{
    AppInfo{"fib", 35, 0, 92, fib_sequential, fib_reference},
    AppInfo{"nqueens", 13, 1, nqueens_max_n, nqueens_sequential, nqueens_reference},
};

}  // namespace

std::span<const AppInfo> all_apps() { return apps; }

const AppInfo* find_app(std::string_view name) {
  const auto* it = std::ranges::find(apps, name, &AppInfo::name);
  return it == apps.end() ? nullptr : it;
}

std::uint64_t expected_result(const AppInfo& app, int n) {
  if (const auto reference = app.reference(n)) {
    return *reference;
  }
  return app.sequential(n, 0);
}

}  // namespace heist::peers
