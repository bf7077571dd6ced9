// `heist bench fib`: options, versions and verification of fib.
#include <stdexcept>

#include "common/app_registry.hpp"
#include "common/task_io.hpp"
#include "fib/fib.hpp"

namespace heist::apps::fib {
std::vector<TaskIo> fib_task_io(const std::string& style);
namespace {

class FibApp final : public App {
 public:
  std::string name() const override { return "fib"; }
  std::string summary() const override { return "naive recursive Fibonacci (spawn overhead)"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--n", n_, "compute fib(n)");
    cmd.add("--cutoff", cutoff_, "calls with n < cutoff run sequentially; 0: every call is a task");
    cmd.add("--style", style_, "task style: spawn (two spawns, then wait), call (Lace's shape: spawn one child, call the other, wait), closure (finish/async), or plain (one task, its body's shape as plain calls: the floor of every style); value, value-call, value-plain: the same with value task bodies (R f(In)); context, context-call: value and value-call with bodies that take a heist::Context (R f(Context, In))");
  }
  void check() const override {
    if (n_ < 0 || n_ > 92) throw std::invalid_argument("fib: --n must be in [0, 92]");
    if (cutoff_ < 0) throw std::invalid_argument("fib: --cutoff must be >= 0");
    if (style_ != "spawn" && style_ != "call" && style_ != "closure" && style_ != "plain" &&
        !is_value_style())
      throw std::invalid_argument(
          "fib: --style must be spawn, call, closure, plain, value, value-call, value-plain, context or "
          "context-call");
  }
  nlohmann::json params() const override { return {{"n", n_}, {"cutoff", cutoff_}, {"style", style_}}; }
  RunOutput run_sequential() override { return {fib_sequential(n_)}; }
  RunOutput run_parallel() override {
    if (is_value_style()) return {fib_heist_values(style_, n_)};
    if (style_ == "call") return {fib_heist_calls(n_)};
    if (style_ == "plain") return {fib_heist_plain(n_)};
    return {style_ == "spawn" ? fib_heist(n_) : fib_heist_closures(n_)};
  }
  // The cutoff is a constant of the run that tasks read wherever they run.
  RunOutput run_root(heist::Runtime& runtime) override {
    set_fib_cutoff(cutoff_);
    return App::run_root(runtime);
  }
  std::vector<TaskIo> task_io() const override { return fib_task_io(style_); }
  bool verify(const RunOutput& out) override { return out.result.get<std::uint64_t>() == fib_reference(n_); }

 private:
  bool is_value_style() const {
    return style_ == "value" || style_ == "value-call" || style_ == "value-plain" || style_ == "context" ||
           style_ == "context-call";
  }
  int n_ = 35;
  int cutoff_ = 0;
  std::string style_ = "spawn";
};

}  // namespace

std::unique_ptr<App> make_fib_app() { return std::make_unique<FibApp>(); }

}  // namespace heist::apps::fib
