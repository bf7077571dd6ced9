// Engine<W>: the discrete-event simulation of heist's scheduler on a modelled
// machine (the sim layer of docs/architecture.md), for one workload type W (sim/workloads.hpp).
//
// What is simulated, and with which code:
//  * every worker runs the task tree depth first (sim/engine_busy.hpp): its
//    spawn slow path is the runtime's policy::SpawnMachine, its search the
//    runtime's policy::SearchDriver (victim, chunk, poll rounds, back-off
//    limits), over a split deque with SplitDeque's semantics (sim_deque.hpp);
//  * between processes, each rank's public queue is a SimWindow driven by the
//    runtime's pure SWS/SDC state machines (src/rma/*_state.hpp), and every
//    decision of a poll (publish, answer, push, release, reclaim) is the
//    runtime's policy::PollPlan (src/policy/poll_plan.hpp).
// Time: a task costs TaskCosts (calibrated); one communication costs the
// machine's latency for the distance (plus bytes / bandwidth); an idle
// worker backs off by platform::backoff_step (or not, --backoff none).
//
// Events, and why a busy worker needs no event per task. A thief's next step
// is an event: the arrival of its communication at the victim (a deque claim
// or a window operation), applied to the victim's state at that simulated
// instant, or a local step (start of an attempt, arrival of stolen tasks).
// Busy workers have no events: the engine advances in rounds. With T the
// earliest thing pending (a thief's event, a message, a busy worker's
// clock) and H = T + lookahead, where the lookahead is half the smallest
// round trip, nothing sent at or after T reaches anyone before H. A round
// (1) processes every event before H in time order, first running the
// victim's tasks up to the event's time, then (2) runs every busy worker's
// tasks — spawning, popping, polling its window — up to H. So each worker's
// state changes in simulated-time order relative to every message that reads
// it, exactly (the last task begun before the bound may run past it: tasks
// are atomic, and children are spawned after the task's own work). One
// approximation: two workers of one process apply their own-window
// operations in processing order, which may differ from time order by less
// than the lookahead.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <unordered_set>
#include <variant>
#include <vector>

#include "platform/backoff.hpp"
#include "platform/rng.hpp"
#include "policy/chunk_policy.hpp"
#include "policy/help_floor.hpp"
#include "policy/poll_plan.hpp"
#include "policy/search_driver.hpp"
#include "policy/search_loop.hpp"
#include "policy/spawn_machine.hpp"
#include "sim/event_heap.hpp"
#include "sim/machine.hpp"
#include "sim/sim_config.hpp"
#include "sim/sim_deque.hpp"
#include "sim/sim_window.hpp"
#include "sim/simulate.hpp"
#include "sim/workloads.hpp"
#include "task/task_slot.hpp"

namespace heist::sim {

// Round `round` of a back-off (platform::backoff_step, with the limits the
// search driver gives: a waiting worker's for a process's first worker,
// which waits in Runtime::root/pool, an idle one's for the others) as
// time: a pause instruction ~20 ns, a sched_yield on an idle core ~1 us,
// and Linux's default 50 us timer slack added to every sleep.
double heist_backoff_ns(unsigned round, const platform::BackoffLimits& limits) noexcept;

template <class W>
class Engine {
 public:
  Engine(const W& workload, const SimConfig& config);
  SimResult run();

 private:
  using Cursor = typename W::Cursor;
  static constexpr int kNoScope = -1;  // nobody waits (the root's finish; an inline task)

  // A task as the deques and windows hold it: the workload's task and what
  // the runtime's TaskHeader says of its generation (task_slot.hpp).
  struct Task {
    typename W::Task node;
    int spawner = -1;         // worker that queued it (TaskHeader::spawner)
    std::uint32_t levels = 0; // generations below a stolen task (TaskHeader::levels)
    int scope = kNoScope;     // the count its completion decrements (TaskHeader::completion)
    std::uint16_t depth = 0;  // in the task tree (TaskHeader::depth): policy::help_floor compares it
  };

  struct Frame {
    Cursor cursor;
    bool queued;               // came through the deque (counts in `depth`)
    std::uint32_t levels;      // SpawnFacts::levels of its spawns
    // The runtime keeps a sched::Frame for it: a queued task, or an inline
    // one that queued a joined child. An inline task without one reads (and
    // a reroot resets) the levels of the nearest frame below it.
    bool has_frame;
    int scope = kNoScope;  // its completion's count (queued tasks; inline ones complete in place)
    bool foreign = false;  // queued by another process: its completion travels back (execute_foreign)
    int join = kNoScope;   // the count it waits for before it ends (its joined children)
    int ief = kNoScope;    // where its escaping asyncs count (their IEF)
    bool waiting = false;  // its wait found children outstanding: a help loop runs above it
    std::uint32_t depth = 0;  // of its task in the tree (sched::Frame::depth)
    std::uint32_t queued_children = 0;  // sched::Frame::queued_children (kept on frames that exist)
  };

  // Joins (sim/engine_joins.hpp). A count of tasks that one frame waits for:
  // a task's joined children (spawn/wait), owned by the waiting frame's
  // worker and freed when that frame ends; or a worker's foreign proxy of a
  // scope of another process, freed when it reports.
  struct Scope {
    std::int64_t pending = 0;
    int owner = -1;          // worker
    double drained_at = -1;  // when pending reached 0 (SimResult::late_resume_s)
    // A foreign proxy (sched/proxy_scope.hpp): counts the escaping tasks of
    // another process's scope `stands_for` that its owner ran (`adopted`)
    // and what they spawned; reports them in one completion once sealed and
    // drained.
    bool proxy = false;
    bool sealed = false;
    int stands_for = kNoScope;
    std::int64_t adopted = 0;
    int suspended = -1;  // suspending waits: the stack suspended on this count (suspended_)
  };
  // Suspending waits (--suspend-waits on; sched::Worker::await_by_suspending):
  // a wait with children outstanding, once its worker's deque is empty,
  // moves the worker's whole stack (its fiber) aside, and the worker goes on with an empty one. The count's last
  // completion makes the stack runnable in the waiter's process (the
  // runtime: a continuation slot in the completer's deque, public, which any
  // worker of the process may take); a worker of that process out of tasks
  // takes it. A fiber switch costs kFiberSwitchNs at each end.
  struct Suspended {
    std::vector<Frame> stack;
    int depth = 0, help_depth = 0, rank = 0;
    double runnable_at = 0;  // when its count drained
    double since = 0;        // when it was suspended (BusyProfile::suspended)
  };
  static constexpr double kFiberSwitchNs = 100;
  // What a worker's pending event is.
  enum class Step : std::uint8_t {
    busy,          // run tasks (no event: the busy list)
    attempt,       // start the next step of the search (after back-off)
    thread_claim,  // its claim reaches a worker's deque in its process
    remote_op,     // its current protocol operation reaches the victim rank's window
    receive,       // stolen tasks arrive in its deque
    poll_round,    // after a round of failed attempts: poll, take back the process's offer
    idle,          // the run is over
  };

  struct Worker {
    Worker(int id_, int rank_, int local, const SimConfig& c, const policy::Topology& topology,
           const policy::SearchSetup& setup);
    int id, rank;
    std::size_t node;     // its node (busy_in_node_)
    double clock = 0;     // busy: time of its next action
    int busy_index = -1;  // position in busy_, or -1
    Step step = Step::idle;
    std::vector<Frame> stack;
    SimDeque<Task> deque;
    std::vector<std::pair<int, int>> foreign_proxies;  // open: (scope of another process, its proxy here)
    policy::SpawnMachine spawn;  // the spawn slow path's steps (the runtime's WorkerQueue::spawn_)
    std::int64_t credits = 0;  // inline fast-path spawns left (the runtime's -room)
    bool work_wanted = false;  // a thief found nothing public (WorkerCore::work_wanted)
    int asked = -1;            // success-only: the rank its last request went to (PerWorker::asked)
    bool remote_asked = false; // another rank asked: poll right after the next queued spawn
    int depth = 0;             // queued tasks on the stack (bounded policy's `held`)
    int help_depth = 0;        // frames waiting under a help loop (Worker::help_depth_ less the outer loop)
    int poll_countdown;
    double last_poll = 0;      // paced polling of the spawn slow path (SpawnMachine::enter)
    std::uint32_t load = 0;    // as of its last poll: queued tasks, plus the one it runs
    // search (policy::SearchDriver)
    policy::SearchDriver search;
    platform::Rng remote_rng;  // success-only rank choice (Distributor's per-worker rng)
    // The help loop running now: its order of steps, its back-off round
    // (a new loop each time the worker runs out of tasks: go_idle).
    std::optional<policy::SearchLoop> loop;
    double search_since = 0;   // went idle
    double idle_from = 0;      // out of tasks since (the busy profile's; search_since leaves out steals)
    double attempt_start = 0;  // current attempt began
    double remote_since = -1;  // its steal from another process began (BusyProfile::remote); -1: none
    // the attempt in flight: loop->step()
    std::optional<policy::SearchAction> pending;  // the next iteration's first answer, drawn at its pause
    int target = -1;           // victim worker (thread claim) or rank (remote)
    Hop hop = Hop::self;
    bool holds_token = false;  // --remote-steal sequential: this worker is its process's remote thief
    std::optional<policy::SwsSteal> sws;
    std::optional<policy::SdcSteal> sdc;
    int polls = 0;
    std::unordered_set<int> empty_targets;  // SWS damping: ranks in empty mode
    std::vector<Task> incoming;             // claimed tasks on their way
    // statistics
    std::uint64_t executed = 0, inlined = 0, queued_spawns = 0, max_queue = 0;
    double work_ns = 0, search_ns = 0, steal_ns = 0;
  };

  // A task's completion on its way to the count it decrements: from another
  // worker of the process (a store to the scope's cache line), or into the
  // origin process's completion inbox (applied by its next poll).
  struct Completion {
    int scope;
    bool inbox;
    std::int64_t count = 1;  // tasks it completes (a foreign proxy reports all it adopted)
    double landed = 0;       // in an inbox: when it arrived
    int from = -1;           // in an inbox: the sender's rank (its lane there)
  };

  // A batch of tasks in a process's mailbox (success-only answers, pushes).
  struct Mail {
    int from;
    bool answer;  // to a request (else a push)
    std::vector<Task> tasks;
  };
  // One process: its window, and its success-only / push state.
  struct Process {
    Process(StealProtocolKind protocol, std::uint32_t slots, int ranks) : window(protocol, slots), requests(ranks) {}
    SimWindow<Task> window;
    double reserved_until = 0;       // its offer is reserved for other ranks' thieves until then
    bool remote_busy = false;        // --remote-steal sequential: a worker is stealing remotely
    policy::RequestBook requests;    // requests of other ranks (victim side)
    std::vector<int> requested;      // ranks it has a request queued at (thief side)
    std::deque<Mail> mailbox;        // delivered, not yet drained
    std::vector<Completion> inbox;  // completions of its tasks run elsewhere: not yet drained
    std::uint32_t published = policy::kNothingPublished;  // load last written to the boards
    policy::Pacer<double> push_pacer;
  };

  // Something that lands at a rank at a time: a thief's non-blocking
  // completion (SWS/SDC), a success-only request, a mailbox batch, or a
  // task's completion.
  struct Message {
    double time;
    std::uint64_t seq;
    int rank;  // where it lands
    int from;  // request: the requesting rank
    std::variant<policy::SwsSteal, policy::SdcSteal, int, Completion> what;  // int: a request (-1) or a Mail index
    friend bool operator>(const Message& a, const Message& b) noexcept {
      return a.time != b.time ? a.time > b.time : a.seq > b.seq;
    }
  };

  // ---- suspending waits (engine_joins.hpp) ----
  void suspend(Worker& w, int join);
  // Takes a runnable stack of w's process, if one was ready at `at`: w runs it from then on.
  bool resume_suspended(Worker& w, double at);
  bool runnable_here(const Worker& w) const noexcept {
    return suspends_ && !runnable_[static_cast<std::size_t>(w.rank)].empty();
  }
  // ---- busy path (engine.hpp) ----
  void run_busy(Worker& w, double bound);
  void begin(Worker& w, const Task& t, bool queued);
  void spawn(Worker& w, const Task& child);
  void go_idle(Worker& w);
  // ---- joins (engine_joins.hpp) ----
  int open_scope(const Worker& w);
  int children_scope(Worker& w, Frame& f);
  // The runtime's current frame on w (Worker::current_frame): the nearest
  // task on its stack that has a sched::Frame.
  static std::size_t nearest_frame(const Worker& w) noexcept {
    std::size_t i = w.stack.size() - 1;
    while (i > 0 && !w.stack[i].has_frame) --i;
    return i;
  }
  int origin_rank(int scope) const;
  bool end_frame(Worker& w);
  void complete(Worker& w, int scope, bool foreign);
  void end_queued(Worker& w, int scope, bool foreign);
  void spawn_root(Worker& w);
  int adopt_foreign(Worker& w, int scope);
  void seal_foreign_proxies(Worker& w);
  void send_proxy(int proxy, double t, Worker* sender);
  void count_down(int scope, double t, std::int64_t n = 1);  // at time t
  void drain_inbox(Process& proc, OwnerOps& ops, double t, bool posted_read);
  bool wait_over(const Worker& w) const;
  // ---- owner side of the process (engine_window.hpp) ----
  void poll(Worker& w);
  bool poll_owner_part(Worker& w, Process& proc);
  void want_work(Worker& w);
  std::uint32_t release_from(Worker& w, Process& proc, OwnerOps& ops);
  std::optional<std::uint32_t> reclaim(Worker& w);
  void charge(Worker& w, const OwnerOps& ops);
  // ---- thief side (engine_search.hpp) ----
  void start_attempt(Worker& w, double t);
  void search_answer(Worker& w, policy::SearchAction a, double t);
  void steal_failed(Worker& w, double t);
  void launch_thread_claim(Worker& w, double start);
  void apply_thread_claim(Worker& w, double t);
  void apply_remote_op(Worker& w, double t);
  void apply_sws(Worker& w, SimWindow<Task>& win, double t);
  void apply_sdc(Worker& w, SimWindow<Task>& win, double t);
  void issue_remote_op(Worker& w, double t);
  void receive(Worker& w, double t);
  void attempt_failed(Worker& w, double t);
  // A steal from another process ended at t (its answer arrived, or it took
  // nothing): the busy profile's remote share gets its stretch.
  void end_remote(Worker& w, double t) {
    if (w.remote_since < 0) return;
    profile_.remote(w.remote_since, t);
    w.remote_since = -1;
  }
  void poll_round(Worker& w, double t);
  void pause(Worker& w, double t, policy::SearchAction a);
  // The wait a loop's answer asks for (back_off: its round; pause: one pause instruction).
  double wait_ns(const Worker& w, policy::SearchAction a) const;
  // What a waiting worker may take (policy/help_floor.hpp): a wait for
  // joined children (W::kJoins) has a floor at its frame's depth.
  std::int64_t help_floor_of(const Worker& w) const noexcept {
    if (!W::kJoins || w.stack.empty()) return policy::kNoFloor;
    return policy::help_floor(cfg_.options.waiter_steals, multi_rank_, w.stack.back().depth);
  }
  // The driver's next step: to other processes only without a floor.
  // What the search loop's next iteration starts from (Dispatcher::search_view).
  policy::SearchView search_view(const Worker& w) const {
    policy::SearchView v;
    v.within_depth = w.help_depth < cfg_.options.max_help_depth;  // waiting past it: no steal
    v.remote = v.region = multi_rank_;
    v.remote_ok = multi_rank_ && policy::may_leave_process(help_floor_of(w), machine_.workers_per_rank());
    return v;
  }
  void become_busy(Worker& w, double t);
  void release_token(Worker& w);
  void deliver(Message& m);
  // ---- success-only and push (engine_mailbox.hpp) ----
  void request_across(Worker& w, double t);
  void serve_requests(Worker& w, Process& proc);
  void publish_load(Worker& w, Process& proc, std::uint32_t load);
  void push_step(Worker& w, Process& proc);
  // A batch of this poll's mailbox round: up to n of w's oldest tasks for target; false if none.
  bool take_batch(Worker& w, int target, bool answer, std::uint32_t n);
  void send_round(Worker& w, bool answers);  // AnswerSlots::send or TaskMailbox::send_round of the batches taken
  // Worker::siblings_public / collect_from_siblings: a success-only answer
  // draws on the whole process (PollPlan::answer_size).
  std::size_t siblings_public(const Worker& w) const;
  std::uint32_t collect_from_siblings(Worker& w, std::uint32_t max);
  void drain_mailbox(Worker& w, Process& proc);
  std::uint32_t process_load(int rank) const;

  // The worker's next step: busy workers join the busy list (no event),
  // every other step is an event in the heap.
  void schedule(Worker& w, Step s, double time) {
    const auto id = static_cast<std::uint32_t>(w.id);
    // A worker between go_idle and become_busy is searching, as the
    // runtime's Dispatcher::set_searching counts it.
    const auto searching = [](Step step) { return step != Step::busy && step != Step::idle; };
    if (searching(w.step) != searching(s)) searching_in_rank_[static_cast<std::size_t>(w.rank)] += searching(s) ? 1 : -1;
    if (w.step == Step::busy && s != Step::busy) w.idle_from = w.clock;
    if (w.step != Step::busy && s == Step::busy) profile_.idle(w.idle_from, time);
    if (s == Step::busy) {
      heap_.remove(id);
      w.clock = time;
      if (w.busy_index < 0) {
        w.busy_index = static_cast<int>(busy_.size());
        busy_.push_back(w.id);
        ++busy_in_node_[w.node];
      }
    } else {
      leave_busy(w);
      if (s == Step::idle) heap_.remove(id);
      else heap_.set({time, 1u, id});
    }
    w.step = s;
  }
  void leave_busy(Worker& w) {
    if (w.busy_index < 0) return;
    const int last = busy_.back();
    busy_[static_cast<std::size_t>(w.busy_index)] = last;
    workers_[static_cast<std::size_t>(last)].busy_index = w.busy_index;
    busy_.pop_back();
    w.busy_index = -1;
    --busy_in_node_[w.node];
  }
  // Runs a busy worker's tasks up to time t (before a message reaches it).
  void advance(Worker& w, double t) {
    if (w.step == Step::busy && w.clock < t) run_busy(w, t);
  }
  void advance_rank(int rank, double t) {
    const int first = machine_.first_worker(rank);
    for (int i = first; i < first + machine_.workers_per_rank(); ++i) advance(workers_[static_cast<std::size_t>(i)], t);
  }
  // A free element of `items` (listed in `free`), or a new one: its index.
  template <class T>
  static int take_slot(std::vector<T>& items, std::vector<int>& free) {
    if (free.empty()) {
      items.emplace_back();
      return static_cast<int>(items.size()) - 1;
    }
    const int index = free.back();
    free.pop_back();
    return index;
  }
  void post(double time, int rank, int from, std::variant<policy::SwsSteal, policy::SdcSteal, int, Completion> what) {
    messages_.push({time, message_seq_++, rank, from, std::move(what)});
  }
  StealCounts& counts(policy::Level level, bool remote) {
    return (remote ? result_.remote_steals : result_.thread_steals)[static_cast<std::size_t>(policy::index(level))];
  }
  // Another rank is on this node or another.
  policy::Level level_of(int from_rank, int rank) const noexcept {
    return policy::rank_level(machine_.node_of(machine_.first_worker(from_rank)) ==
                              machine_.node_of(machine_.first_worker(rank)));
  }
  double latency_to_rank(int from_worker, int rank) const noexcept {
    return machine_.latency_ns(machine_.hop_to_rank(from_worker, rank));
  }

  const W& wl_;
  SimConfig cfg_;
  Machine machine_;
  policy::Topology topology_;
  policy::ChunkPolicy chunk_;
  SpawnPolicy spawn_policy_;
  std::size_t task_bytes_;  // bytes of a task a thread steal copies (header + input)
  std::size_t slot_bytes_;  // bytes of a window slot a remote steal copies (the slot stride)
  double lookahead_;
  double reacquire_delay_ns_;
  bool multi_rank_;
  policy::PollPlan plan_;   // the decisions between processes (policy::plan_locality)
  std::vector<Worker> workers_;
  std::vector<Process> procs_;
  std::vector<std::uint32_t> board_;  // every rank's published load (success-only, push)
  std::vector<Mail> mails_;           // batches in flight or in mailboxes, by index
  std::vector<int> free_mails_;
  std::vector<std::pair<int, int>> round_;  // (target, mail index) of the round being built
  WorkerHeap heap_;        // the pending step of every worker that is not busy
  std::vector<int> busy_;  // busy workers (order: deterministic, by history)
  std::vector<int> busy_in_node_;  // busy workers of each node (Machine::compute_factor)
  std::vector<int> searching_in_rank_;  // workers of each rank looking for work (SpawnFacts::idle_workers)
  BusyProfile profile_;
  std::priority_queue<Message, std::vector<Message>, std::greater<Message>> messages_;
  std::uint64_t message_seq_ = 0;
  std::uint64_t outstanding_ = 0;  // tasks created but not begun, plus open frames
  double busy_min_ = std::numeric_limits<double>::infinity();  // earliest busy clock after the last round
  double makespan_ = 0;
  double last_begin_ = 0;           // latest time a task began
  double stall_limit_ns_ = 10e9;    // no task starting for this long: a livelock
  SimResult result_;
  std::vector<Task> buffer_, returned_;
  std::vector<Suspended> suspended_;  // by id; free ones listed in free_suspended_
  std::vector<int> free_suspended_;
  std::vector<std::deque<int>> runnable_;  // per rank: suspended stacks whose count drained, oldest first
  bool suspends_ = false;                  // --suspend-waits on
  std::vector<Scope> scopes_;   // by id; free ones listed in free_scopes_
  std::vector<int> free_scopes_;
  std::vector<int> inbox_lanes_;  // drain_inbox's scratch: the senders with entries
  std::vector<std::uint32_t> advertised_;  // scratch: the board as a thief reads it
};

// ---------------------------------------------------------------- construction

template <class W>
Engine<W>::Worker::Worker(int id_, int rank_, int local, const SimConfig& c, const policy::Topology& topology,
                          const policy::SearchSetup& setup)
    : id(id_),
      rank(rank_),
      node(static_cast<std::size_t>(id_ / c.machine.cores_per_node())),
      deque(c.options.deque_max_tasks),
      spawn(c.options, c.machine.workers_per_rank(), c.machine.ranks()),
      poll_countdown(c.options.poll_interval),
      search(c.options, topology, setup),
      remote_rng(c.options.seed * 1'000'003 + static_cast<std::uint64_t>(rank_) * 4099 + static_cast<std::uint64_t>(local)) {
  if (c.decision_logs != nullptr) {
    policy::DecisionLog& log = (*c.decision_logs)[static_cast<std::size_t>(id_)];
    spawn.record_to(&log);
    search.record_to(&log);
  }
}

template <class W>
Engine<W>::Engine(const W& workload, const SimConfig& config)
    : wl_(workload),
      cfg_(config),
      machine_(config.machine),
      topology_(search_topology(machine_, config.options)),
      chunk_(config.options.chunk),
      spawn_policy_(config.options.policy),
      task_bytes_(sizeof(task::TaskHeader) + workload.input_bytes()),
      slot_bytes_(task::slot_stride(config.options.task_input_bytes)),
      lookahead_(machine_.min_one_way_ns()),
      reacquire_delay_ns_(config.options.reacquire_delay_us * 1000.0),
      multi_rank_(machine_.ranks() > 1),
      heap_(static_cast<std::uint32_t>(machine_.workers())) {
  cfg_.costs.validate();
  cfg_.options.validate();
  profile_ = BusyProfile(cfg_.busy_buckets);
  if (workload.input_bytes() > cfg_.options.task_input_bytes)
    throw std::invalid_argument("the app's task input does not fit --task-input-bytes");
  const Options& o = cfg_.options;
  plan_ = policy::PollPlan(policy::plan_locality(o, chunk_, machine_.spec().ranks_per_node > 1, machine_.spec().nodes > 1),
                           chunk_, o.mailbox_slots,
                           policy::answer_slots_for(o, static_cast<std::size_t>(machine_.ranks()), slot_bytes_));
  const int n = machine_.workers();
  const int wpr = machine_.workers_per_rank();
  workers_.reserve(static_cast<std::size_t>(n));
  searching_in_rank_.assign(static_cast<std::size_t>(machine_.ranks()), 0);
  // Continuation stealing is not simulated; auto suspends across processes.
  suspends_ = W::kJoins && policy::wait_suspends(policy::resolve_suspend_waits(o.suspend_waits, multi_rank_,
                                                                               o.continuations != ContinuationMode::off),
                                                 false);
  runnable_.resize(static_cast<std::size_t>(machine_.ranks()));
  busy_in_node_.assign(static_cast<std::size_t>(machine_.spec().nodes), 0);
  if (cfg_.decision_logs != nullptr) cfg_.decision_logs->assign(static_cast<std::size_t>(n), {});
  for (int i = 0; i < n; ++i)
    workers_.emplace_back(i, machine_.rank_of(i), i % wpr, cfg_, topology_, search_setup(machine_, i, o));
  if (multi_rank_) {
    procs_.reserve(static_cast<std::size_t>(machine_.ranks()));
    for (int r = 0; r < machine_.ranks(); ++r)
      procs_.emplace_back(o.protocol, static_cast<std::uint32_t>(o.public_queue_slots), machine_.ranks());
    if (plan_.drains_mailbox()) board_.assign(static_cast<std::size_t>(machine_.ranks()), 0);
  }
}

}  // namespace heist::sim

#include "sim/engine_busy.hpp"
#include "sim/engine_run.hpp"
#include "sim/engine_joins.hpp"
#include "sim/engine_mailbox.hpp"
#include "sim/engine_search.hpp"
#include "sim/engine_window.hpp"
