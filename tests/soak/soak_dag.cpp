#include "soak_dag.hpp"

#include <algorithm>
#include <deque>

namespace heist::soak {

namespace {

class Draw {
 public:
  explicit Draw(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return mix(state_++); }
  std::uint32_t below(std::uint32_t n) { return n == 0 ? 0 : static_cast<std::uint32_t>(next() % n); }
  bool chance(std::uint32_t percent) { return below(100) < percent; }

 private:
  std::uint64_t state_;
};

Edge draw_edge(Draw& d, bool pool_seed) {
  // Weights: mostly joined spawns (the common HotSLAW pattern), every kind often.
  const std::uint32_t r = d.below(100);
  if (r < 35) return Edge::spawn;
  if (r < 50) return Edge::async;
  if (r < 60) return Edge::closure;
  if (r < 70) return Edge::async_any;
  if (pool_seed) return Edge::spawn;  // the pool body seeds plain spawns and asyncs
  if (r < 76) return Edge::finish;
  if (r < 88) return Edge::handle;
  return Edge::after;
}

}  // namespace

Dag make_dag(std::uint64_t seed, const DagShape& shape) {
  Draw d(seed);
  Dag dag;
  dag.seed = seed;
  dag.pool = d.chance(35);
  dag.nodes.push_back(Node{0, 0, 0, d.below(shape.max_work_ns + 1)});
  std::deque<std::uint32_t> open{0};
  while (!open.empty()) {
    const std::uint32_t id = open.front();
    open.pop_front();
    const std::uint32_t depth = dag.nodes[id].depth;
    const bool pool_root = dag.pool && id == 0;
    std::uint32_t fanout = 0;
    if (depth < shape.max_depth && dag.nodes.size() < shape.max_nodes)
      fanout = pool_root ? 2 + d.below(2 * shape.max_fanout) : d.below(shape.max_fanout + 1);
    fanout = std::min<std::uint32_t>(fanout, shape.max_nodes - static_cast<std::uint32_t>(dag.nodes.size()));
    dag.nodes[id].first_child = static_cast<std::uint32_t>(dag.children.size());
    dag.nodes[id].children = fanout;
    std::vector<std::uint16_t> handles;  // this node's children that have a handle
    for (std::uint32_t k = 0; k < fanout; ++k) {
      Child c;
      c.node = static_cast<std::uint32_t>(dag.nodes.size());
      c.edge = draw_edge(d, pool_root);
      if (c.edge == Edge::after && handles.empty()) c.edge = Edge::handle;
      if (c.edge == Edge::after) {
        c.deps = static_cast<std::uint8_t>(1 + d.below(std::min<std::uint32_t>(2, static_cast<std::uint32_t>(handles.size()))));
        for (std::uint8_t i = 0; i < c.deps; ++i) c.dep[i] = handles[d.below(static_cast<std::uint32_t>(handles.size()))];
      }
      if (c.edge == Edge::handle || c.edge == Edge::after) {
        handles.push_back(static_cast<std::uint16_t>(k));
        c.wait_handle = d.chance(20);
      }
      c.fence_before = !pool_root && k > 0 && d.chance(10);
      dag.children.push_back(c);
      dag.nodes.push_back(Node{0, 0, depth + 1, d.below(shape.max_work_ns + 1)});
      open.push_back(c.node);
    }
  }
  if (dag.pool) dag.roots = dag.nodes[0].children;
  // Expected values, children first (they have larger ids).
  dag.value.assign(dag.nodes.size(), 0);
  for (std::uint32_t id = static_cast<std::uint32_t>(dag.nodes.size()); id-- > 0;) {
    std::uint64_t v = dag.own_value(id);
    const Node& n = dag.nodes[id];
    for (std::uint32_t k = 0; k < n.children; ++k) {
      const Child& c = dag.children[n.first_child + k];
      if (has_output(c.edge)) v += dag.value[c.node];
    }
    dag.value[id] = v;
  }
  return dag;
}

}  // namespace heist::soak
