// `heist bench uts --tree T1|"-t 1 -a 3 -d 10 -b 4 -r 19"`: Unbalanced Tree
// Search; verified against the tree's published counts, else the sequential run.
#include <optional>
#include <stdexcept>
#include <string>

#include "common/app_registry.hpp"
#include "uts/uts_heist.hpp"

namespace heist::apps::uts {
std::vector<TaskIo> uts_task_io();
namespace {

using heist::uts::UtsCounts;

class UtsApp final : public App {
 public:
  std::string name() const override { return "uts"; }
  std::string summary() const override { return "Unbalanced Tree Search, one task per tree node"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--tree", tree_, "a named tree (T1..T5, T1L, T2L, T3L, ...) or UTS options \"-t 1 -a 3 -d 10 ...\"");
    cmd.add("--cutoff", cutoff_, "nodes at this height or deeper traverse their subtree sequentially; 0: a task per node");
  }
  void check() const override {
    if (cutoff_ < 0) throw std::invalid_argument("uts: --cutoff must be >= 0");
    resolve();
  }
  nlohmann::json params() const override {
    resolve();
    return {{"tree", tree_}, {"uts", heist::uts::describe(params_)}, {"cutoff", cutoff_}};
  }
  RunOutput run_sequential() override {
    resolve();
    return output(heist::uts::uts_count_sequential(params_));
  }
  RunOutput run_parallel() override {
    resolve();
    return output(uts_count_heist(params_, cutoff_));
  }
  RunOutput run_root(heist::Runtime& runtime) override {
    resolve();
    return output(uts_count_heist(runtime, params_, cutoff_));
  }
  std::optional<RunOutput> run_pool(heist::Runtime& runtime) override { return run_root(runtime); }
  std::vector<TaskIo> task_io() const override { return uts_task_io(); }
  bool verify(const RunOutput& out) override {
    const UtsCounts got{out.result.get<std::uint64_t>(), out.extra["leaves"].get<std::uint64_t>(),
                        out.extra["depth"].get<std::int64_t>()};
    if (named_ && named_->expected_nodes) {
      return got.nodes == *named_->expected_nodes &&
             (!named_->expected_leaves || got.leaves == *named_->expected_leaves) &&
             (!named_->expected_depth || got.max_depth == *named_->expected_depth);
    }
    if (!sequential_) sequential_ = heist::uts::uts_count_sequential(params_);
    return got == *sequential_;
  }

 private:
  static RunOutput output(const UtsCounts& c) {
    return {c.nodes, {{"leaves", c.leaves}, {"depth", c.max_depth}}};
  }
  // Named tree or explicit UTS options; throws std::invalid_argument.
  void resolve() const {
    if (resolved_ && *resolved_ == tree_) return;
    named_ = heist::uts::find_named_tree(tree_);
    if (named_) {
      params_ = named_->params;
    } else if (tree_.find('-') != std::string::npos) {
      params_ = heist::uts::parse_uts_args(std::string_view(tree_));
    } else {
      throw std::invalid_argument("uts: --tree '" + tree_ + "' is neither a named tree nor UTS options");
    }
    resolved_ = tree_;
  }

  std::string tree_ = "T1";
  int cutoff_ = 0;
  mutable std::optional<std::string> resolved_;  // the --tree value params_ came from
  mutable heist::uts::UtsParams params_{};
  mutable std::optional<heist::uts::UtsNamedTree> named_;
  std::optional<UtsCounts> sequential_;
};

}  // namespace

std::unique_ptr<App> make_uts_app() { return std::make_unique<UtsApp>(); }

}  // namespace heist::apps::uts
