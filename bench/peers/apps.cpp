#include "apps.hpp"

#include <algorithm>
#include <array>

#include "fib_kernels.hpp"
#include "nqueens_kernels.hpp"

namespace heist::peers {
namespace {

std::uint64_t fib_seq_run(int n, int /*cutoff*/) { return fib_sequential(n); }

std::uint64_t nqueens_seq_run(int n, int /*cutoff*/) {
  return count_sequential(empty_board(static_cast<std::uint32_t>(n)));
}

std::optional<std::uint64_t> fib_ref(int n) { return fib_reference(n); }

std::optional<std::uint64_t> nqueens_ref(int n) { return heist::apps::nqueens::reference_solutions(n); }

constexpr std::array apps{
    AppInfo{"fib", 35, 0, 92, fib_seq_run, fib_ref},
    AppInfo{"nqueens", 13, 1, nqueens_max_n, nqueens_seq_run, nqueens_ref},
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
