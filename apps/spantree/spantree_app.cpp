// `heist bench spantree`: DFS spanning tree of a random graph (HelpFirst
// Figure 3, §5.2). The graph is built once per (vertices, degree, seed), in
// check(), outside the timed runs; a run labels every vertex and reports how
// many it labelled; verify() checks the tree itself (spantree.hpp).
#include <optional>
#include <stdexcept>

#include "common/app_registry.hpp"
#include "spantree/spantree.hpp"

namespace heist::apps::spantree {
std::vector<TaskIo> spantree_task_io();
namespace {

class SpanTreeApp final : public App {
 public:
  std::string name() const override { return "spantree"; }
  std::string summary() const override { return "DFS spanning tree of a random graph, escaping asyncs (HelpFirst Fig. 3)"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--vertices", vertices_, "vertices of the graph");
    cmd.add("--degree", degree_, "random out-edges per vertex (plus a random spanning path)");
    cmd.add("--graph-seed", seed_, "seed of the graph generator");
  }
  void check() const override {
    if (vertices_ < 1 || vertices_ > (std::int64_t{1} << 31))
      throw std::invalid_argument("spantree: --vertices must be in [1, 2^31]");
    if (degree_ < 0 || degree_ > 64) throw std::invalid_argument("spantree: --degree must be in [0, 64]");
    ensure_graph();
  }
  nlohmann::json params() const override {
    return {{"vertices", vertices_}, {"degree", degree_}, {"graph_seed", seed_}};
  }
  RunOutput run_sequential() override {
    ensure_graph();
    return output(spanning_tree_sequential(*graph_, kRoot, parent_));
  }
  RunOutput run_parallel() override {
    ensure_graph();
    return output(spanning_tree_heist(*graph_, kRoot, parent_));
  }
  // The tree of the last run: a spanning tree of the (connected) graph, with
  // as many labelled vertices as the run reported.
  std::vector<TaskIo> task_io() const override { return spantree_task_io(); }
  bool verify(const RunOutput& out) override {
    ensure_graph();
    const TreeCheck tree = check_spanning_tree(*graph_, kRoot, parent_);
    return tree.ok && tree.labelled == graph_->vertices && out.result.get<std::uint64_t>() == tree.labelled;
  }

 private:
  static constexpr std::uint32_t kRoot = 0;

  RunOutput output(std::uint64_t labelled) const {
    return {labelled, {{"undirected_edges", graph_->undirected_edges()}, {"tree_edges", labelled - 1}}};
  }
  void ensure_graph() const {
    const Key key{vertices_, degree_, seed_};
    if (graph_ && key_ == key) return;
    graph_.reset();  // free the old graph before building the new one
    graph_ = make_graph(static_cast<std::uint32_t>(vertices_), static_cast<std::uint32_t>(degree_), seed_);
    key_ = key;
  }

  struct Key {
    std::int64_t vertices;
    int degree;
    std::uint64_t seed;
    bool operator==(const Key&) const = default;
  };

  std::int64_t vertices_ = 1000000;
  int degree_ = 4;
  std::uint64_t seed_ = 1;
  mutable std::optional<Graph> graph_;
  mutable Key key_{};
  std::vector<std::uint32_t> parent_;
};

}  // namespace

std::unique_ptr<App> make_spantree_app() { return std::make_unique<SpanTreeApp>(); }

}  // namespace heist::apps::spantree
