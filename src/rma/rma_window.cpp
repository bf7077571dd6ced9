#include "rma/rma_window.hpp"

#include <sys/prctl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <utility>

#include "rma/mpi_session.hpp"
#include "platform/rng.hpp"

namespace heist::rma {

// Holds the serialized-mode lock around one call and its flush.
class RmaWindow::Guard {
 public:
  // target < 0: a call that moves no data (flush, progress): never delayed.
  Guard(RmaWindow& w, int target) : w_(w), far_(w.delay(target)) {
    if (w_.serialized_) w_.mutex_.lock();
  }
  ~Guard() {
    if (w_.serialized_) w_.mutex_.unlock();
  }
  Guard(const Guard&) = delete;
  Guard& operator=(const Guard&) = delete;
  bool far() const noexcept { return far_; }  // the target is on another node

 private:
  RmaWindow& w_;
  bool far_;
};

RmaWindow::RmaWindow(MPI_Comm comm, std::size_t bytes, bool serialized, int delay_us, std::uint64_t seed)
    : serialized_(serialized), delay_us_(delay_us), seed_(seed) {
  MPI_Info info;
  check(MPI_Info_create(&info), "MPI_Info_create");
  // Only MPI_SUM/MPI_REPLACE/MPI_NO_OP/CAS per word, as same_op_no_op requires.
  MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
  const int rc = MPI_Win_allocate(static_cast<MPI_Aint>(bytes), 1, info, comm, &base_, &win_);
  MPI_Info_free(&info);
  if (rc != MPI_SUCCESS) {
    // Possibly on some ranks only, the others waiting inside the collective:
    // throwing here could leave them there, so the job ends.
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    abort_job(comm, rank,
              "MPI_Win_allocate of the public task queue and inbox (" + std::to_string(bytes) +
                  " bytes per rank) failed: " + mpi_error_text(rc) +
                  "; lower --public-queue-slots, --inbox-slots or --task-input-bytes");
  }
  check(MPI_Win_set_errhandler(win_, MPI_ERRORS_RETURN), "MPI_Win_set_errhandler");
  int* model = nullptr;
  int found = 0;
  check(MPI_Win_get_attr(win_, MPI_WIN_MODEL, &model, &found), "MPI_Win_get_attr(MPI_WIN_MODEL)");
  if (found) model_ = *model;
  // The memory is zeroed before anyone can reach it: every rank zeroes its own
  // window before the barrier, and all access after it is through MPI calls.
  // (The only local store to window memory; in the separate model the
  // MPI_Win_sync after lock_all makes it the public copy.)
  std::memset(base_, 0, bytes);
  check(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_), "MPI_Win_lock_all");
  check(MPI_Win_sync(win_), "MPI_Win_sync");
  check(MPI_Barrier(comm), "MPI_Barrier (window creation)");
}

RmaWindow::~RmaWindow() {
  MPI_Win_unlock_all(win_);
  MPI_Win_free(&win_);
}

void RmaWindow::set_inter_node_delay(std::vector<char> far, int delay_us) {
  far_ = std::move(far);
  far_delay_ns_ = std::int64_t{delay_us} * 1000;
}

bool RmaWindow::delay(int target) noexcept {
  const bool far = target >= 0 && !far_.empty() && far_[static_cast<std::size_t>(target)] != 0;
  if (far && far_delay_ns_ > 0) {
    // Sleep: the core stays free for the other ranks, as on a machine with a
    // core per rank. A timer slack of 1 us (default 50) keeps the sleep near D.
    thread_local const bool slack = prctl(PR_SET_TIMERSLACK, 1000UL, 0UL, 0UL, 0UL) == 0;
    (void)slack;
    std::this_thread::sleep_for(std::chrono::nanoseconds(far_delay_ns_));
  }
  if (delay_us_ == 0) return far;
  thread_local platform::Rng rng(seed_ ^ reinterpret_cast<std::uintptr_t>(&rng));
  const auto us = rng.next() % static_cast<std::uint64_t>(delay_us_ + 1);
  if (us != 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
  return far;
}

std::uint64_t RmaWindow::fetch_add_sync(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  std::uint64_t old = 0;
  check(MPI_Fetch_and_op(&value, &old, MPI_UINT64_T, target, disp, MPI_SUM, win_), "MPI_Fetch_and_op(SUM)");
  check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  ++c.atomics;
  ++c.flushes;
  c.bytes += 8;
  return old;
}

void RmaWindow::fetch_add(int target, MPI_Aint disp, const std::uint64_t* value, std::uint64_t* old,
                          CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  check(MPI_Fetch_and_op(value, old, MPI_UINT64_T, target, disp, MPI_SUM, win_), "MPI_Fetch_and_op(SUM)");
  ++c.atomics;
  c.bytes += 8;
}

std::uint64_t RmaWindow::read_sync(int target, MPI_Aint disp, CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  std::uint64_t value = 0;
  check(MPI_Fetch_and_op(nullptr, &value, MPI_UINT64_T, target, disp, MPI_NO_OP, win_), "MPI_Fetch_and_op(NO_OP)");
  check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  ++c.atomics;
  ++c.flushes;
  c.bytes += 8;
  return value;
}

void RmaWindow::read_words_sync(int target, MPI_Aint disp, std::uint64_t* out, int count, CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  check(MPI_Get_accumulate(nullptr, 0, MPI_UINT64_T, out, count, MPI_UINT64_T, target, disp, count, MPI_UINT64_T,
                           MPI_NO_OP, win_),
        "MPI_Get_accumulate(NO_OP)");
  check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  ++c.atomics;
  ++c.flushes;
  c.bytes += 8u * static_cast<unsigned>(count);
}

std::uint32_t RmaWindow::cas32_sync(int target, MPI_Aint disp, std::uint32_t compare, std::uint32_t value,
                                    CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  std::uint32_t old = 0;
  check(MPI_Compare_and_swap(&value, &compare, &old, MPI_UINT32_T, target, disp, win_), "MPI_Compare_and_swap");
  check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  ++c.atomics;
  ++c.flushes;
  c.bytes += 4;
  return old;
}

void RmaWindow::accumulate(int target, MPI_Aint disp, std::uint64_t value, MPI_Op op, const char* what,
                           CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  check(MPI_Accumulate(&value, 1, MPI_UINT64_T, target, disp, 1, MPI_UINT64_T, op, win_), what);
  ++c.atomics;
  c.bytes += 8;
}

void RmaWindow::add(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c) {
  accumulate(target, disp, value, MPI_SUM, "MPI_Accumulate(SUM)", c);
}

void RmaWindow::replace(int target, MPI_Aint disp, std::uint64_t value, CommCounters& c) {
  accumulate(target, disp, value, MPI_REPLACE, "MPI_Accumulate(REPLACE)", c);
}

void RmaWindow::put(int target, MPI_Aint disp, const void* data, std::size_t bytes, CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  check(MPI_Put(data, static_cast<int>(bytes), MPI_BYTE, target, disp, static_cast<int>(bytes), MPI_BYTE, win_),
        "MPI_Put");
  ++c.puts;
  c.bytes += bytes;
}

void RmaWindow::get(int target, MPI_Aint disp, void* data, std::size_t bytes, CommCounters& c) {
  Guard g(*this, target);
  c.inter_node += g.far() ? 1 : 0;
  check(MPI_Get(data, static_cast<int>(bytes), MPI_BYTE, target, disp, static_cast<int>(bytes), MPI_BYTE, win_),
        "MPI_Get");
  ++c.gets;
  c.bytes += bytes;
}

void RmaWindow::flush(int target, CommCounters& c) {
  Guard g(*this, -1);
  check(MPI_Win_flush(target, win_), "MPI_Win_flush");
  ++c.flushes;
}

void RmaWindow::flush_all(CommCounters& c) {
  Guard g(*this, -1);
  check(MPI_Win_flush_all(win_), "MPI_Win_flush_all");
  ++c.flushes;
}

void RmaWindow::poke_progress(MPI_Comm comm, const std::atomic<bool>& active) {
  Guard g(*this, -1);
  if (!active.load(std::memory_order_relaxed)) return;
  int flag = 0;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, MPI_STATUS_IGNORE), "MPI_Iprobe (progress)");
}

void RmaWindow::store_serialized(std::atomic<bool>& flag, bool value) {
  if (!serialized_) {
    flag.store(value, std::memory_order_relaxed);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex_);
  flag.store(value, std::memory_order_relaxed);
}

}  // namespace heist::rma
