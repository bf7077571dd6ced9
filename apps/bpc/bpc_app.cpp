// `heist bench bpc`: Bouncing Producer-Consumer (SWS §5.2.1). The
// result is the number of consumer tasks executed; verified when it is
// exactly depth x consumers and exactly depth producers ran. Tasks
// busy-wait (steady clock), so the time measures scheduling, not compute:
// 1 worker needs about depth x (producer-us + consumers x consumer-us).
#include <stdexcept>

#include "bpc/bpc.hpp"
#include "common/app_registry.hpp"

namespace heist::apps::bpc {
std::vector<TaskIo> bpc_task_io();
namespace {

class BpcApp final : public App {
 public:
  std::string name() const override { return "bpc"; }
  std::string summary() const override { return "bouncing producer-consumer, busy-wait tasks (SWS §5.2.1)"; }
  void add_options(AppOptions& cmd) override {
    cmd.add("--depth", depth_, "producers in the chain");
    cmd.add("--consumers", consumers_, "consumer tasks per producer");
    cmd.add("--consumer-us", consumer_us_, "busy-wait of a consumer task, microseconds");
    cmd.add("--producer-us", producer_us_, "busy-wait of a producer task, microseconds");
  }
  void check() const override {
    if (depth_ < 0 || depth_ > 100000000) throw std::invalid_argument("bpc: --depth must be in [0, 1e8]");
    if (consumers_ < 0 || consumers_ > 1000000) throw std::invalid_argument("bpc: --consumers must be in [0, 1e6]");
    if (!(consumer_us_ >= 0 && consumer_us_ <= 1e6 && producer_us_ >= 0 && producer_us_ <= 1e6))  // NaN fails too
      throw std::invalid_argument("bpc: --consumer-us and --producer-us must be in [0, 1e6]");
  }
  nlohmann::json params() const override {
    return {{"depth", depth_}, {"consumers", consumers_}, {"consumer_us", consumer_us_}, {"producer_us", producer_us_}};
  }
  RunOutput run_sequential() override { return output(bpc_sequential(bpc_params())); }
  RunOutput run_parallel() override { return output(bpc_heist(bpc_params())); }
  RunOutput run_root(heist::Runtime& runtime) override { return output(bpc_heist(runtime, bpc_params())); }
  std::vector<TaskIo> task_io() const override { return bpc_task_io(); }
  bool verify(const RunOutput& out) override {
    const auto depth = static_cast<std::uint64_t>(depth_);
    return out.result.get<std::uint64_t>() == depth * static_cast<std::uint64_t>(consumers_) &&
           out.extra.value("producers", std::uint64_t{0}) == depth;
  }

 private:
  static RunOutput output(const BpcCounts& c) { return {c.consumers, {{"producers", c.producers}}}; }
  BpcParams bpc_params() const {
    return {static_cast<std::uint32_t>(depth_), static_cast<std::uint32_t>(consumers_),
            static_cast<std::uint32_t>(consumer_us_ * 1000.0 + 0.5), static_cast<std::uint32_t>(producer_us_ * 1000.0 + 0.5)};
  }

  int depth_ = 1000;
  int consumers_ = 100;
  double consumer_us_ = 5.0;
  double producer_us_ = 1.0;
};

}  // namespace

std::unique_ptr<App> make_bpc_app() { return std::make_unique<BpcApp>(); }

}  // namespace heist::apps::bpc
