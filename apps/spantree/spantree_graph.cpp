// spantree: the random graph (CSR, deterministic from the seed) and the
// spanning-tree checker. No runtime here.
#include <algorithm>
#include <numeric>

#include "spantree/spantree.hpp"

namespace heist::apps::spantree {

namespace {

// splitmix64: a small, well-mixed generator; the graph depends only on it.
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, bound) for bound < 2^32 (multiply-shift).
  std::uint32_t below(std::uint32_t bound) { return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32); }
};

}  // namespace

Graph make_graph(std::uint32_t vertices, std::uint32_t degree, std::uint64_t seed) {
  Graph g;
  g.vertices = vertices;
  // The random path: consecutive vertices of a shuffled order are joined.
  std::vector<std::uint32_t> order(vertices);
  std::iota(order.begin(), order.end(), 0u);
  SplitMix64 shuffle{seed ^ 0x5A5A5A5A5A5A5A5Aull};
  for (std::uint32_t i = vertices; i > 1; --i) std::swap(order[i - 1], order[shuffle.below(i)]);

  // Every undirected edge, in a fixed order; called twice (count, then fill)
  // so the edge list is never stored.
  auto for_each_edge = [&](auto&& edge) {
    SplitMix64 rng{seed};
    for (std::uint32_t v = 0; v < vertices && vertices > 1; ++v) {
      for (std::uint32_t k = 0; k < degree; ++k) {
        std::uint32_t u = rng.below(vertices);
        while (u == v) u = rng.below(vertices);
        edge(v, u);
      }
    }
    for (std::uint32_t i = 0; i + 1 < vertices; ++i) edge(order[i], order[i + 1]);
  };

  g.offsets.assign(std::size_t{vertices} + 1, 0);
  for_each_edge([&](std::uint32_t a, std::uint32_t b) {
    ++g.offsets[a + 1];
    ++g.offsets[b + 1];
  });
  std::partial_sum(g.offsets.begin(), g.offsets.end(), g.offsets.begin());
  g.targets.resize(g.offsets.back());
  std::vector<std::uint64_t> cursor(g.offsets.begin(), g.offsets.end() - 1);
  for_each_edge([&](std::uint32_t a, std::uint32_t b) {
    g.targets[cursor[a]++] = b;
    g.targets[cursor[b]++] = a;
  });
  return g;
}

TreeCheck check_spanning_tree(const Graph& graph, std::uint32_t root, std::span<const std::uint32_t> parent) {
  TreeCheck result;
  const std::uint32_t n = graph.vertices;
  auto fail = [&](std::string message) {
    result.ok = false;
    result.error = std::move(message);
    return result;
  };
  if (parent.size() != n) return fail("parent array has the wrong size");
  if (root >= n || parent[root] != root) return fail("parent[root] != root");

  // Parent edges exist; count the labelled vertices.
  for (std::uint32_t v = 0; v < n; ++v) {
    const std::uint32_t p = parent[v];
    if (p == kNoParent) continue;
    ++result.labelled;
    if (v == root) continue;
    if (p >= n || p == v) return fail("vertex " + std::to_string(v) + " has an invalid parent");
    const auto nb = graph.neighbours(v);
    if (std::find(nb.begin(), nb.end(), p) == nb.end())
      return fail("parent edge " + std::to_string(v) + " -> " + std::to_string(p) + " is not in the graph");
  }

  // Closed under adjacency: every vertex reachable from the root is labelled.
  for (std::uint32_t v = 0; v < n; ++v) {
    if (parent[v] == kNoParent) continue;
    for (std::uint32_t u : graph.neighbours(v))
      if (parent[u] == kNoParent)
        return fail("vertex " + std::to_string(u) + " is reachable but has no parent");
  }

  // Parent chains reach the root without a cycle: an iterative walk that
  // marks the vertices of the current path (1) and those known good (2).
  std::vector<std::uint8_t> mark(n, 0);
  mark[root] = 2;
  std::vector<std::uint32_t> path;
  for (std::uint32_t v = 0; v < n; ++v) {
    if (parent[v] == kNoParent || mark[v] != 0) continue;
    path.clear();
    std::uint32_t x = v;
    while (mark[x] == 0) {
      mark[x] = 1;
      path.push_back(x);
      x = parent[x];
    }
    if (mark[x] == 1) return fail("the parent chain from vertex " + std::to_string(v) + " has a cycle");
    for (std::uint32_t y : path) mark[y] = 2;
  }
  result.ok = true;
  return result;
}

}  // namespace heist::apps::spantree
