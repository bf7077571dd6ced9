// Replays a runtime worker's recorded machine calls (policy::DecisionLog)
// through a SpawnMachine and SearchLoops over a SearchDriver that the caller
// made as the simulator makes them, and reports the first answer that
// differs. Shared by tests/sim/test_same_actions.cpp (threads) and
// same_actions_ranks.cpp (ranks, under mpirun).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <variant>

#include "policy/decision_log.hpp"
#include "policy/search_driver.hpp"
#include "policy/search_loop.hpp"
#include "policy/spawn_machine.hpp"

namespace same_actions {

struct Replayed {
  std::size_t entries = 0, plans = 0, edges = 0, searches = 0;
  std::string mismatch;  // empty: every answer was the recorded one
};

inline std::string describe_plan(const heist::policy::SpawnPlan& p) {
  std::ostringstream o;
  o << "release=" << p.release << " reroot=" << p.reroot << " action=" << static_cast<int>(p.action)
    << " credits=" << p.credits << " free=" << p.free_levels << " publish=" << static_cast<int>(p.publish);
  return o.str();
}

inline Replayed replay(const heist::policy::DecisionLog& log, heist::policy::SpawnMachine& spawn,
                       heist::policy::SearchDriver& search) {
  using namespace heist::policy;
  std::map<std::uint32_t, SearchLoop> loops;  // by id: a worker's loops nest, and interleave on fibers
  const SpawnRecord* facts = nullptr;
  const StepRecord* drawn = nullptr;  // the driver's step in the loop call that follows
  Replayed n;
  for (std::size_t i = 0; i < log.entries.size() && n.mismatch.empty(); ++i) {
    const std::string at = "record " + std::to_string(i) + ": ";
    const Decision& d = log.entries[i];
    if (const auto* r = std::get_if<EntryRecord>(&d)) {
      if (!(spawn.enter(r->entry) == r->step)) n.mismatch = at + "enter";
      ++n.entries;
    } else if (const auto* r = std::get_if<SpawnRecord>(&d)) {
      facts = r;
    } else if (const auto* r = std::get_if<PlanRecord>(&d)) {
      if (facts == nullptr) {
        n.mismatch = at + "a plan without its facts";
        break;
      }
      const SpawnPlan p = spawn.decide(facts->kind, facts->facts, {facts->paced, facts->now, r->fenced});
      if (!(p == r->plan)) n.mismatch = at + "plan " + describe_plan(p) + ", recorded " + describe_plan(r->plan);
      facts = nullptr;
      ++n.plans;
    } else if (const auto* r = std::get_if<StepRecord>(&d)) {
      drawn = r;
    } else if (const auto* r = std::get_if<AfterQueueRecord>(&d)) {
      if (spawn.after_queue(true) != r->poll) n.mismatch = at + "after-queue";
    } else if (const auto* r = std::get_if<EdgeRecord>(&d)) {
      if (spawn.task_edge(r->edge) != r->drop) n.mismatch = at + "task edge";
      ++n.edges;
    } else if (const auto* r = std::get_if<LoopRecord>(&d)) {
      if (r->call == LoopRecord::Call::begin) {
        loops.erase(r->loop);
        loops.try_emplace(r->loop, search, r->flag, r->flag_other_processes, r->round);
        continue;
      }
      const auto it = loops.find(r->loop);
      if (it == loops.end()) {
        n.mismatch = at + "a call of loop " + std::to_string(r->loop) + ", which did not begin";
        break;
      }
      SearchLoop& loop = it->second;
      SearchAction a = r->action;
      switch (r->call) {
        case LoopRecord::Call::search:
          a = loop.search(r->view);
          ++n.searches;
          if (drawn != nullptr && !(loop.step() == drawn->step)) {
            n.mismatch = at + "loop " + std::to_string(r->loop) + " drew target " + std::to_string(loop.step().target) +
                         " kind " + std::to_string(static_cast<int>(loop.step().kind)) + ", recorded target " +
                         std::to_string(drawn->step.target) + " kind " +
                         std::to_string(static_cast<int>(drawn->step.kind));
            return n;
          }
          drawn = nullptr;
          break;
        case LoopRecord::Call::stolen: a = loop.stolen(r->taken, r->flag); break;
        case LoopRecord::Call::failed: a = loop.failed(r->flag); break;
        case LoopRecord::Call::polled: a = loop.polled(r->flag); break;
        case LoopRecord::Call::found: loop.found(); break;
        case LoopRecord::Call::begin: break;
      }
      if (a != r->action || loop.round() != r->round)
        n.mismatch = at + "loop " + std::to_string(r->loop) + " answered " + std::to_string(static_cast<int>(a)) +
                     " round " + std::to_string(loop.round()) + ", recorded " +
                     std::to_string(static_cast<int>(r->action)) + " round " + std::to_string(r->round);
    }
  }
  return n;
}

}  // namespace same_actions
