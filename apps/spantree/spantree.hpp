// spantree: depth-first spanning tree of a random undirected graph by racing
// asyncs, after HelpFirst Figure 3 (X10's DFS with escaping asyncs) and §5.2
// (Figure 13: help-first handles 9M-vertex graphs, work-first overflows its
// stack). The kernel API: graph generation (CSR), the sequential and heist
// traversals, and the checker every result goes through.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace heist::apps::spantree {

inline constexpr std::uint32_t kNoParent = 0xFFFFFFFFu;

// Undirected graph in compressed sparse rows: the neighbours of v are
// targets[offsets[v] .. offsets[v+1]); every edge is stored in both directions.
struct Graph {
  std::uint32_t vertices = 0;
  std::vector<std::uint64_t> offsets;  // vertices + 1 entries
  std::vector<std::uint32_t> targets;  // 2 x undirected edges

  std::span<const std::uint32_t> neighbours(std::uint32_t v) const {
    return {targets.data() + offsets[v], targets.data() + offsets[v + 1]};
  }
  std::uint64_t undirected_edges() const { return targets.size() / 2; }
};

// A random graph, the same for a given (vertices, degree, seed): every
// vertex draws `degree` random neighbours (no self loops, duplicates kept),
// and a random Hamiltonian path (a shuffled vertex order) makes it connected.
// So the average degree is about 2 x degree + 2.
Graph make_graph(std::uint32_t vertices, std::uint32_t degree, std::uint64_t seed);

// Iterative DFS from `root` with an explicit stack: a vertex labels its
// unlabelled neighbours (parent = itself) and pushes them. Fills `parent`
// (kNoParent where unreached) and returns the number of labelled vertices.
std::uint64_t spanning_tree_sequential(const Graph& graph, std::uint32_t root, std::vector<std::uint32_t>& parent);

// Figure 3 on heist: one finish around the root; a vertex's task labels each
// neighbour with a compare-exchange on parent[] and spawns an escaping,
// registered (migratable) async for each neighbour it won. Call inside a
// heist::Runtime; one traversal at a time per process.
std::uint64_t spanning_tree_heist(const Graph& graph, std::uint32_t root, std::vector<std::uint32_t>& parent);

struct TreeCheck {
  bool ok = false;
  std::string error;           // empty when ok
  std::uint64_t labelled = 0;  // vertices with a parent, root included
};

// Checks that `parent` is a spanning tree of root's component: parent[root]
// == root, every other parent edge is an edge of the graph, following
// parents from any labelled vertex reaches the root without a cycle, and no
// edge joins a labelled vertex to an unlabelled one (so every vertex
// reachable from the root is labelled). Tree edges = labelled - 1.
TreeCheck check_spanning_tree(const Graph& graph, std::uint32_t root, std::span<const std::uint32_t> parent);

}  // namespace heist::apps::spantree
