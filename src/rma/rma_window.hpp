// RmaWindow: one process's MPI window (MPI_Win_allocate, passive target,
// MPI_Win_lock_all for the window's whole life) and every one-sided call the
// runtime makes on it, each counted by kind and bytes in the caller's
// CommCounters. The owner reaches its own window through these calls too
// (the rma layer of docs/architecture.md: window memory is touched by MPI calls only).
//
// Atomicity (MPI-3.1 §11.7.1, accumulate_ops = same_op_no_op): concurrent
// accumulate-class calls on one word are atomic only if they all use the same
// op or MPI_NO_OP. Each window word has one update op (see window_layout.hpp);
// reads of words others update are MPI_NO_OP fetches (read(), read_words()).
//
// Completion: calls named *_sync return after MPI_Win_flush(target) — their
// result is valid and their effect visible at the target. put/get/add/replace
// are non-blocking until the caller flushes that target.
//
// Threads: with MPI_THREAD_MULTIPLE calls run concurrently; in serialized mode
// each call (with its flush) holds one process-wide mutex.
// Debug: Options::rma_delay_us injects a random delay before every call, to
// shake out orderings in the stress tests.
// Virtual nodes: set_inter_node_delay() makes every operation (put, get,
// accumulate, fetch-and-op, compare-and-swap; not a flush) whose target is
// on another node wait that long first (--inter-node-delay-us). The thread
// sleeps rather than spins: with more ranks than cores, a spinning thief
// would take the core from the rank that has work, which a real network
// round trip does not.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "heist/stats.hpp"

namespace heist::rma {

// Counted per worker (and per progress thread); summed into WorkerStats.
struct CommCounters {
  std::uint64_t atomics = 0;  // fetch-and-op, compare-and-swap, accumulate
  std::uint64_t gets = 0;
  std::uint64_t puts = 0;
  std::uint64_t flushes = 0;  // blocking completions
  std::uint64_t bytes = 0;    // payload moved by gets and puts (and atomics' operands)
  std::uint64_t lazy_flushes = 0;  // deferred completion of non-blocking calls (not a protocol round trip)
  std::uint64_t inter_node = 0;    // operations whose target is on another node
  std::uint64_t mailbox_rounds = 0;      // TaskMailbox::send_round calls
  std::uint64_t mailbox_full_waits = 0;  // ... that waited for room
  void add_to(WorkerStats& s) const noexcept {
    s.rma_inter_node += inter_node;
    s.rma_atomics += atomics;
    s.rma_gets += gets;
    s.rma_puts += puts;
    s.rma_flushes += flushes;
    s.rma_bytes += bytes;
    s.rma_lazy_flushes += lazy_flushes;
    s.mailbox_rounds += mailbox_rounds;
    s.mailbox_full_waits += mailbox_full_waits;
  }
};

class RmaWindow {
 public:
  // Collective over `comm`: every rank allocates `bytes` (zeroed).
  RmaWindow(MPI_Comm comm, std::size_t bytes, bool serialized, int delay_us, std::uint64_t seed);
  ~RmaWindow();  // collective
  RmaWindow(const RmaWindow&) = delete;
  RmaWindow& operator=(const RmaWindow&) = delete;

  int model() const noexcept { return model_; }  // MPI_WIN_UNIFIED or MPI_WIN_SEPARATE

  // Before the first call: far[target] != 0 for targets on another node.
  void set_inter_node_delay(std::vector<char> far, int delay_us);

  // Atomic, blocking: fetch-and-add / read (MPI_NO_OP) / compare-and-swap.
  std::uint64_t fetch_add_sync(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c);
  std::uint64_t read_sync(int target, MPI_Aint disp, CommCounters& c);
  void read_words_sync(int target, MPI_Aint disp, std::uint64_t* out, int count, CommCounters& c);
  // 32-bit: OpenMPI 4.1's emulated 64-bit compare-and-swap over btl/vader
  // crashes (open-mpi/ompi#7967, #11349); the 32-bit one works there and
  // everywhere else, so lock words are 32 bits wide.
  std::uint32_t cas32_sync(int target, MPI_Aint disp, std::uint32_t compare, std::uint32_t value, CommCounters& c);
  // Atomic, non-blocking fetch-and-add: *old receives the word, the word
  // grows by *value; both must stay valid until a flush of target.
  void fetch_add(int target, MPI_Aint disp, const std::uint64_t* value, std::uint64_t* old, CommCounters& c);
  // Atomic, non-blocking: word += value (MPI_SUM) / word = value (MPI_REPLACE).
  void add(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c);
  void replace(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c);
  // Bytes, non-blocking.
  void put(int target, MPI_Aint disp, const void* data, std::size_t bytes, CommCounters& c);
  void get(int target, MPI_Aint disp, void* data, std::size_t bytes, CommCounters& c);
  void flush(int target, CommCounters& c);
  void flush_all(CommCounters& c);
  // Enter the MPI library so it can progress other ranks' one-sided calls
  // on this process (needed where RMA is not truly one-sided), if `active`
  // still holds once this thread has the serialized-mode lock.
  void poke_progress(MPI_Comm comm, const std::atomic<bool>& active);
  // flag = value under the serialized-mode lock: a poke_progress that starts
  // after this returns sees it, and one that started before has left MPI.
  void store_serialized(std::atomic<bool>& flag, bool value);

 private:
  class Guard;
  bool delay(int target) noexcept;  // true: the target is on another node
  void accumulate(int target, MPI_Aint disp, std::uint64_t value, MPI_Op op, const char* what, CommCounters& c);

  MPI_Win win_ = MPI_WIN_NULL;
  void* base_ = nullptr;
  int model_ = MPI_WIN_UNIFIED;
  bool serialized_;
  int delay_us_;
  std::mutex mutex_;  // serialized mode only
  std::uint64_t seed_;
  std::vector<char> far_;      // [target]: on another node
  std::int64_t far_delay_ns_ = 0;
};

}  // namespace heist::rma
