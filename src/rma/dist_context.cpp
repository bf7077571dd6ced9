#include "rma/dist_context.hpp"

#include <algorithm>
#include <cstring>
#include <span>
#include <string>
#include <thread>

#include <unistd.h>

#include "policy/locality_plan.hpp"
#include "rma/received_checks.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"
#include "task/task_slot.hpp"

namespace heist::rma {

namespace {

using task::GlobalRef;

// An inbox entry carries the task header's references, the output and, when
// the task threw, its message (at least 256 bytes of room for that).
std::size_t inbox_entry_bytes(const Options& o) {
  const std::size_t payload = std::max<std::size_t>(o.task_input_bytes, 256);
  return (sizeof(InboxEntryHeader) + payload + 15) / 16 * 16;
}

// The window's size, agreed by every rank (collective): an OptionError on
// every rank if it exceeds some rank's physical memory, rather than a
// failed or overcommitted allocation on some ranks only.
std::size_t agreed_window_bytes(MPI_Comm comm, const WindowLayout& layout, const Options& o) {
  const std::size_t bytes = layout.bytes();
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory =
      pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
  int too_big = memory != 0 && bytes > memory ? 1 : 0;
  check(MPI_Allreduce(MPI_IN_PLACE, &too_big, 1, MPI_INT, MPI_MAX, comm), "MPI_Allreduce (window size)");
  if (too_big != 0)
    throw OptionError("--public-queue-slots " + std::to_string(o.public_queue_slots) + " x --task-input-bytes " +
                      std::to_string(o.task_input_bytes) + " (plus --inbox-slots " + std::to_string(o.inbox_slots) +
                      ", --mailbox-slots " + std::to_string(o.mailbox_slots) + "): the public queue window needs " +
                      std::to_string(bytes) + " bytes per rank, more than the physical memory of " +
                      (memory != 0 && bytes > memory ? "this node (" + std::to_string(memory) + " bytes)"
                                                     : "another rank's node"));
  return bytes;
}

// The live task registry as the received-data checks see it.
class RegistryShapes final : public TaskShapes {
 public:
  explicit RegistryShapes(const task::TaskRegistry& registry) noexcept : registry_(registry) {}
  std::uint32_t size() const noexcept override { return registry_.size(); }
  TaskShape operator[](std::uint32_t id) const noexcept override {
    const task::TaskInfo& t = registry_[id];
    return {static_cast<std::uint32_t>(t.in_size), static_cast<std::uint32_t>(t.out_size), t.local_only};
  }

 private:
  const task::TaskRegistry& registry_;
};

}  // namespace

DistContext::DistContext(MpiSession& session, sched::Scheduler& scheduler)
    : sched_(scheduler),
      comm_(session.comm()),
      rank_(session.rank()),
      ranks_(session.size()),
      stride_(scheduler.stride()),
      layout_(scheduler.options().public_queue_slots, scheduler.stride(),
              WindowLayout::lane_slots_for(scheduler.options().inbox_slots, static_cast<std::size_t>(session.size())),
              inbox_entry_bytes(scheduler.options()), static_cast<std::size_t>(session.size()),
              scheduler.options().mailbox_slots,
              policy::answer_slots_for(scheduler.options(), static_cast<std::size_t>(session.size()),
                                       scheduler.stride())),
      window_(session.comm(), agreed_window_bytes(session.comm(), layout_, scheduler.options()),
              session.serialized(), scheduler.options().rma_delay_us,
              scheduler.options().seed * 7919 + static_cast<std::uint64_t>(session.rank())),
      inbox_(window_, layout_, rank_, ranks_),
      per_worker_(static_cast<std::size_t>(scheduler.size())) {
  const Options& o = scheduler.options();
  for (std::size_t i = 0; i < per_worker_.size(); ++i) {
    per_worker_[i].rng.reseed(o.seed * 1'000'003 + static_cast<std::uint64_t>(rank_) * 4099 + i);
    per_worker_[i].buffer.reserve(stride_ * 64);
    per_worker_[i].words.resize(static_cast<std::size_t>(ranks_));
  }
}

void DistContext::set_machine(std::vector<int> nodes, int inter_node_delay_us) {
  nodes_ = std::move(nodes);
  std::vector<char> far(static_cast<std::size_t>(ranks_));
  for (int r = 0; r < ranks_; ++r) far[static_cast<std::size_t>(r)] = node_of(r) != node_of(rank_);
  window_.set_inter_node_delay(std::move(far), inter_node_delay_us);
}

PerWorker& DistContext::of(const sched::Worker& w) noexcept { return per_worker_[static_cast<std::size_t>(w.id())]; }

std::uint32_t DistContext::accept(sched::Worker& w, const std::byte* slots, std::size_t count, int from) {
  const RegistryShapes shapes(sched_.registry());
  // A task from another process is a new top there (TaskHeader::levels):
  // its `spawner` names a worker of the sender, and the receiving worker
  // of the same index must not take the task's generation count for its
  // own (2 ranks x 1 worker: every stolen UTS T1L task kept its level,
  // so no generation below it was queued and the thief came back ~45,000
  // times for small subtrees).
  std::vector<std::byte> moved(from == rank_ ? 0 : stride_);
  for (std::size_t i = 0; i < count; ++i) {
    const std::byte* slot = slots + i * stride_;
    const std::string bad = check_task_descriptor(std::span<const std::byte>(slot, stride_), shapes,
                                                  static_cast<std::uint32_t>(ranks_), max_output());
    if (!bad.empty())
      throw DistError("heist: rank " + std::to_string(rank_) + " received from rank " + std::to_string(from) +
                      " a task descriptor with " + bad +
                      "; the ranks do not run the same program, or memory is corrupt");
    if (!moved.empty()) {
      std::memcpy(moved.data(), slot, stride_);
      task::header(moved.data())->spawner = task::kNoSpawner;
      slot = moved.data();
    }
    w.accept_stolen(slot);
  }
  return static_cast<std::uint32_t>(count);
}

void DistContext::flush_pending(PerWorker& p) {
  for (const int target : p.pending_targets) {
    window_.flush(target, p.comm);
    --p.comm.flushes;  // not a protocol round trip: counted apart
    ++p.comm.lazy_flushes;
  }
  p.pending_targets.clear();
}

void DistContext::drain_inbox(sched::Worker& w, PerWorker& p, std::optional<std::uint64_t> posted) {
  const std::size_t applied = inbox_.drain(
      p.comm,
      [&](const InboxEntryHeader& h, const std::byte* out, std::string_view error) {
        w.finish_foreign(GlobalRef::from_bits(h.completion), GlobalRef::from_bits(h.sync),
                         GlobalRef::from_bits(h.out), out, h.out_size, error, h.count);
      },
      posted);
  w.stats_ref().completions_applied += applied;
}

void DistContext::send_completion(sched::Worker& w, const task::TaskHeader& task, const void* out,
                                  std::size_t out_size, std::string_view error) {
  const InboxEntryHeader h{task.completion.bits(), task.out.bits(), task.sync.bits(),
                           static_cast<std::uint32_t>(out_size), 0};
  send_entry(w, static_cast<int>(task.completion.rank()), h, out, error);
}

void DistContext::send_report(sched::Worker& w, task::GlobalRef origin, std::uint32_t count, std::string_view error) {
  const InboxEntryHeader h{origin.bits(), 0, 0, 0, 0, count};
  send_entry(w, static_cast<int>(origin.rank()), h, nullptr, error);
  w.stats_ref().tasks_reported += count;
}

void DistContext::send_entry(sched::Worker& w, int target, const InboxEntryHeader& header, const void* out,
                             std::string_view error) {
  PerWorker& p = of(w);
  flush_pending(p);
  inbox_.send(target, header, out, error, p.comm, [&] {
    drain_inbox(w, p);  // two ranks sending to each other's full inboxes must not wait forever
    std::this_thread::yield();
  });
  defer_flush(p, target);  // the seq and count writes
  ++w.stats_ref().completions_sent;
}

}  // namespace heist::rma
