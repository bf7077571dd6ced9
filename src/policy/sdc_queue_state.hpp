// SDC: the Scioto baseline inter-process steal ("split queues, deferred
// copies, aborting steals"), SWS §3 and §3.1, as pure logic. A queue
// exposes four 64-bit words (SdcWindowWords) and a ring of task slots; a
// thief steals in six communications:
//   (1) lock       MPI_Compare_and_swap(lock, 0 -> id)
//   (2) read_meta  read tail and split (one MPI_Get_accumulate, MPI_NO_OP)
//   (3) put_tail   tail := tail + n (MPI_Accumulate, MPI_REPLACE)
//   (4) unlock     MPI_Compare_and_swap(lock, id -> 0)
//   (5) copy       MPI_Get of tasks [tail, tail + n) (slots i % ring size)
//   (6) complete   itail += n (MPI_Accumulate, MPI_SUM; not waited for)
// Abort early: while the lock is busy the thief polls tail and split without
// it and gives up if the public part is empty (2 operations per failed look);
// an empty public part seen under the lock costs lock, read, unlock.
//
// Guarantees: the lock holder alone moves tail, so the ranges thieves claim
// are disjoint and lie in [tail, split); the owner moves split down only
// under the same lock (acquire) and up without it (release: a thief that
// reads the old split takes fewer tasks, never a task that is not public).
// The owner reuses ring slots only below vtail, which it sets to tail when it
// saw itail == tail, reading itail first: then every claim made up to that
// tail has finished its copy (itail <= claims at the time itail was read <=
// tail read after it; equality leaves no claim unfinished).
//
// States: thief — SdcSteal::Step below; owner — [vtail, tail) claimed, copies
// may be in flight; [tail, split) public; [split, head) private.
//
// Departures from the SWS paper: logical 64-bit indices that never wrap (slot =
// index % ring size), so itail needs no wrap correction; and docs/architecture.md's MPI
// atomicity rule: every word another rank touches has one update op plus
// MPI_NO_OP reads — lock: compare-and-swap only; tail and split: MPI_REPLACE
// (tail by the lock holder, split by the owner); itail: MPI_SUM. The seed's
// plain puts and gets of the metadata race the owner's updates.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace heist::policy {

// The window words of one SDC queue (MPI_UINT64_T), read and written by any rank.
struct SdcWindowWords {
  std::uint64_t lock = 0;   // 0 free, else holder id (rank + 1)
  std::uint64_t tail = 0;   // first unclaimed public task
  std::uint64_t split = 0;  // end of the public part
  std::uint64_t itail = 0;  // tasks whose deferred copy finished (cumulative)
  friend constexpr bool operator==(const SdcWindowWords&, const SdcWindowWords&) = default;
};

// Polls of a busy lock before a thief gives up (the runtime and the simulator).
inline constexpr int kSdcLockPolls = 64;

// One steal attempt by a thief, as a sequence of steps. Each step names the
// one communication the caller performs next; on_*() takes its result.
class SdcSteal {
 public:
  enum class Step : std::uint8_t { lock, poll, read_meta, put_tail, unlock, copy, complete, done, aborted };

  explicit SdcSteal(std::uint64_t id) : id_(id) {
    if (id == 0) throw std::invalid_argument("SdcSteal: id 0 means 'unlocked'; use rank + 1");
  }

  Step step() const noexcept { return step_; }
  std::uint64_t id() const noexcept { return id_; }
  std::uint64_t first() const noexcept { return first_; }   // claimed [first, first + count)
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t new_tail() const noexcept { return first_ + count_; }
  unsigned communications() const noexcept { return ops_; }

  // (1) The lock CAS returned `old`.
  Step on_lock(std::uint64_t old) {
    expect(Step::lock);
    return step_ = old == 0 ? Step::read_meta : Step::poll;
  }
  // Lock busy: tail and split read without it. Empty -> abort early.
  Step on_poll(std::uint64_t tail, std::uint64_t split) {
    expect(Step::poll);
    return step_ = tail >= split ? Step::aborted : Step::lock;
  }
  // (2) Under the lock; chunk(available) -> tasks to take (clamped).
  template <class Chunk>
  Step on_meta(std::uint64_t tail, std::uint64_t split, Chunk&& chunk) {
    expect(Step::read_meta);
    if (tail > split) throw std::logic_error("SdcSteal: tail beyond split");
    const std::uint64_t available = split - tail;
    const std::uint64_t want = available == 0 ? 0 : static_cast<std::uint64_t>(chunk(available));
    first_ = tail;
    count_ = want < available ? want : available;
    return step_ = count_ == 0 ? Step::unlock : Step::put_tail;
  }
  // (3) tail := new_tail() written.
  Step on_put_tail() {
    expect(Step::put_tail);
    return step_ = Step::unlock;
  }
  // (4) The unlock CAS returned `old` (must be our id).
  Step on_unlock(std::uint64_t old) {
    expect(Step::unlock);
    if (old != id_) throw std::logic_error("SdcSteal: unlocked a lock it did not hold");
    return step_ = count_ == 0 ? Step::aborted : Step::copy;
  }
  // (5) Tasks [first, first + count) copied.
  Step on_copied() {
    expect(Step::copy);
    return step_ = Step::complete;
  }
  // (6) itail += count issued.
  Step on_completed() {
    expect(Step::complete);
    return step_ = Step::done;
  }
  // Give up while waiting for the lock (e.g. after a polling budget).
  Step abort() {
    if (step_ != Step::lock && step_ != Step::poll) throw std::logic_error("SdcSteal: abort only before the lock");
    return step_ = Step::aborted;
  }

 private:
  void expect(Step s) {
    if (step_ != s) throw std::logic_error("SdcSteal: result for a step not current");
    ++ops_;
  }

  std::uint64_t id_;
  Step step_ = Step::lock;
  std::uint64_t first_ = 0;
  std::uint64_t count_ = 0;
  unsigned ops_ = 0;
};

// Performs the current step of `s` on `w`, a plain struct standing in for the
// window (tests, simulator). Step copy: the caller copies the tasks first.
template <class Chunk>
SdcSteal::Step sdc_apply(SdcSteal& s, SdcWindowWords& w, Chunk&& chunk) {
  const auto cas = [&w](std::uint64_t compare, std::uint64_t value) {
    const std::uint64_t old = w.lock;
    if (old == compare) w.lock = value;
    return old;
  };
  switch (s.step()) {
    case SdcSteal::Step::lock: return s.on_lock(cas(0, s.id()));
    case SdcSteal::Step::poll: return s.on_poll(w.tail, w.split);
    case SdcSteal::Step::read_meta: return s.on_meta(w.tail, w.split, chunk);
    case SdcSteal::Step::put_tail: w.tail = s.new_tail(); return s.on_put_tail();
    case SdcSteal::Step::unlock: return s.on_unlock(cas(s.id(), 0));
    case SdcSteal::Step::copy: return s.on_copied();
    case SdcSteal::Step::complete: w.itail += s.count(); return s.on_completed();
    case SdcSteal::Step::done:
    case SdcSteal::Step::aborted: break;
  }
  return s.step();
}

// Owner-only state of an SDC queue (the owner thread alone touches it).
class SdcOwnerState {
 public:
  explicit SdcOwnerState(std::uint64_t ring_slots) : slots_(ring_slots) {
    if (ring_slots == 0) throw std::invalid_argument("SdcOwnerState: empty ring");
  }

  std::uint64_t head() const noexcept { return head_; }
  std::uint64_t split() const noexcept { return split_; }  // exact: only the owner moves split
  std::uint64_t vtail() const noexcept { return vtail_; }  // slots below it may be reused
  std::uint64_t local() const noexcept { return head_ - split_; }
  bool may_push() const noexcept { return head_ < vtail_ + slots_; }
  // Tasks a release may push now (free slots; at most 2^20 at once).
  std::uint32_t room() const noexcept {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(vtail_ + slots_ - head_, std::uint64_t{1} << 20));
  }
  // Given the tail last read: thieves took every public task (SDC has no
  // word that records failed steals: an empty public part is the request).
  bool drained(std::uint64_t tail_read) const noexcept { return tail_read == split_; }
  bool offering(std::uint64_t tail_read) const noexcept { return split_ > tail_read; }

  // Push a task at head (pre: may_push()); pop the newest private task.
  std::uint64_t push() {
    if (!may_push()) throw std::logic_error("SdcOwnerState: ring full");
    return head_++;
  }
  bool pop(std::uint64_t& index) noexcept {
    if (head_ == split_) return false;
    index = --head_;
    return true;
  }

  // Release, without the lock, when the public part is empty (tail read ==
  // split): ceil(local / 2) oldest private tasks become public. Returns how
  // many; the caller writes split() (MPI_REPLACE) after the task slots.
  std::uint64_t release(std::uint64_t tail_read) {
    check_tail(tail_read);
    if (tail_read != split_ || local() == 0) return 0;
    const std::uint64_t n = (local() + 1) / 2;
    split_ += n;
    return n;
  }
  // Release every private task (the process's public queue keeps no private
  // part: the workers' deques are the private parts). Safe without the lock
  // at any time: split only grows (see release). Returns how many.
  std::uint64_t publish_all(std::uint64_t tail_read) {
    check_tail(tail_read);
    const std::uint64_t n = local();
    split_ = head_;
    return n;
  }
  // Acquire, holding the queue's own lock (tail read under it is stable):
  // when the public part exceeds the private one, take back the newer
  // ceil(difference / 2) public tasks. Returns how many; write split().
  std::uint64_t acquire(std::uint64_t tail_locked) {
    check_tail(tail_locked);
    const std::uint64_t shared = split_ - tail_locked;
    if (shared <= local()) return 0;
    const std::uint64_t n = (shared - local() + 1) / 2;
    split_ -= n;
    return n;
  }
  // Reclaim the slots of finished steals: itail read first, tail after it.
  std::uint64_t progress(std::uint64_t itail_first, std::uint64_t tail_second) {
    check_tail(tail_second);
    if (itail_first > tail_second) throw std::logic_error("SdcOwnerState: itail beyond tail");
    if (itail_first == tail_second) vtail_ = tail_second;
    return vtail_;
  }

 private:
  void check_tail(std::uint64_t tail) const {
    if (tail < vtail_ || tail > split_) throw std::logic_error("SdcOwnerState: tail outside [vtail, split]");
  }

  std::uint64_t slots_;
  std::uint64_t head_ = 0;
  std::uint64_t split_ = 0;
  std::uint64_t vtail_ = 0;
};

}  // namespace heist::policy
