// Checks of everything a rank receives from another rank before it acts on
// it: task descriptors (stolen slots), completion-inbox entries, and the
// protocol words a thief reads in the victim's window (the SWS stealval, the
// SDC tail and split). docs/architecture.md's invariant: "a descriptor with an unknown
// function id or an oversized payload is an error with a message, never a
// jump", and no remote access outside the bounds of a window.
//
// Pure functions of the received bytes and of this process's own facts (its
// task registry, rank count, ring size): no MPI, no runtime state, so the
// fuzz target (tests/fuzz) feeds them arbitrary bytes. Each returns an empty
// string when the data is valid, else what is wrong with it, in words that
// complete "received ... with <reason>". What they cannot catch: a corrupt
// but well-formed value (an in-range function id naming the wrong task, a
// plausible pointer). Ranks agree on the registry at start-up (Distributor),
// so a mismatch there means another program or memory corruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "rma/inbox_entry.hpp"

namespace heist::rma {

// What the checks need to know of a registered task.
struct TaskShape {
  std::uint32_t in_size = 0;
  std::uint32_t out_size = 0;
  bool local_only = false;  // Migration::process: never sent to another rank
};

// This process's registered tasks, as the checks see them (the runtime
// adapts its TaskRegistry; tests and the fuzzer use a span).
class TaskShapes {
 public:
  virtual ~TaskShapes() = default;
  virtual std::uint32_t size() const noexcept = 0;
  virtual TaskShape operator[](std::uint32_t id) const noexcept = 0;  // id < size()
};

class TaskShapeSpan final : public TaskShapes {
 public:
  explicit TaskShapeSpan(std::span<const TaskShape> shapes) noexcept : shapes_(shapes) {}
  std::uint32_t size() const noexcept override { return static_cast<std::uint32_t>(shapes_.size()); }
  TaskShape operator[](std::uint32_t id) const noexcept override { return shapes_[id]; }

 private:
  std::span<const TaskShape> shapes_;
};

// A task slot (header + inline input, `slot.size()` = the slot stride)
// copied from another rank's public queue. Valid iff it names a registered,
// migratable task with its registered input size, only known flags, a
// completion reference to one of `ranks` ranks, output and task-handle
// references in that same rank, and an output of at most `max_output` bytes.
std::string check_task_descriptor(std::span<const std::byte> slot, const TaskShapes& registry,
                                  std::uint32_t ranks, std::size_t max_output);

// An entry read from this rank's completion inbox (`self`'s window). Valid
// iff its references name `self` (non-null completion) and its output and
// error text fit the entry's `payload_capacity` bytes.
std::string check_inbox_entry(const InboxEntryHeader& entry, std::size_t payload_capacity, std::uint32_t self);

// The stealval a thief's fetch-add (or probe) returned from a victim whose
// ring has `ring_slots` slots: the offer's start slot and size must lie
// within that ring (an owner never offers more than its ring holds).
std::string check_stealval(std::uint64_t word, std::uint32_t ring_slots);

// SDC: tail and split read under the victim's lock (ring of `ring_slots`):
// tail <= split and at most a ring's worth of public tasks.
std::string check_sdc_meta(std::uint64_t tail, std::uint64_t split, std::uint64_t ring_slots);

}  // namespace heist::rma
