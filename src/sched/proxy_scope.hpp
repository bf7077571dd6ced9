// ProxyScope: a worker's stand-in for a finish scope another context owns.
//
// Why: every async registers with its IEF (its immediately enclosing
// finish). A traversal under one finish (UTS) has one scope for all its
// tasks, owned by the worker that opened it; a task run on any other worker
// used to pay two read-modify-writes on that scope's counter, one cache
// line for all workers, which then bounced between them on every task.
//
// What: when a worker runs an async whose IEF S it does not own (it stole
// the task, or the task's spawner ran elsewhere), it opens a proxy P, owned
// by itself, with parent S, and runs the task with P as its IEF and
// completion scope. The task and every async registered with P while P is
// open count with plain owner increments (FinishScope::local), however many
// there are; a task of P that another worker steals runs under that worker's
// own proxy, whose drain is one remote completion of P. S sees one
// completion for the whole subtree: P's, when P has drained.
//
// Protocol (states in FinishScope::proxy):
//  * open (kOpenProxy): only the owner worker registers and completes with
//    `local`; other workers complete with `remote` (fetch_sub, as for any
//    scope). The task that opened P is counted (local starts at 1), so P
//    cannot drain while it runs.
//  * sealed (kSealedProxy): the owner seals all its open proxies when it
//    runs out of tasks (its deque empty, before it steals: Joins::
//    seal_proxies). Sealing folds `local` into `remote` and adds kWaiting in
//    one fetch_add, as a suspending owner does (sched/continuations.hpp);
//    from then on everybody, the owner included, counts with `remote`.
//  * drained: the read-modify-write that leaves `remote` at exactly
//    kWaiting (the seal itself, or the last completion after it) completes
//    S once and deletes P. Exactly one RMW can do so: values only reach
//    kWaiting after the seal added it, and a registration after the seal
//    (the opening task still running) raises the value first.
// Latency: P drains no earlier than its owner's next empty deque. Waits are
// not affected: a waiting worker that runs out of tasks seals before it
// steals; a busy owner delays only S's own finish, which needs that owner's
// tasks done anyway unless they belong to other scopes.
//
// Memory orders: owner fields are owner-only. The seal is acq_rel: release
// publishes the proxy's state and the results of the tasks counted in
// `local`; acquire orders it after remote completions already applied.
// Remote completions are acq_rel as for any scope (Joins::complete), so the
// RMW that drains P has seen every task's results before it completes S
// with its own release.
// Owner: a proxy belongs to a worker (Joins::proxy_owner_), not to the
// stack it was opened on (FinishScope::owner names a stack for every other
// scope). On fibers a task's body may end on another worker (a thief
// resumed its continuation, or its wait suspended and resumed there), and
// the stack moves with it; the proxy stays with the worker whose deque
// seals it. Whoever else completes or registers with it (that other
// worker included) uses `remote`, as for a stolen task of the proxy.
//
// ForeignProxy: the same stand-in for a finish scope of another process.
// An escaping task of another rank (no output, no handle) used to run under
// a proxy of its own, which its worker waited for before it sent the
// task's completion: one inbox entry, two blocking round trips, per task
// (UTS T3L on 16 simulated nodes of 24 cores: 891,000 of them, a third of
// the workers' time). Now a worker keeps one open ForeignProxy per scope
// of another process it runs tasks of (Joins::adopt_foreign): each such
// task adds one to `adopted` and runs with the proxy as its IEF and
// completion scope, like a stolen task under a ProxyScope. It is sealed
// with the worker's other proxies; the RMW that drains it hands it to the
// draining worker (Joins::reports_), which sends one entry completing all
// `adopted` tasks at its next poll or search step (Executor::send_reports)
// and deletes it. Same latency as a ProxyScope: the origin hears of the
// tasks no earlier than this worker's next empty deque; a wait across
// processes is not delayed, since a joined task, or one with an output or
// a handle, reports back by itself. The first error a task raised travels
// in the report. Memory orders: a ProxyScope's; `adopted` and `error` are
// written by the owner only while the proxy is open or its task still runs,
// before the owner's seal or completion (acq_rel), and read by the drainer
// after the draining RMW (acq_rel, on the same counter): they are visible.
#pragma once

#include <cstdint>
#include <string>

#include "heist/detail/abi.hpp"
#include "task/global_ref.hpp"

namespace heist::sched {

inline constexpr std::uint8_t kNotProxy = 0;
inline constexpr std::uint8_t kOpenProxy = 1;
inline constexpr std::uint8_t kSealedProxy = 2;

struct ProxyScope : detail::FinishScope {
  ProxyScope(int owner_ctx, detail::FinishScope* stands_for) noexcept : ProxyScope(owner_ctx) {
    parent = stands_for;
    policy = stands_for->policy;
  }
  explicit ProxyScope(int owner_ctx) noexcept : parent(nullptr) {
    owner = owner_ctx;
    proxy = kOpenProxy;
    local = 1;  // the task that opens it
  }
  detail::FinishScope* parent;  // completed once, when this proxy drains; null for a ForeignProxy
};

struct ForeignProxy : ProxyScope {
  ForeignProxy(int owner_ctx, task::GlobalRef stands_for) noexcept : ProxyScope(owner_ctx), origin(stands_for) {}
  task::GlobalRef origin;     // the scope on another rank it reports to
  std::uint32_t adopted = 1;  // that rank's tasks it counts (the first opens it)
  std::string error;          // the first error one of them raised (owner-only until it drains)
};

}  // namespace heist::sched
