// Spawn policies (HotSLAW §3 and §5.1, HelpFirst §4): decide at each spawn
// whether the new task is queued (help-first), run inside spawn on the
// spawner's stack (inline), or run on a fresh stack with the spawner's
// continuation exposed to thieves (work-first's continuation stealing).
// Pure logic: the worker passes the facts, the decider answers.
//  * help-first: always queue;
//  * inline: always inline (HotSLAW's library work-first);
//  * bounded: queue while the worker holds fewer than `queue_bound` tasks
//    (HotSLAW's bounded queues: help-first until the queue is full, inline
//    while it is, help-first again as soon as space frees). A HotSLAW slot
//    keeps a task's input and output until the task terminates, so `held`
//    counts the tasks queued plus the queued ones running on the stack.
//    With Options::queue_demand (the default) the worker also inlines while
//    no other worker can use the task (lazy task creation): it queues only
//    while it has fewer public tasks than there are idle workers (at least
//    one) or a thief has asked (then for the next kAskedTasks spawns), and
//    publishes that task at once. Keeping one public task is right for one
//    thief and starves fifteen: at the start of a run on 16 cores the
//    root's first spawns must reach every idle worker, and they are the
//    shallowest, largest tasks there will be. Lazy creation exposes only
//    what the deepest inline frame spawns: a spawn loop suspended under an
//    inline child is not stealable, so on 16 cores UTS T1L's big shallow
//    subtrees stayed with one worker while thieves took tiny deep tasks
//    (efficiency 0.37 measured). So with more than one worker the first
//    `queued_levels` task generations below every stolen (or root) task
//    (counted by child_levels: a node's later children count as deeper)
//    are queued whatever the bound — one kept public (and the next few
//    after a request), the rest private until a thief asks —
//    (SpawnFacts::levels; Options::queued_levels), and a worker asked for
//    work with nothing private left counts its current task as a new top
//    (SpawnStep::reroot): the work it holds in inline frames then reaches
//    thieves a generation at a time;
//  * slaw: SLAW's adaptive switch with inline children: from help-first to
//    inline once F tasks are queued, back to help-first once S frames are
//    active on the stack; the mode is re-evaluated every INT spawns only;
//  * work-first: the child runs first and the parent's continuation is
//    exposed to thieves, Cilk-style, for spawns at inline depth <=
//    expose_depth and for any spawn after a thief asked; other spawns run
//    inline, and their continuation becomes stealable at the next exposure
//    below them (docs/design/continuations.md). With one worker nothing is
//    exposed without a request, so a run costs what inline costs;
//  * adaptive: SLAW's switch between help-first and work-first as above.
// Every policy that runs children on the spawner's stack stops doing so when
// the stack is nearly full (SpawnFacts::inline_budget <= 0): inline, bounded
// and slaw queue instead, adaptive switches to help-first, and work-first —
// which has no other way to run the child first — reports the exhausted
// stack (HelpFirst §5.2: work-first overflows on deep recursions).
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "heist/options.hpp"

namespace heist::policy {

struct SpawnFacts {
  std::size_t held = 0;          // bounded: tasks queued + queued tasks running on this stack
  std::size_t queued = 0;        // tasks in the worker's deque
  std::size_t public_tasks = 0;  // of those, how many thieves can take now
  unsigned inline_frames = 0;    // task bodies nested on the current stack (SLAW's S)
  unsigned depth = 0;            // inline depth of the spawning task (work-first's expose_depth)
  unsigned levels = 0;           // task generations between the spawning task and the stolen (or root) task it
                                 // descends from: queued generations count, inline children inherit their parent's
  bool thief_asked = false;      // a thief found nothing (or took the last task) since the last decision
  unsigned idle_workers = 0;     // workers of this process looking for work (a hint: read without ordering)
  bool can_expose = false;       // the child may run on a fresh fiber with the continuation exposed
  bool many_workers = false;     // another worker could take an exposed continuation
  std::int64_t inline_budget = std::int64_t{1} << 40;  // inline levels the stack can still take
  std::uint64_t inlined = 0;      // spawns this worker has run inline so far (paced grants time them)
};

enum class SpawnAction {
  queue,            // push into the private part of the deque
  queue_public,     // push and publish at once (it is for a thief)
  run_inline,       // run inside spawn, on this stack
  expose,           // run on a fresh fiber; the spawner's continuation goes to the deque, public
  stack_exhausted,  // work-first cannot run the child: the stack is full
};

class SpawnDecider {
 public:
  // Spawns queued after a thief asks: one for the asker, the rest so the
  // next request finds work at once.
  static constexpr int kAskedTasks = 4;
  // Top-level tasks a worker may hold past the bound (see bounded()).
  static constexpr std::size_t kTopLevelHeld = 4096;

  // The generation count of a queued child (TaskHeader::levels): its
  // spawner's, plus 1 for the spawner's first queued child, 2 for its 2nd
  // and 3rd, 3 for its 4th to 7th, ... (bit_width(nth)). A node's later
  // children, the ones its own worker pops first (LIFO), thus queue fewer
  // generations below them: --queued-levels L exposes about 2^L tasks below
  // a stolen one whatever the tree's branching, where one generation per
  // child exposed b + b^2 + ... + b^L (nqueens' ten children a node against
  // fib's two: with the old count, enough for fib queued thousands of
  // nqueens tasks below every steal, and enough for nqueens starved fib).
  // Measured in the simulator: docs/design/work-between-processes.md.
  static constexpr std::uint32_t child_levels(std::uint32_t levels, std::uint32_t nth) noexcept {
    return levels + static_cast<std::uint32_t>(std::bit_width(nth));
  }

  // --queued-levels auto in one process of `workers`: none for one worker
  // (no thief), then one more generation for every factor of 4, and two
  // more from 4 workers on for the bit_width steps of child_levels: 1 level
  // for 2-3, 4 for 4-15, 5 for 16-63, 7 for 256, 9 for 4,096. Two workers
  // need the level: without it UTS T1L's thief took hundreds of thousands
  // of small tasks from the deepest inline frame, one at a time
  // (docs/design/work-between-processes.md). One level is the same
  // under either step (every child of a stolen task is queued, none below).
  static unsigned auto_queued_levels(int workers) noexcept { return widened(generations(workers)); }
  // --queued-levels auto in a run of `processes` processes of
  // `process_workers` workers: what one process needs for its own thieves,
  // plus one generation for the other processes — a steal between processes
  // takes half of what the victim's process offers (the default chunk,
  // hcs:1,node=half) and feeds the thief's whole process, so the other
  // processes' workers need no task each — at least what one worker per
  // process needs, and at least 2: a thief of another process sees only what
  // the victim releases when it polls, the older half of its deque, and one
  // generation below a stolen task leaves one task there (its sibling runs),
  // after which the victim can offer only its deepest spawns; then two more
  // for child_levels' steps. Sized by the run's workers instead, large
  // machines queued too many generations and small ones too few
  // (docs/design/work-between-processes.md).
  static unsigned auto_queued_levels(int process_workers, int processes) noexcept {
    if (processes <= 1) return auto_queued_levels(process_workers);
    return widened(std::max({generations(process_workers) + 1, generations(processes), 2u}));
  }

  // The run: `processes` processes of `process_workers` workers (sizes --queued-levels auto).
  SpawnDecider(const Options& o, int process_workers, int processes = 1) noexcept
      : bound_(static_cast<std::size_t>(o.queue_bound)),
        demand_(o.queue_demand),
        configured_levels_(o.queued_levels),
        slaw_s_(static_cast<unsigned>(o.slaw_stack_frames)),
        slaw_f_(static_cast<std::size_t>(o.slaw_queue_tasks)),
        slaw_int_(static_cast<unsigned>(o.slaw_interval)),
        expose_depth_(static_cast<unsigned>(o.expose_depth)) {
    size_run(process_workers, processes);
  }

  // The run's shape is known (between processes): sizes --queued-levels auto.
  void size_run(int process_workers, int processes = 1) noexcept {
    queued_levels_ = configured_levels_ >= 0 ? static_cast<unsigned>(configured_levels_)
                                             : auto_queued_levels(process_workers, processes);
  }
  unsigned queued_levels() const noexcept { return queued_levels_; }

  SpawnAction decide(SpawnPolicy kind, const SpawnFacts& f) noexcept {
    if (f.thief_asked) asked_ = kAskedTasks;
    credits_ = 0;
    reroot_ = false;
    top_level_ = false;
    const bool stack_room = f.inline_budget > 0;
    switch (kind) {
      case SpawnPolicy::help_first: return SpawnAction::queue;
      case SpawnPolicy::inline_child:
        if (!stack_room) return SpawnAction::queue;
        credits_ = std::min(kInlineCredits, f.inline_budget);
        return SpawnAction::run_inline;
      case SpawnPolicy::bounded: {
        const SpawnAction a = bounded(f);
        if (a != SpawnAction::run_inline) return a;
        if (!stack_room) return SpawnAction::queue;
        credits_ = std::min(kBoundedCredits, f.inline_budget);
        return a;
      }
      case SpawnPolicy::slaw:
        // SLAW counts every spawn, so it grants no credits.
        if (slaw(f) || !stack_room) return SpawnAction::queue;
        return SpawnAction::run_inline;
      case SpawnPolicy::work_first: return work_first(f, kInlineCredits);
      case SpawnPolicy::adaptive: {
        const bool help_first = slaw(f);
        if (!stack_room) slaw_help_first_ = true;  // like S: the stack is full
        if (help_first || !stack_room) return SpawnAction::queue;
        // Work-first until the next re-evaluation: INT spawns in all, this one included.
        const SpawnAction a = work_first(f, static_cast<std::int64_t>(slaw_int_ - since_eval_));
        if (a == SpawnAction::run_inline) since_eval_ = slaw_int_;  // the credits cover the rest of the interval
        return a;
      }
    }
    return SpawnAction::queue;
  }

  // After a run_inline answer, how many further spawns may run inline
  // without asking again (the runtime's fast path spends them).
  std::int64_t inline_credits() const noexcept { return credits_; }
  // After a run_inline answer: the answer stands until a thief asks or the
  // stack is full, so a fast path that only tests those two (and counts no
  // spawn) decides as this policy would. inline always inlines; bounded
  // with demand on inlines until demand: a thief raises work_wanted when it
  // finds nothing public or takes the last public task, and a spawn at a
  // queued generation (SpawnFacts::levels) never gets here, as inline
  // children inherit their parent's generation. bounded without demand
  // queues again once thieves took tasks from a full queue, which only its
  // next look sees; slaw counts every spawn; work-first exposes by depth.
  bool inline_until_asked(SpawnPolicy kind) const noexcept {
    return kind == SpawnPolicy::inline_child || (kind == SpawnPolicy::bounded && demand_);
  }

  bool slaw_help_first() const noexcept { return slaw_help_first_; }
  // The last decision asks the caller to count the spawning task's
  // generations from 0 again (bounded with --queued-levels).
  bool reroot() const noexcept { return reroot_; }
  // The last decision queued one of the --queued-levels generations.
  bool top_level() const noexcept { return top_level_; }

 private:
  static constexpr std::int64_t kInlineCredits = std::int64_t{1} << 40;

  // One generation a child (the count before child_levels' steps): one
  // level for 2-3 workers, one more for every factor of 4.
  static unsigned generations(int workers) noexcept {
    if (workers <= 1) return 0;
    unsigned levels = 1;
    for (int w = workers; w >= 4; w /= 4) ++levels;
    return levels;
  }
  // The same exposure under child_levels' steps: two generations more, but
  // for one (identical under either step).
  static unsigned widened(unsigned levels) noexcept { return levels >= 2 ? levels + 2 : levels; }
  // Inline spawns between two of bounded's looks at its queue, in one
  // process. A look is the slow path, the cost of several inline spawns. A
  // thief does not wait for one: finding nothing public, or taking the last
  // public task, it raises work_wanted, which the fast path tests on every
  // spawn. So the grant is large (docs/design/spawn-fast-path-and-context.md).
  // Runs across processes poll on the same path: SpawnDriver grants them 256.
  static constexpr std::int64_t kBoundedCredits = 1024;

  SpawnAction work_first(const SpawnFacts& f, std::int64_t credits) noexcept {
    if (f.can_expose && (f.thief_asked || (f.many_workers && f.depth <= expose_depth_))) return SpawnAction::expose;
    if (f.inline_budget <= 0) return SpawnAction::stack_exhausted;
    credits_ = std::max<std::int64_t>(0, std::min(credits - 1, f.inline_budget));
    return SpawnAction::run_inline;
  }

  SpawnAction bounded(const SpawnFacts& f) noexcept {
    if (demand_ && queued_levels_ > 0) {
      // A thief asked and nothing private is left to publish: the work
      // this worker holds is in its inline frames, out of reach. The
      // spawning task becomes a new top, so its next generations are
      // queued for thieves (UTS T2L on 16 cores: one worker ran half the
      // tree alone without this).
      reroot_ = f.thief_asked && f.queued == f.public_tasks;
      // The top levels below a stolen task are queued whatever the bound
      // (up to kTopLevelHeld): a spawn loop cannot be stolen while a child
      // runs inline, so a loop that inlines past the bound hides every
      // later, shallower child behind the first one's subtree.
      // One of them is kept public (and the next few after a request):
      // all private, a producer's next producer (bpc) waited for a failed
      // steal and a pop to be released while the thief backed off. One per
      // idle worker, as below, published more across simulated nodes for no
      // gain (fib(30) on 4 nodes of 16).
      if (f.levels < queued_levels_ && f.held < std::max(bound_, kTopLevelHeld)) {
        top_level_ = true;
        return asked() || f.public_tasks == 0 ? SpawnAction::queue_public : SpawnAction::queue;
      }
    }
    if (f.held >= bound_) return SpawnAction::run_inline;
    if (!demand_) return SpawnAction::queue;
    return demanded(f) ? SpawnAction::queue_public : SpawnAction::run_inline;
  }

  // A thief asked: this is one of the next kAskedTasks spawns.
  bool asked() noexcept {
    if (asked_ == 0) return false;
    --asked_;
    return true;
  }
  // Lazy task creation's demand: a thief asked, or fewer tasks are public
  // than workers look for work (at least one).
  bool demanded(const SpawnFacts& f) noexcept {
    return asked() || f.public_tasks < std::max<std::size_t>(1, f.idle_workers);
  }

  bool slaw(const SpawnFacts& f) noexcept {
    if (++since_eval_ >= slaw_int_) {
      since_eval_ = 0;
      // Never back to work-first while S frames are active: the stack would
      // grow by up to INT frames per round, without bound.
      if (slaw_help_first_ && f.queued >= slaw_f_ && f.inline_frames < slaw_s_) slaw_help_first_ = false;
      else if (!slaw_help_first_ && f.inline_frames >= slaw_s_) slaw_help_first_ = true;
    }
    return slaw_help_first_;
  }

  std::size_t bound_;
  bool demand_;
  int configured_levels_;  // Options::queued_levels (-1: auto)
  unsigned queued_levels_ = 0;
  unsigned slaw_s_;
  std::size_t slaw_f_;
  unsigned slaw_int_;
  unsigned expose_depth_;
  unsigned since_eval_ = 0;
  bool slaw_help_first_ = true;
  int asked_ = 0;  // spawns still to queue because a thief asked
  std::int64_t credits_ = 0;
  bool reroot_ = false;   // the last decision made the spawning task a new top (SpawnStep::reroot)
  bool top_level_ = false;  // the last decision was about a queued generation
};

}  // namespace heist::policy
