// Engine<W>, busy side: a worker runs its tasks depth first, and every
// spawn takes the inline fast path (while credits last) or the slow path,
// whose steps and their order are policy::SpawnMachine's (the runtime's
// WorkerQueue executes the same machine); a queued task's start and end are
// the machine's task edges. What this file adds is the cost of each task.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
void Engine<W>::run_busy(Worker& w, double bound) {
  while (w.clock < bound) {
    if (w.stack.empty()) {
      Task t;
      if (!w.deque.pop(t)) {
        if (runnable_here(w) && resume_suspended(w, w.clock)) continue;
        go_idle(w);
        return;
      }
      begin(w, t, true);
      continue;
    }
    Frame& f = w.stack.back();
    Task child;
    if (wl_.next(f.cursor, child.node)) {
      spawn(w, child);
      continue;
    }
    if (!end_frame(w)) return;  // it waits, and this worker's deque is empty: help
    if (outstanding_ == 0) return;
  }
}

template <class W>
void Engine<W>::begin(Worker& w, const Task& t, bool queued) {
  Work work;
  Cursor cursor = wl_.open(t.node, work);
  // The machine's per-core slowdown while this node's other cores compute
  // (MachineSpec::loaded_slowdown; a factor of exactly 1 without one).
  const double cost = ((queued ? cfg_.costs.queued_ns : cfg_.costs.inline_ns) +
                       static_cast<double>(work.sequential_nodes) * cfg_.costs.sequential_ns + work.busy_ns) *
                      machine_.compute_factor(busy_in_node_[w.node]);
  ++w.executed;
  last_begin_ = std::max(last_begin_, w.clock);
  stall_limit_ns_ = std::max(stall_limit_ns_, 100 * cost);
  w.clock += cost;
  w.work_ns += cost;
  if (w.clock > makespan_) makespan_ = w.clock;
  if (queued) {
    if (w.spawn.task_edge(policy::TaskEdge::start) && cfg_.planted_drift != PlantedDrift::credits_kept_at_task_start)
      w.credits = 0;
  } else {
    ++w.inlined;
  }
  // Executor::execute_foreign: a task of another process. An escaping one
  // (no joins: UTS) counts in this worker's foreign proxy of its scope and
  // completes there; a joined one reports back itself.
  bool foreign = queued && multi_rank_ && origin_rank(t.scope) != w.rank;
  int scope = t.scope;
  if (foreign && !W::kJoins) {
    scope = adopt_foreign(w, t.scope);
    foreign = false;
  }
  if (W::empty(cursor)) {
    --outstanding_;  // the task is done
    if (queued) end_queued(w, scope, foreign);
  } else {
    // Executor::execute: a queued task of this worker's keeps its generation,
    // any other (stolen, pushed) starts at 0; an inline one inherits.
    const std::uint32_t levels = queued ? (t.spawner == w.id ? t.levels : 0)
                                        : (w.stack.empty() ? 0 : w.stack.back().levels);
    Frame f{cursor, queued, levels, queued};  // outstanding: the task became a frame
    f.scope = queued ? scope : kNoScope;
    f.depth = queued ? t.depth : (w.stack.empty() ? 0 : w.stack.back().depth + 1);
    f.foreign = foreign;
    if constexpr (!W::kJoins) {
      // Escaping asyncs count in the task's own scope (the IEF it received,
      // or, for a task of another process, this worker's foreign proxy),
      // an inline task's in its parent's.
      f.ief = queued ? scope : w.stack.back().ief;
    }
    w.stack.push_back(f);
    if (queued) ++w.depth;
  }
}

// A queued task ended (Executor::close_task): the machine's task edge, its
// completion, then the poll that may be due after it.
template <class W>
void Engine<W>::end_queued(Worker& w, int scope, bool foreign) {
  if (w.spawn.task_edge(policy::TaskEdge::end)) w.credits = 0;
  complete(w, scope, foreign);
  if (multi_rank_ && w.spawn.poll_after_task(--w.poll_countdown, w.clock - w.last_poll)) poll(w);
}

template <class W>
void Engine<W>::spawn(Worker& w, const Task& child) {
  ++outstanding_;
  // The inline fast path of heist::spawn (include/heist/heist.hpp).
  if (w.credits > 0 && !w.work_wanted) {
    --w.credits;
    begin(w, child, false);
    return;
  }
  // The slow path: SpawnMachine's steps in their order.
  policy::SpawnEntry entry;
  entry.paced = multi_rank_;
  entry.now_ns = w.clock;
  entry.last_poll_ns = w.last_poll;
  if (w.spawn.enter(entry).poll) poll(w);
  const SpawnPolicy kind = policy::SpawnMachine::kind(spawn_policy_, false, w.remote_asked);
  const policy::FactsWanted wanted = policy::SpawnMachine::wanted(kind, multi_rank_);
  policy::SpawnFacts facts;
  facts.queued = w.deque.size();
  facts.held = facts.queued + static_cast<std::size_t>(w.depth);
  facts.public_tasks = w.deque.public_size();
  facts.inline_frames = static_cast<unsigned>(w.stack.size());
  facts.levels = w.stack.back().levels;
  if (wanted.inlined) facts.inlined = w.inlined;
  if (wanted.idle_workers)
    facts.idle_workers = static_cast<unsigned>(searching_in_rank_[static_cast<std::size_t>(w.rank)]);
  if (w.work_wanted) {
    w.work_wanted = false;
    facts.thief_asked = true;
  }
  // facts.can_expose stays false: continuation stealing is not simulated
  // (heist sim refuses work-first and adaptive), so no expose answer.
  const policy::SpawnPlan plan = w.spawn.decide(kind, facts, {multi_rank_, w.clock, false});
  if (plan.release) w.deque.release();
  if (plan.reroot) {  // the runtime resets its current frame: the nearest one that exists
    std::size_t i = nearest_frame(w);
    w.stack[i].queued_children = 0;
    for (; i < w.stack.size(); ++i) w.stack[i].levels = 0;
  }
  if (plan.action == policy::SpawnAction::run_inline) {
    w.credits = plan.credits;
    begin(w, child, false);
    return;
  }
  if (w.deque.full()) {  // the runtime's begin_push at the deque's maximum: run it now
    begin(w, child, false);
    return;
  }
  // The child is queued (WorkerQueue::end_queue) and counted on the frame
  // its header is written from: a joined child's spawner gets a frame of
  // its own (joined_frame), an escaping one's is the nearest that exists.
  Frame& counted = W::kJoins ? w.stack.back() : w.stack[nearest_frame(w)];
  const std::uint32_t levels = policy::SpawnDecider::child_levels(facts.levels, ++counted.queued_children);
  Task queued{child.node, w.id, task::saturate(levels), children_scope(w, w.stack.back()),
              task::saturate(w.stack.back().depth + 1)};
  if constexpr (W::kJoins) w.stack.back().has_frame = true;  // WorkerQueue::joined_frame
  if (queued.scope != kNoScope) ++scopes_[static_cast<std::size_t>(queued.scope)].pending;
  w.deque.push(queued);
  if (plan.publish == policy::Publish::one) w.deque.publish_one();
  else if (plan.publish == policy::Publish::half) w.deque.release();
  ++w.queued_spawns;
  w.max_queue = std::max<std::uint64_t>(w.max_queue, w.deque.size());
  if (w.spawn.after_queue(w.remote_asked)) {  // a thief of another rank waits for this task
    w.remote_asked = false;
    poll(w);
  }
}

// Runtime::root's body spawns the root task: the slow path's steps on a
// worker that holds nothing, at time 0. The root is queued whatever the plan
// (the simulator has no region body to run it inline in: under --policy
// inline the runtime runs it there), as the body's first queued child.
template <class W>
void Engine<W>::spawn_root(Worker& w) {
  policy::SpawnEntry entry;
  entry.paced = multi_rank_;
  if (w.spawn.enter(entry).poll) poll(w);
  const SpawnPolicy kind = policy::SpawnMachine::kind(spawn_policy_, false, false);
  policy::SpawnFacts facts;
  if (policy::SpawnMachine::wanted(kind, multi_rank_).idle_workers)
    facts.idle_workers = static_cast<unsigned>(searching_in_rank_[static_cast<std::size_t>(w.rank)]);
  const policy::SpawnPlan plan = w.spawn.decide(kind, facts, {multi_rank_, 0.0, false});
  if (plan.action == policy::SpawnAction::run_inline) w.credits = plan.credits;
  w.deque.push(Task{wl_.root(), w.id, policy::SpawnDecider::child_levels(0, 1), kNoScope, 1});
  if (plan.publish == policy::Publish::one) w.deque.publish_one();
  else if (plan.publish == policy::Publish::half) w.deque.release();
}

template <class W>
void Engine<W>::go_idle(Worker& w) {
  if (!w.foreign_proxies.empty()) seal_foreign_proxies(w);  // out of own tasks (Joins::seal_proxies)
  w.search_since = w.clock;
  const bool waiting = !w.stack.empty() || w.id == machine_.first_worker(w.rank);  // the limits it backs off within
  w.loop.emplace(w.search, waiting, multi_rank_);  // a new help loop
  w.pending.reset();
  // A waiting worker searches until its wait is over (start_attempt).
  // A worker with no victim searches only across processes, where its
  // loop's failures bring the poll rounds that deliver pushes and answers.
  if (outstanding_ == 0 || (w.stack.empty() && !w.search.can_steal() && !multi_rank_)) {  // over, or no victim
    schedule(w, Step::idle, w.clock);
    return;
  }
  start_attempt(w, w.clock);
}

}  // namespace heist::sim
