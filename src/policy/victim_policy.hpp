// Victim selection (the policy layer of docs/architecture.md): which place a thief tries next. Pure
// logic over a Topology and an RNG — no threads, no MPI, no clocks — so the
// runtime and the simulator run the very same objects, and a seeded RNG
// replays a thief's choices exactly.
//
// Protocol of use, per thief (one object each, not thread-safe):
//   VictimStep s = policy.step(rng, requests_possible);
//   steal:   try to steal from s.choice.place, then
//            policy.on_result(s.choice, tasks_taken);   // 0 = failed attempt
//   request: send a request across nodes to policy.next_rank(rng, advertised);
//   none:    nothing to try this time (a failed attempt).
// Callers never need to know which policy they hold (SearchDriver).
//
//   RandomVictims        uniform over every other place (the papers' baseline).
//   HierarchicalVictims  HVS, HotSLAW §3.2.1: random attempts inside the
//                        nearest level first, then the next level up, ...,
//                        then back to the bottom; a success starts again at
//                        the bottom.
//   SuccessOnlyVictims   HabaneroUPC++: HVS inside the node; across nodes it never
//                        guesses — see its comment.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "heist/options.hpp"
#include "platform/rng.hpp"
#include "policy/topology.hpp"

namespace heist::policy {

using heist::HvsCounts;
using heist::VictimSpec;

struct VictimChoice {
  int place;
  Level level;  // topology.common_level(thief, place)
};

// One step of a thief's search: steal from a place, send a request (to a
// rank next_rank() picks from the advertised loads), or nothing this time.
struct VictimStep {
  enum class Kind : std::uint8_t { steal, request, none };
  Kind kind = Kind::none;
  VictimChoice choice{0, Level::worker};  // steal: where, and the level thief and victim meet at
};

class VictimPolicy {
 public:
  virtual ~VictimPolicy() = default;
  virtual VictimChoice next(platform::Rng& rng) = 0;                              // never the thief itself
  virtual void on_result(const VictimChoice& c, std::uint32_t tasks_taken) = 0;  // 0 = failed attempt
  virtual const char* name() const noexcept = 0;
  // Attempts in one sweep over every victim the policy would try before it
  // repeats itself (SearchDriver::backs_off: the back-off advances once per
  // failed sweep, not per failed attempt).
  virtual std::uint32_t sweep() const noexcept = 0;
  // The next step; `requests_possible`: the caller can send a request to
  // another rank (a distributed region is on). Default: always a steal.
  virtual VictimStep step(platform::Rng& rng, bool /*requests_possible*/) {
    return {VictimStep::Kind::steal, next(rng)};
  }
  // After a request step: a rank to ask, uniformly among those of another
  // node with advertised[rank] > 0, or nullopt. Policies that never answer
  // `request` have none.
  virtual std::optional<int> next_rank(platform::Rng& /*rng*/, std::span<const std::uint32_t> /*advertised*/) {
    return std::nullopt;
  }
};

// Uniformly random among every other place.
class RandomVictims final : public VictimPolicy {
 public:
  // Precondition (checked: std::invalid_argument): the topology has > 1 place.
  RandomVictims(const Topology& topology, int thief);
  // Without a topology: `places` places forming one domain at `level` (e.g.
  // the workers of one process). Precondition: places > 1.
  RandomVictims(int thief, int places, Level level = Level::process) noexcept
      : topology_(nullptr), thief_(thief), places_(places), flat_level_(level) {}

  // The hot-path form: a victim place without its level.
  int next_local(platform::Rng& rng) const noexcept {
    const int pick = static_cast<int>(rng.below(static_cast<std::uint32_t>(places_ - 1)));
    return pick >= thief_ ? pick + 1 : pick;
  }
  VictimChoice next(platform::Rng& rng) override {
    const int place = next_local(rng);
    return {place, topology_ != nullptr ? topology_->common_level(thief_, place) : flat_level_};
  }
  void on_result(const VictimChoice&, std::uint32_t) override {}
  const char* name() const noexcept override { return "random"; }
  // Every other place, at most HVS's top phase (4 ceil(log2 N)): with
  // thousands of places a thief would otherwise try thousands of remote
  // victims before its first pause.
  std::uint32_t sweep() const noexcept override;
  int places() const noexcept { return places_; }

 private:
  const Topology* topology_;
  int thief_;
  int places_;
  Level flat_level_;
};

// HVS (HotSLAW §3.2.1). The thief's phases are the levels at which it has
// victims, bottom up; at level L the candidates are the places whose common
// level with the thief is exactly L (its domain at L minus its domain at the
// level below, which the earlier phases covered). Each phase makes `attempts`
// uniformly random picks among its candidates, then the next phase starts;
// after the top phase the walk wraps to the bottom; a successful steal
// (on_result with tasks > 0) restarts at the bottom.
// Attempts per phase: HvsCounts for that level if set, else the number of
// places in the thief's domain at that level ("the cores within the domain"),
// and 4 * ceil(log2 N) for the top phase (N = places of the machine).
class HierarchicalVictims final : public VictimPolicy {
 public:
  struct Phase {
    Level level;
    std::vector<int> candidates;  // ascending
    std::uint32_t attempts;
  };

  // Precondition (checked: std::invalid_argument): the topology has > 1 place.
  HierarchicalVictims(const Topology& topology, int thief, const HvsCounts& counts = {});

  VictimChoice next(platform::Rng& rng) override;
  void on_result(const VictimChoice& c, std::uint32_t tasks_taken) override;
  const char* name() const noexcept override { return "hvs"; }
  // One walk: every phase's attempts.
  std::uint32_t sweep() const noexcept override;

  const std::vector<Phase>& phases() const noexcept { return phases_; }
  std::size_t phase() const noexcept { return phase_; }  // index of the phase the next pick comes from
  std::uint64_t rounds() const noexcept { return rounds_; }  // times the walk wrapped from the top to the bottom
  void restart() noexcept;  // the next pick comes from the bottom phase (as after a success)

  // The default top-level count: 4 * ceil(log2 places), at least 1.
  static std::uint32_t top_attempts(int places) noexcept;

 private:
  friend class SuccessOnlyVictims;
  // Phases up to level `top` only (SuccessOnlyVictims' inside-the-node walk;
  // the 4 log2 N default is for the machine's top level only).
  HierarchicalVictims(const Topology& topology, int thief, const HvsCounts& counts, Level top);
  void advance() noexcept;

  std::vector<Phase> phases_;
  std::size_t phase_ = 0;
  std::uint32_t done_ = 0;    // picks made in the current phase
  std::uint64_t rounds_ = 0;
};

// SuccessOnly (HabaneroUPC++, HabaneroUPC++'s SuccessOnlyWS). Inside its node the
// thief walks HVS's phases below Level::machine (counts as HierarchicalVictims:
// the node level, the top of that walk, defaults to its place count). Across
// nodes it never picks blindly: every rank advertises how many tasks it can
// give, and once the inside-the-node walk is done (inter_node_due()), the
// caller reads the advertisements and asks next_rank() for a rank on another
// node that advertises work; it then queues a request there, which that rank
// serves (never declines), so an inter-node steal never fails. next_rank()
// ends the round: the walk restarts at the bottom.
class SuccessOnlyVictims final : public VictimPolicy {
 public:
  // Precondition (checked: std::invalid_argument): the topology has > 1 place.
  SuccessOnlyVictims(const Topology& topology, int thief, const HvsCounts& counts = {});

  // The next victim inside the thief's node. Precondition: has_inside_node();
  // throws std::logic_error otherwise. Past the top of the inside walk it
  // wraps to the bottom (and inter_node_due() becomes true).
  VictimChoice next(platform::Rng& rng) override;
  void on_result(const VictimChoice& c, std::uint32_t tasks_taken) override;
  const char* name() const noexcept override { return "success-only"; }
  // The inside-the-node walk and one request (or one step of nothing).
  std::uint32_t sweep() const noexcept override { return (has_inside_node() ? inside_.sweep() : 0) + 1; }
  // request once the inside walk is done and requests are possible; none
  // when they are not and there is no victim inside the node; else a steal.
  VictimStep step(platform::Rng& rng, bool requests_possible) override;

  bool has_inside_node() const noexcept { return !inside_.phases().empty(); }
  bool has_other_nodes() const noexcept { return !other_node_ranks_.empty(); }
  // The inside-the-node walk is done since the last success or next_rank():
  // time to look across nodes (always true without victims inside the node).
  bool inter_node_due() const noexcept { return has_other_nodes() && (due_ || !has_inside_node()); }
  // A uniformly random rank on another node with advertised[rank] > 0
  // (`advertised` is indexed by rank; callers zero the ranks they already
  // have a request queued at), or nullopt. Restarts the inside walk.
  std::optional<int> next_rank(platform::Rng& rng, std::span<const std::uint32_t> advertised) override;

  const HierarchicalVictims& inside() const noexcept { return inside_; }
  const std::vector<int>& other_node_ranks() const noexcept { return other_node_ranks_; }

 private:
  HierarchicalVictims inside_;
  std::vector<int> other_node_ranks_;  // ascending
  std::vector<int> scratch_;           // candidates of the current next_rank()
  bool due_ = false;
};

// The policy VictimSpec names, for `thief`. Throws std::invalid_argument if
// the topology has fewer than 2 places.
std::unique_ptr<VictimPolicy> make_victim_policy(const VictimSpec& spec, const Topology& topology, int thief);

}  // namespace heist::policy
