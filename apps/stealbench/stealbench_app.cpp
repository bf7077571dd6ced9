// `heist bench stealbench`: the mean time of one successful steal of one
// empty task between two processes, SWS against SDC (SWS §5.1 Figure 6,
// task sizes 24 and 192 bytes; HotSLAW §5 Figure 4, payloads up to 64 KiB).
// The protocol is the runtime option --protocol sdc|sws; the bench itself is
// rma::run_steal_bench (src/rma/steal_bench.hpp: rank 0 the victim, rank 1
// the thief, its own window and queue). result = mean seconds per successful
// steal, which the bench runner also reports as time_s (reported_time());
// verify() checks the communications counted inside the timed steals against
// the protocol's: SWS 3 with 2 blocking, SDC 6 with 5 blocking.
#include <optional>
#include <stdexcept>
#include <string>

#include <heist/heist.hpp>

#include "common/app.hpp"

#ifdef HEIST_WITH_MPI
#include "rma/steal_bench.hpp"
#endif

namespace heist::apps::stealbench {
namespace {

constexpr const char* kNeedsMpi = "stealbench: run with mpirun -n 2";

struct Expected {
  double comms;
  double blocking;
};
Expected expected_counts(const std::string& protocol) {
  return protocol == "sdc" ? Expected{6, 5} : Expected{3, 2};
}

class StealbenchApp final : public App {
 public:
  std::string name() const override { return "stealbench"; }
  std::string summary() const override {
    return "time of one successful inter-process steal of one empty task, SWS vs SDC (SWS Fig. 6; "
           "mpirun -n 2)";
  }
  void add_options(AppOptions& cmd) override {
    cmd.add("--payload", payload_, "task input bytes after the 48-byte header, [8, 65536]");
    cmd.add("--steals", steals_, "successful steals timed");
    cmd.add("--warmup", warmup_, "successful steals before timing");
    cmd.add("--busy-victim", busy_victim_,
                 "the victim polls its queue during steals (default: only after each steal)");
  }
  void check() const override {
    if (payload_ < 8 || payload_ > 65536) throw std::invalid_argument("stealbench: --payload must be in [8, 65536]");
    if (steals_ < 1 || steals_ > 100000000) throw std::invalid_argument("stealbench: --steals must be in [1, 1e8]");
    if (warmup_ < 0 || warmup_ > 100000000) throw std::invalid_argument("stealbench: --warmup must be in [0, 1e8]");
  }
  nlohmann::json params() const override {
    return {{"payload", payload_}, {"steals", steals_}, {"warmup", warmup_}, {"busy_victim", busy_victim_}};
  }
  RunOutput run_sequential() override { throw OptionError(kNeedsMpi); }
  RunOutput run_parallel() override { throw std::invalid_argument(kNeedsMpi); }
  RunOutput run_root(heist::Runtime& runtime) override {
#ifdef HEIST_WITH_MPI
    if (runtime.ranks() < 2) throw OptionError(kNeedsMpi);  // invalid use: exit status 2
    const Options& o = runtime.options();
    rma::StealBenchConfig config;
    config.protocol = o.protocol;
    config.payload = static_cast<std::size_t>(payload_);
    config.steals = steals_;
    config.warmup = warmup_;
    config.sws_empty_threshold = static_cast<std::uint32_t>(o.sws_empty_threshold);
    config.busy_victim = busy_victim_;
    const rma::StealBenchResult r = rma::run_steal_bench(rma::MpiSession::get(o), config);
    protocol_ = to_string(o.protocol);
    RunOutput out;
    out.result = r.mean_s;
    out.extra = {{"median_s", r.median_s},
                 {"comms_per_steal", r.comms_per_steal},
                 {"blocking_per_steal", r.blocking_per_steal},
                 {"failed_attempts", r.failed_attempts},
                 {"payload", payload_},
                 {"protocol", protocol_},
                 {"p99_s", r.p99_s},
                 {"min_s", r.min_s},
                 {"max_s", r.max_s},
                 {"bytes_per_steal", r.bytes_per_steal},
                 {"stride", r.stride},
                 {"steals", r.steals},
                 {"bad_tasks", r.bad_tasks}};
    return out;
#else
    (void)runtime;
    throw std::invalid_argument(kNeedsMpi);
#endif
  }
  // The stolen tasks are empty descriptors with --payload input bytes (never run).
  std::vector<TaskIo> task_io() const override {
    return {{"stealbench empty task", static_cast<std::size_t>(payload_), 0}};
  }
  std::optional<double> reported_time(const RunOutput& out) const override { return out.result.get<double>(); }
  bool verify(const RunOutput& out) override {
    const nlohmann::json& x = out.extra;
    if (!x.contains("comms_per_steal") || !x.contains("blocking_per_steal")) return false;
    const Expected e = expected_counts(protocol_);
    return x["comms_per_steal"].get<double>() == e.comms && x["blocking_per_steal"].get<double>() == e.blocking &&
           x.value("bad_tasks", std::uint64_t{1}) == 0;
  }

 private:
  int payload_ = 8;
  int steals_ = 2000;
  int warmup_ = 100;
  bool busy_victim_ = false;
  std::string protocol_ = "sws";  // of the last run
};

}  // namespace

std::unique_ptr<App> make_stealbench_app() { return std::make_unique<StealbenchApp>(); }

}  // namespace heist::apps::stealbench
