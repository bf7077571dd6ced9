#include "rma/received_checks.hpp"

#include <cstdio>
#include <cstring>

#include "policy/sws_stealval.hpp"
#include "task/global_ref.hpp"
#include "task/task_slot.hpp"

namespace heist::rma {

namespace {

using task::GlobalRef;

std::string num(std::uint64_t v) { return std::to_string(v); }
std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(v));
  return text;
}

// A reference that must be null or name `rank`.
bool null_or_on(GlobalRef ref, std::uint32_t rank) { return ref.null() || ref.rank() == rank; }

constexpr std::uint16_t kMigratableFlags = task::kJoined;  // every other flag marks a local-only closure

}  // namespace

std::string check_task_descriptor(std::span<const std::byte> slot, const TaskShapes& registry,
                                  std::uint32_t ranks, std::size_t max_output) {
  if (slot.size() < sizeof(task::TaskHeader))
    return "a slot of " + num(slot.size()) + " bytes, smaller than a task header";
  task::TaskHeader h;
  std::memcpy(&h, slot.data(), sizeof h);  // received bytes: no alignment or type assumed
  if (h.fn_id == task::kClosureFn) return "a local-only closure (closures never leave their process)";
  if (h.fn_id >= registry.size())
    return "unknown function id " + num(h.fn_id) + " (this program registers " + num(registry.size()) + " tasks)";
  const TaskShape shape = registry[h.fn_id];
  if ((h.flags & ~kMigratableFlags) != 0) return "flags " + hex(h.flags) + " of a local-only task";
  if (shape.local_only) return "function id " + num(h.fn_id) + ", a task registered as process-local";
  if (h.in_size != shape.in_size)
    return "function id " + num(h.fn_id) + " and " + num(h.in_size) + " input bytes (registered: " +
           num(shape.in_size) + ")";
  if (h.in_size > slot.size() - sizeof(task::TaskHeader))
    return "an input of " + num(h.in_size) + " bytes, larger than the slot's " +
           num(slot.size() - sizeof(task::TaskHeader));
  if (shape.out_size > max_output)
    return "function id " + num(h.fn_id) + " whose output of " + num(shape.out_size) +
           " bytes cannot travel back (at most " + num(max_output) + ")";
  if (h.completion.null() || h.completion.rank() >= ranks)
    return "an invalid completion reference (rank " + num(h.completion.rank()) + " of " + num(ranks) + ")";
  const std::uint32_t origin = h.completion.rank();
  if (!null_or_on(h.out, origin) || !null_or_on(h.sync, origin) || !null_or_on(h.ief, origin))
    return "output, handle or finish references outside the spawning rank " + num(origin);
  return {};
}

std::string check_inbox_entry(const InboxEntryHeader& entry, std::size_t payload_capacity, std::uint32_t self) {
  const auto completion = GlobalRef::from_bits(entry.completion);
  if (completion.null() || completion.rank() != self)
    return "a completion reference to rank " + num(completion.rank()) + (completion.null() ? " (null)" : "");
  if (!null_or_on(GlobalRef::from_bits(entry.out), self) || !null_or_on(GlobalRef::from_bits(entry.sync), self))
    return "output or handle references outside this rank";
  // count 0: a failure note (an async's exception for its finish), nothing else.
  if ((entry.count == 0 && (entry.error_size == 0 || entry.out != 0 || entry.sync != 0 || entry.out_size != 0)) ||
      (entry.count > 1 && (entry.out != 0 || entry.sync != 0 || entry.out_size != 0)))
    return "an entry completing " + num(entry.count) + " tasks" +
           (entry.count == 0 ? " without an error" : " with an output or a handle");
  if (entry.out_size > payload_capacity || entry.error_size > payload_capacity - entry.out_size)
    return num(entry.out_size) + " output and " + num(entry.error_size) + " error bytes in an entry of " +
           num(payload_capacity);
  return {};
}

std::string check_stealval(std::uint64_t word, std::uint32_t ring_slots) {
  const policy::sws::Stealval v = policy::sws::unpack(word);
  if (v.start >= ring_slots || v.offered > ring_slots)
    return "a stealval offering " + num(v.offered) + " tasks from slot " + num(v.start) + " of a " +
           num(ring_slots) + "-slot ring";
  return {};
}

std::string check_sdc_meta(std::uint64_t tail, std::uint64_t split, std::uint64_t ring_slots) {
  if (tail > split || split - tail > ring_slots)
    return "tail " + num(tail) + " and split " + num(split) + " (a " + num(ring_slots) + "-slot ring)";
  return {};
}

}  // namespace heist::rma
