#include "uts_common.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

namespace heist::peers {

namespace {
std::mutex g_mutex;
std::map<std::string, UtsParams> g_trees;  // resolved once per tree; nodes point to nothing here
}  // namespace

const UtsParams& uts_params(const std::string& tree) {
  std::lock_guard lock(g_mutex);
  if (auto it = g_trees.find(tree); it != g_trees.end()) return it->second;
  if (const auto named = heist::uts::find_named_tree(tree)) return g_trees.emplace(tree, named->params).first->second;
  if (tree.find('-') == std::string::npos)
    throw std::invalid_argument("uts: --tree '" + tree + "' is neither a named tree nor UTS options");
  return g_trees.emplace(tree, heist::uts::parse_uts_args(std::string_view(tree))).first->second;
}

std::optional<std::uint64_t> uts_reference_nodes(const std::string& tree) {
  const auto named = heist::uts::find_named_tree(tree);
  if (!named) return std::nullopt;
  return named->expected_nodes;
}

}  // namespace heist::peers
