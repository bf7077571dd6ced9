// StealProtocol: a process's public task queue in its MPI window, and the
// one-sided steal that takes tasks from another process's queue (SWS).
// Two implementations: SdcQueue (Scioto: split queue, deferred copies,
// aborting steals) and SwsQueue (structured atomic: one fetch-and-add claims
// a steal-half block; completion epochs).
//
// Owner operations (release, acquire, progress, dry) run under the process's
// owner lock (Distributor): one thread of the process at a time acts as the
// queue's owner. steal() runs on any thread, concurrently.
// Tasks come and go as slots of `stride` bytes, copied back to back.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "rma/rma_window.hpp"
#include "policy/topology.hpp"

namespace heist::rma {

class StealProtocol {
 public:
  virtual ~StealProtocol() = default;

  // ---- owner (under the owner lock) ----
  // Retire finished steals, then: is nothing left for thieves to take?
  // A protocol that reads its words together with the inbox's posted count
  // (WindowLayout::kPollWords) stores that count in `inbox_posted`; the
  // caller's drain then uses it instead of reading the word again.
  virtual bool dry(CommCounters& c, std::optional<std::uint64_t>& inbox_posted) = 0;
  // Did a thief find this queue empty since the owner last looked (a hint to queue work)?
  virtual bool asked() const noexcept = 0;
  // Tasks the queue can take now (ring room, offer limits).
  virtual std::uint32_t room() const noexcept = 0;
  // Publish n slots. Tasks the protocol hands back at once (SWS phantom
  // skips) are appended to `returned`.
  virtual void release(const std::byte* slots, std::uint32_t n, std::vector<std::byte>& returned,
                       CommCounters& c) = 0;
  // Take back unclaimed public tasks (appended to `out`); returns how many.
  virtual std::uint32_t acquire(std::vector<std::byte>& out, CommCounters& c) = 0;
  // Owner's estimate: tasks may be public.
  virtual bool offering() const noexcept = 0;

  // ---- thief (any thread; `thief` names the stealing agent, unique per rank x worker) ----
  // One steal attempt on `victim`, which meets the thief at `level` (node or
  // machine: the chunk policy may differ); copied slots are appended to `out`.
  virtual std::uint32_t steal(int victim, int thief, policy::Level level, std::vector<std::byte>& out,
                              CommCounters& c) = 0;
};

}  // namespace heist::rma
