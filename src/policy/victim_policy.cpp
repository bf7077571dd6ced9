#include "policy/victim_policy.hpp"

#include <algorithm>
#include <bit>
#include <iterator>
#include <stdexcept>

namespace heist::policy {

namespace {
void require_victims(const Topology& topology) {
  if (topology.places() < 2) throw std::invalid_argument("victim policy: a topology with fewer than 2 places has no victims");
}
}  // namespace

RandomVictims::RandomVictims(const Topology& topology, int thief)
    : topology_(&topology), thief_(thief), places_(topology.places()), flat_level_(Level::machine) {
  require_victims(topology);
}

std::uint32_t RandomVictims::sweep() const noexcept {
  return std::min(static_cast<std::uint32_t>(places_ - 1), HierarchicalVictims::top_attempts(places_));
}

// ---------------------------------------------------------------- HVS

std::uint32_t HierarchicalVictims::top_attempts(int places) noexcept {
  const auto n = static_cast<std::uint32_t>(std::max(places, 1));
  return std::max<std::uint32_t>(1, 4 * static_cast<std::uint32_t>(std::bit_width(n - 1)));  // 4 * ceil(log2 n)
}

HierarchicalVictims::HierarchicalVictims(const Topology& topology, int thief, const HvsCounts& counts)
    : HierarchicalVictims(topology, thief, counts, Level::machine) {
  require_victims(topology);
}

HierarchicalVictims::HierarchicalVictims(const Topology& topology, int thief, const HvsCounts& counts, Level top) {
  // Phases: each level up to `top` at which the thief has victims.
  for (int l = 1; l <= index(top); ++l) {
    const Level level = level_at(l);
    const std::vector<int>& domain = topology.members(level, topology.domain(thief, level));
    const std::vector<int>& nearer = topology.members(level_at(l - 1), topology.domain(thief, level_at(l - 1)));
    Phase phase{level, {}, 0};
    std::set_difference(domain.begin(), domain.end(), nearer.begin(), nearer.end(),
                        std::back_inserter(phase.candidates));
    if (phase.candidates.empty()) continue;
    const std::uint32_t set = counts.attempts[static_cast<std::size_t>(l)];
    phase.attempts = set > 0 ? set : static_cast<std::uint32_t>(domain.size());
    phases_.push_back(std::move(phase));
  }
  // The top phase of the whole machine gets the 4 log2 N default.
  if (top == Level::machine && !phases_.empty() && counts.attempts[static_cast<std::size_t>(index(phases_.back().level))] == 0)
    phases_.back().attempts = top_attempts(topology.places());
}

VictimChoice HierarchicalVictims::next(platform::Rng& rng) {
  const Phase& p = phases_[phase_];
  const int place = p.candidates[rng.below(static_cast<std::uint32_t>(p.candidates.size()))];
  const VictimChoice choice{place, p.level};
  advance();
  return choice;
}

std::uint32_t HierarchicalVictims::sweep() const noexcept {
  std::uint32_t n = 0;
  for (const Phase& p : phases_) n += p.attempts;
  return std::max<std::uint32_t>(n, 1);
}

void HierarchicalVictims::advance() noexcept {
  if (++done_ < phases_[phase_].attempts) return;
  done_ = 0;
  if (++phase_ < phases_.size()) return;
  phase_ = 0;
  ++rounds_;
}

void HierarchicalVictims::on_result(const VictimChoice&, std::uint32_t tasks_taken) {
  if (tasks_taken > 0) restart();
}

void HierarchicalVictims::restart() noexcept {
  phase_ = 0;
  done_ = 0;
}

// ---------------------------------------------------------------- SuccessOnly

SuccessOnlyVictims::SuccessOnlyVictims(const Topology& topology, int thief, const HvsCounts& counts)
    : inside_(topology, thief, counts, Level::node) {
  require_victims(topology);
  const int node = topology.domain(thief, Level::node);
  int last = -1;
  for (int p = 0; p < topology.places(); ++p) {
    if (topology.domain(p, Level::node) == node || topology.rank_of(p) == last) continue;
    last = topology.rank_of(p);
    other_node_ranks_.push_back(last);
  }
  std::sort(other_node_ranks_.begin(), other_node_ranks_.end());
  other_node_ranks_.erase(std::unique(other_node_ranks_.begin(), other_node_ranks_.end()), other_node_ranks_.end());
}

VictimChoice SuccessOnlyVictims::next(platform::Rng& rng) {
  if (!has_inside_node()) throw std::logic_error("success-only: the thief has no victim inside its node");
  const std::uint64_t rounds = inside_.rounds();
  const VictimChoice c = inside_.next(rng);
  if (inside_.rounds() != rounds) due_ = true;  // the walk wrapped: the inside of the node had its round
  return c;
}

VictimStep SuccessOnlyVictims::step(platform::Rng& rng, bool requests_possible) {
  if (inter_node_due()) {
    if (requests_possible) return {VictimStep::Kind::request, {}};
    if (!has_inside_node()) return {VictimStep::Kind::none, {}};
  }
  return {VictimStep::Kind::steal, next(rng)};
}

void SuccessOnlyVictims::on_result(const VictimChoice& c, std::uint32_t tasks_taken) {
  inside_.on_result(c, tasks_taken);
  if (tasks_taken > 0) due_ = false;
}

std::optional<int> SuccessOnlyVictims::next_rank(platform::Rng& rng, std::span<const std::uint32_t> advertised) {
  due_ = false;
  inside_.restart();
  scratch_.clear();
  for (int r : other_node_ranks_)
    if (static_cast<std::size_t>(r) < advertised.size() && advertised[static_cast<std::size_t>(r)] > 0)
      scratch_.push_back(r);
  if (scratch_.empty()) return std::nullopt;
  return scratch_[rng.below(static_cast<std::uint32_t>(scratch_.size()))];
}

// ---------------------------------------------------------------- factory

std::unique_ptr<VictimPolicy> make_victim_policy(const VictimSpec& spec, const Topology& topology, int thief) {
  switch (spec.kind) {
    case VictimSpec::Kind::random: return std::make_unique<RandomVictims>(topology, thief);
    case VictimSpec::Kind::hvs: return std::make_unique<HierarchicalVictims>(topology, thief, spec.hvs);
    case VictimSpec::Kind::success_only: return std::make_unique<SuccessOnlyVictims>(topology, thief, spec.hvs);
  }
  throw std::invalid_argument("victim policy: unknown kind");
}

}  // namespace heist::policy
