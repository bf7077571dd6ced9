// Random task DAGs for the exactly-once soak (soak_driver.cpp): a tree of
// tasks whose edges have kinds — joined spawns with outputs, escaping
// registered asyncs, local-only closures, migratable async_any lambdas,
// nested finishes, spawn_handle / spawn_after dependencies, explicit waits
// on handles and fences between children. A DAG is a pure function of its
// seed, so every rank builds the same one and a failure is reproduced from
// the seed alone. The expected output of every node is its sequential value.
#pragma once

#include <cstdint>
#include <vector>

namespace heist::soak {

inline std::uint64_t mix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

enum class Edge : std::uint8_t {
  spawn,      // spawn(task, in, &out): joined, output
  async,      // async(task, in): escaping, registered (migratable)
  closure,    // async(lambda): escaping, local-only
  async_any,  // async_any(lambda): escaping, migratable lambda
  finish,     // finish { async(task, in) }: the subtree completes before the parent goes on
  handle,     // spawn_handle(task, in, &out): joined, output, a handle later children may depend on
  after,      // spawn_after({handles...}, task, in, &out): starts after its dependencies completed
};

inline bool has_output(Edge e) { return e == Edge::spawn || e == Edge::handle || e == Edge::after; }
inline bool joined(Edge e) { return has_output(e); }

struct Child {
  std::uint32_t node = 0;
  Edge edge = Edge::spawn;
  bool fence_before = false;   // fence() right before this child is spawned
  bool wait_handle = false;    // handle/after: wait(handle) right after the spawns
  std::uint8_t deps = 0;       // after: dependencies (indices into this node's children)
  std::uint16_t dep[2] = {0, 0};
};

struct Node {
  std::uint32_t first_child = 0;
  std::uint32_t children = 0;
  std::uint32_t depth = 0;
  std::uint32_t work_ns = 0;   // busy time before spawning
};

struct DagShape {
  std::uint32_t max_nodes = 300;
  std::uint32_t max_depth = 8;
  std::uint32_t max_fanout = 5;
  std::uint32_t max_work_ns = 20000;
};

struct Dag {
  std::uint64_t seed = 0;
  std::vector<Node> nodes;       // node 0 is the root; children have larger ids
  std::vector<Child> children;
  std::vector<std::uint64_t> value;  // expected output of every node
  std::uint32_t roots = 1;       // pool mode: nodes 1..roots are seeded directly (the root is not run)
  bool pool = false;             // run as an SPMD pool (else root-task mode)

  std::uint64_t own_value(std::uint32_t node) const { return mix(seed ^ (std::uint64_t{node} << 20)); }
};

// Builds the DAG of `seed`: breadth first, each node drawing its fan-out,
// the kind of each edge, fences and dependencies from the seed.
Dag make_dag(std::uint64_t seed, const DagShape& shape);

}  // namespace heist::soak
