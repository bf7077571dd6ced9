// Joins (worker_joins.hpp): finish-scope counters, wait(), finish, fence,
// handles, the root context and the distributed region (Runtime::root /
// Runtime::pool); every wait helps (worker_loop.hpp) until its condition
// holds.
#include "sched/worker.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

#include "heist/heist.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/task_failure.hpp"
#include "sched/worker_loop.hpp"
#include "task/task_slot.hpp"

namespace heist::sched {

using detail::FinishScope;
using task::GlobalRef;
using task::TaskHeader;

// ---------------------------------------------------------------- counters

Joins::Joins(int id) : root_frame_(id, nullptr, &root_scope_, 0), proxy_owner_(-2 - id) { root_scope_.owner = id; }

void Joins::complete_shared(FinishScope* scope, std::int64_t n) noexcept {
  // A loop, not a recursion: proxies stand for
  // proxies (a task of a proxy stolen by another worker runs under that
  // worker's), and a chain of escaping asyncs stolen back and forth makes a
  // chain of them as long as the steals, which drains in one cascade (a
  // million links on 2 workers under TSan: 98,000 nested calls overflowed
  // the stack).
  for (;;) {
    // release: the task's outputs happen before the owner's acquire sees 0.
    // acquire: the last completion of a scope with a suspended owner reads
    // FinishScope::waiter and resumes it (protocol in sched/continuations.hpp);
    // of a sealed proxy, completes its parent (proxy_scope.hpp).
    if (scope->remote.fetch_sub(n, std::memory_order_acq_rel) != FinishScope::kWaiting + n) return;
    if (scope->proxy != kSealedProxy) {
      owner().conts_->wake(*scope);
      return;
    }
    scope = release_proxy(scope);  // a drained proxy completes its parent
    if (scope == nullptr) return;  // a foreign proxy: reported later
    n = 1;
    if (counts_locally(scope)) {
      scope->local -= n;
      return;
    }
  }
}

ProxyScope* Joins::open_proxy(FinishScope* ief) {
  auto* proxy = new ProxyScope(proxy_owner_, ief);
  open_proxies_.push_back(proxy);
  return proxy;
}

ForeignProxy* Joins::adopt_foreign(GlobalRef origin) {
  for (ForeignProxy* p : open_foreign_) {
    if (p->origin == origin && p->adopted < UINT32_MAX) {  // (a count that would wrap opens another)
      ++p->adopted;
      ++p->local;  // the task, until it ends
      return p;
    }
  }
  auto* proxy = new ForeignProxy(proxy_owner_, origin);
  open_foreign_.push_back(proxy);
  return proxy;
}

void Joins::seal_proxies() noexcept {
  const auto seal = [this](ProxyScope* p) {
    p->proxy = kSealedProxy;
    const std::int64_t folded = p->local + FinishScope::kWaiting;
    p->local = 0;
    // acq_rel: see proxy_scope.hpp (publishes the seal and the local tasks'
    // results; follows the remote completions applied so far).
    if (p->remote.fetch_add(folded, std::memory_order_acq_rel) + folded == FinishScope::kWaiting)
      if (FinishScope* parent = release_proxy(p)) complete(parent);
  };
  for (ProxyScope* p : open_proxies_) seal(p);
  open_proxies_.clear();
  for (ForeignProxy* p : open_foreign_) seal(p);
  open_foreign_.clear();
}

FinishScope* Joins::release_proxy(FinishScope* scope) noexcept {
  auto* proxy = static_cast<ProxyScope*>(scope);
  FinishScope* parent = proxy->parent;
  if (parent == nullptr) {
    reports_.push_back(static_cast<ForeignProxy*>(proxy));  // its owner's thread, or a completing worker's
    return nullptr;
  }
  // Its tasks' failure is the scope's it stands for, before the completion
  // that this drain makes there (task_failure.hpp).
  if (std::exception_ptr failure = take_failure(*proxy)) record_failure(*parent, std::move(failure));
  delete proxy;
  return parent;
}

// ---------------------------------------------------------------- joining

void Joins::enter_region() noexcept {
  Scheduler& sched = owner().sched_;
  if (!sched.active()) {
    owner().active_since_ns_ = platform::now_ns();
    sched.activate();
  }
}

void Joins::leave_region() {
  if (!owner().at_top_level()) return;
  settle_region();
  owner().sched_.rethrow_task_exception();
  // The asyncs spawned outside every finish: the root scope governs them.
  if (root_scope_.drained_for_owner())
    if (std::exception_ptr failure = take_failure(root_scope_)) std::rethrow_exception(failure);
}

void Joins::settle_region() noexcept {
  Scheduler& sched = owner().sched_;
  if (owner().at_top_level() && root_empty() && sched.active()) {
    sched.deactivate();
    owner().active_ns_ += platform::now_ns() - owner().active_since_ns_;
  }
}

// A wait that raises a joined task's failure (task_failure.hpp): at the
// top level the region ends first, as leave_region would end it.
void Joins::raise(std::exception_ptr failure) {
  settle_region();
  std::rethrow_exception(std::move(failure));
}

void Joins::wait_frame(Frame& f) {
  Worker& w = owner();
  w.dispatch_.help_until(
      [&] {
        if (f.fence) owner().queue_.flush_fence(f);
        return f.joined_drained();
      },
      policy::help_floor(w.sched_.options().waiter_steals, w.remote_region(), f.depth));
}

Worker& Joins::run_own_first(const FinishScope& scope) {
  Worker& w = owner();
  SplitDeque& deque = w.queue_.deque_;
  while (!scope.drained_for_owner()) {
    const std::byte* slot = deque.pop();
    if (slot == nullptr) break;
    w.exec_.execute(slot);  // runs in place
    // A task that waited by suspending may have resumed on another worker.
    if (Worker* now = Worker::resumed(); now != &w) return *now;
  }
  return w;
}

void Joins::wait_current() {
  Frame& f = owner().current_frame();
  if (owner().above_frame == 0) {  // else the task queued no joined child
    wait_frame(f);
    if (std::exception_ptr failure = f.take_failure()) [[unlikely]] raise(std::move(failure));
  }
  leave_region();
}

void Joins::async_failed(std::exception_ptr failure) noexcept {
  if (g_misroute_failures.load(std::memory_order_relaxed)) {  // the differential test's planted fault
    owner().sched_.record_exception(std::move(failure));
    return;
  }
  // The running task's IEF is the async's: a finish scope, the root scope,
  // or a proxy of one, which hands it on when it drains. The task itself is
  // counted there (or is the finish's body), so the scope is not drained.
  record_failure(*owner().current_frame().ief, std::move(failure));
}

void Joins::wait_root() {
  owner().dispatch_.help_until([this] {
    if (root_frame_.fence) owner().queue_.flush_fence(root_frame_);
    return root_empty();
  });
  if (std::exception_ptr failure = root_frame_.take_failure()) raise(std::move(failure));
  leave_region();
}

void Joins::fence_current() {
  Frame& f = owner().queue_.joined_frame();
  if (!f.fence) {
    f.fence = std::make_unique<FenceState>(f.join, owner().ctx_);
    f.fenced = true;
    owner().drop_credits();  // from now on every spawn here takes the slow path (WorkerCore::room)
  }
  f.fence->fence();
}

detail::FrameCore* Joins::finish_begin(int policy) {
  Worker& w = owner();
  const SpawnPolicy outer = w.policy_here();
  FinishRecord& record = w.stack_->finishes.emplace_back(w.ctx_, &w.current_frame(), w.level());
  record.scope.policy = static_cast<std::int8_t>(policy >= 0 ? policy : static_cast<int>(outer));
  if (!w.conts_ && steals_continuations(static_cast<SpawnPolicy>(record.scope.policy))) {
    const SpawnPolicy asked = static_cast<SpawnPolicy>(record.scope.policy);
    w.stack_->finishes.pop_back();
    throw std::logic_error(std::string("heist: finish(") + to_string(asked) +
                           ") steals continuations: run with --continuations on (HEIST_CONTINUATIONS=on) or a "
                           "--policy that steals them (work-first, adaptive)");
  }
  w.set_frame(&record);
  w.drop_credits();  // the scope's policy decides from the next spawn on
  return &record;
}

void Joins::finish_end(detail::FrameCore* core) {
  Worker& w = owner();
  auto& record = static_cast<FinishRecord&>(static_cast<Frame&>(*core));
  if (&record != &w.stack_->finishes.back()) throw std::logic_error("heist: finish scopes closed out of order");
  w.dispatch_.help_until([&] {
    if (record.fence) w.queue_.flush_fence(record);
    return record.joined_drained() && record.scope.drained_for_owner();
  });
  // The first failure of the body's joined children, else of its asyncs.
  std::exception_ptr failure = record.take_failure();
  if (std::exception_ptr async_failure = take_failure(record.scope); !failure) failure = std::move(async_failure);
  w.set_frame(record.parent);
  w.stack_->finishes.pop_back();
  if (failure) [[unlikely]] raise(std::move(failure));
  leave_region();
}

void Joins::wait_sync(detail::SyncNode* node) {
  owner().dispatch_.help_until([this, node] {
    // The task behind the handle may be held by the waiting task's own
    // fence (spawned after it): release it once its generation may start.
    if (Frame& f = owner().current_frame(); f.fence) owner().queue_.flush_fence(f);
    return detail::sync_done(node);
  });
  leave_region();
}

// ---------------------------------------------------------------- distributed regions

void Joins::run_region(void (*body)(void*), void* ctx, bool seed, bool pool) {
  Worker& w = owner();
  if (!w.at_top_level() || !w.stack_->finishes.empty())
    throw std::logic_error("heist: Runtime::root/pool must be called on the runtime's thread, outside tasks and finish");
  enter_region();
  FinishRecord& record = w.stack_->finishes.emplace_back(w.ctx_, &w.current_frame(), w.level());
  w.set_frame(&record);
  std::exception_ptr error;
  if (seed && w.conts_ && !pool) {
    // Under continuation stealing the body runs as a task, on a fiber, so
    // that its continuations can be stolen too (this stack never moves). A
    // pool's seeds are queued from here, as below.
    struct Body {
      void (*run)(void*);
      void* ctx;
      void operator()() const { run(ctx); }
    } task{body, ctx};
    const detail::ClosureOps* ops = &detail::closure_ops<Body>();
    SplitDeque& deque = w.queue_.deque_;
    std::byte* slot = deque.begin_push();  // the deque is empty: there is room
    if (slot == nullptr) throw std::logic_error("heist: no deque slot for the region's body");
    TaskHeader* h = task::write_task(slot, task::kClosureFn,
                                     task::kLocalOnly | task::kUncounted,  // not a task of the program's
                                     nullptr, kClosureObject + sizeof task);
    std::memcpy(task::payload(slot), &ops, sizeof ops);
    std::memcpy(task::payload(slot) + kClosureObject, &task, sizeof task);
    h->completion = GlobalRef::local(w.rank_, &record.scope);
    h->ief = GlobalRef::local(w.rank_, &record.scope);
    enroll(&record.scope);
    deque.end_push();
  } else if (seed) {
    w.queue_.queue_seeds_ = pool;
    w.queue_.grant(0);  // no inline credits left from before: every seed spawn asks decide_spawn()
    try {
      body(ctx);
    } catch (...) {
      error = std::current_exception();
    }
    w.queue_.queue_seeds_ = false;
    // Offer the seeds to the other ranks before running any: otherwise the
    // first poll waits for a task boundary, and a long first task keeps
    // every seed of this process out of reach while it runs.
    if (w.remote_ != nullptr && w.queued() > 0) w.dispatch_.poll_remote();
  }
  w.dispatch_.help_until([&] {
    if (record.fence) w.queue_.flush_fence(record);
    return record.joined_drained() && record.scope.drained_for_owner();
  });
  // The region's finish: the body's exception, else its tasks' first failure.
  if (std::exception_ptr failure = record.take_failure(); failure && !error) error = std::move(failure);
  if (std::exception_ptr failure = take_failure(record.scope); failure && !error) error = std::move(failure);
  w.set_frame(record.parent);
  w.stack_->finishes.pop_back();
  // Not over while this worker holds tasks: region_done reads rank 0's
  // count (a round trip, every 20 us), which a worker running the tasks of
  // its foreign proxies here (proxy_scope.hpp) would pay between tasks.
  if (w.remote_ != nullptr) w.dispatch_.help_until([&w] { return w.queued() == 0 && w.remote_->region_done(w); });
  Scheduler& sched = w.sched_;
  if (sched.active()) {
    sched.deactivate();
    w.active_ns_ += platform::now_ns() - w.active_since_ns_;
  }
  sched.quiesce();  // the other workers parked: no RMA from this process after this
  if (error) sched.record_exception(error);
}

bool Joins::root_empty() noexcept {
  if (owner().depth_ > 0) return false;  // a task is running on this stack
  for (FinishRecord& record : owner().stack_->finishes)
    if (!record.joined_drained() || !record.scope.drained_for_owner()) return false;
  return root_frame_.joined_drained() && root_scope_.drained_for_owner();
}

}  // namespace heist::sched

namespace heist::detail {

// Here, not with the other entries in api/runtime.cpp: sched instantiates
// heist.hpp's inline async paths (WorkerQueue::run_inline), which call it.
void inline_async_failed() noexcept {
  // An async that ran inline threw: its finish raises it (task_failure.hpp),
  // the async call returns. The worker is back at the spawner's level.
  sched::Worker::current()->async_failed(std::current_exception());
}

}  // namespace heist::detail
