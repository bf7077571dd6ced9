#include "apps.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "fib_kernels.hpp"
#include "nqueens_kernels.hpp"
#include "sparselu_common.hpp"
#include "uts_common.hpp"

namespace heist::peers {
namespace {

// ---- fib, nqueens: --n and --cutoff
std::uint64_t fib_seq_run(const Problem& p) { return fib_sequential(p.n); }
std::optional<std::uint64_t> fib_ref(const Problem& p) { return fib_reference(p.n); }

std::uint64_t nqueens_seq_run(const Problem& p) { return count_sequential(empty_board(static_cast<std::uint32_t>(p.n))); }
std::optional<std::uint64_t> nqueens_ref(const Problem& p) { return heist::apps::nqueens::reference_solutions(p.n); }

void nothing_to_prepare(const Problem&) {}
nlohmann::ordered_json n_cutoff_params(const Problem& p) { return {{"n", p.n}, {"cutoff", p.cutoff}}; }

// ---- uts: --tree and --cutoff (a height)
std::uint64_t uts_seq_run(const Problem& p) { return heist::uts::uts_count_sequential(uts_params(p.tree)).nodes; }
std::optional<std::uint64_t> uts_ref(const Problem& p) { return uts_reference_nodes(p.tree); }
void uts_prepare(const Problem& p) { (void)uts_params(p.tree); }
nlohmann::ordered_json uts_json(const Problem& p) {
  return {{"tree", p.tree}, {"uts", heist::uts::describe(uts_params(p.tree))}, {"cutoff", p.cutoff}};
}

// ---- sparselu: --blocks and --block-size; the result is the fingerprint
std::uint64_t sparselu_seq_run(const Problem& p) {
  sparselu::Matrix m = sparselu::fresh_input(p.blocks, p.block_size);
  sparselu::sparselu_sequential(m);
  return sparselu::fingerprint(m);
}
std::optional<std::uint64_t> no_ref(const Problem&) { return std::nullopt; }
void sparselu_prepare(const Problem& p) {
  if (p.blocks < 1 || p.blocks > 1000) throw std::invalid_argument("sparselu: --blocks must be in [1, 1000]");
  if (p.block_size < 1 || p.block_size > 2048) throw std::invalid_argument("sparselu: --block-size must be in [1, 2048]");
  (void)sparselu::fresh_input(p.blocks, p.block_size);
}
nlohmann::ordered_json sparselu_json(const Problem& p) { return {{"blocks", p.blocks}, {"block_size", p.block_size}}; }

const std::array apps{
    AppInfo{"fib", 35, 0, 92, fib_seq_run, fib_ref, nothing_to_prepare, n_cutoff_params},
    AppInfo{"nqueens", 13, 1, nqueens_max_n, nqueens_seq_run, nqueens_ref, nothing_to_prepare, n_cutoff_params},
    AppInfo{"uts", 0, 0, 0, uts_seq_run, uts_ref, uts_prepare, uts_json},
    AppInfo{"sparselu", 0, 0, 0, sparselu_seq_run, no_ref, sparselu_prepare, sparselu_json},
};

}  // namespace

std::span<const AppInfo> all_apps() { return apps; }

const AppInfo* find_app(std::string_view name) {
  const auto* it = std::ranges::find(apps, name, &AppInfo::name);
  return it == apps.end() ? nullptr : it;
}

std::uint64_t expected_result(const AppInfo& app, const Problem& problem) {
  if (const auto reference = app.reference(problem)) return *reference;
  return app.sequential(problem);
}

}  // namespace heist::peers
