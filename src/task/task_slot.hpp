// The portable task descriptor (the task layer of docs/architecture.md): a fixed-size slot made of a
// 48-byte header and the task's input bytes copied inline (HotSLAW: inputs are
// copied into library space at creation and travel with the task). Deques
// store slots back to back with a stride chosen at start-up
// (Options::task_input_bytes), so a slot is handled as raw bytes plus this header.
//
// Two kinds of payload:
//  * a registered task: fn_id indexes the TaskRegistry, the payload is the
//    input; the slot is migratable (a byte copy is valid in any process);
//  * a local-only closure (fn_id == kClosureFn): the payload holds a function
//    pointer and the closure object (or a pointer to a heap box); kLocalOnly is
//    set and the slot must never leave this process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "task/global_ref.hpp"

namespace heist::task {

inline constexpr std::uint32_t kClosureFn = 0xFFFFFFFFu;
// Not a task: the continuation of a suspended fiber (sched/continuations.hpp),
// kLocalOnly; its payload names the fiber. It only moves between the
// workers of its process.
inline constexpr std::uint32_t kContinuationFn = 0xFFFFFFFEu;
// TaskHeader::spawner of a task no worker queued (a region's body, a C API task).
inline constexpr std::uint32_t kNoSpawner = 0xFFFFFFFFu;

enum TaskFlags : std::uint16_t {
  kLocalOnly = 1u << 0,   // captures process-local memory: may not migrate
  kBoxed = 1u << 1,       // closure payload is a pointer to a heap box
  kJoined = 1u << 2,      // completion counter is the spawner's join scope
  kUncounted = 1u << 3,   // the runtime's own task (a region's body run on a fiber): not in the statistics
};

struct alignas(16) TaskHeader {
  std::uint32_t fn_id;      // TaskRegistry id, or kClosureFn
  std::uint16_t flags;      // TaskFlags
  std::uint16_t in_size;    // payload bytes in use
  GlobalRef completion;     // FinishScope decremented when the task completes
  GlobalRef ief;            // immediately enclosing finish: where its asyncs register
  GlobalRef out;            // output buffer, or null
  GlobalRef sync;           // SyncNode signalled at completion (task handles), or null
  // The task's generation (policy::SpawnFacts::levels): `levels` counts
  // queued generations below the nearest task that moved to another worker
  // (or the root); it holds only where `spawner`, the queuing worker's index
  // in its process, runs the task: any other worker starts it at 0, and a
  // task received from another process arrives with kNoSpawner. Saturates
  // at kMaxCount (the spawn policy compares it with a few generations).
  std::uint32_t spawner;
  std::uint16_t levels;
  // Its depth in the task tree (the root's task 0, a child one more than
  // its parent, inline tasks counted), saturating at kMaxCount: what a
  // waiting worker compares with its own frame's depth before it claims
  // (policy/help_floor.hpp). It travels with the task to other processes.
  std::uint16_t depth;
};
static_assert(sizeof(TaskHeader) == 48);

// A task that, run in another process, reports back by itself (its
// completion travels to its origin's inbox, and a frame there may wait for
// it): joined, or with an output or a handle. The others are escaping
// asyncs with nothing to send back, which a foreign proxy reports in bulk
// (Executor::execute_foreign).
inline bool reports_back(const TaskHeader& h) noexcept {
  return !(h.ief == h.completion && h.out.null() && h.sync.null());
}

inline constexpr std::size_t kSlotAlign = 16;

// TaskHeader::levels and ::depth saturate here.
inline constexpr std::uint32_t kMaxCount = 0xFFFFu;
constexpr std::uint16_t saturate(std::uint32_t n) noexcept {
  return static_cast<std::uint16_t>(n < kMaxCount ? n : kMaxCount);
}

// Size of a slot with the given input capacity: header + payload, rounded
// up to 16 bytes.
constexpr std::size_t slot_stride(std::size_t input_capacity) noexcept {
  return (sizeof(TaskHeader) + input_capacity + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
}

inline TaskHeader* header(std::byte* slot) noexcept { return reinterpret_cast<TaskHeader*>(slot); }
inline const TaskHeader* header(const std::byte* slot) noexcept {
  return reinterpret_cast<const TaskHeader*>(slot);
}
inline std::byte* payload(std::byte* slot) noexcept { return slot + sizeof(TaskHeader); }
inline const std::byte* payload(const std::byte* slot) noexcept { return slot + sizeof(TaskHeader); }

// A task's input into its slot. The common small sizes copy with a fixed
// length, which compiles to a move or two instead of a call of memcpy.
inline void copy_input(std::byte* to, const void* from, std::size_t size) noexcept {
  switch (size) {
    case 4: std::memcpy(to, from, 4); return;
    case 8: std::memcpy(to, from, 8); return;
    case 16: std::memcpy(to, from, 16); return;
    default: std::memcpy(to, from, size); return;
  }
}

// Writes a task into a slot: the one place a header is filled. Every field
// is written (completion and ief null: end_queue, or the caller, sets them
// once it knows the scopes), then `in_size` input bytes from `in` unless
// `in` is null (a payload the caller writes itself, such as a closure's
// function pointer and object). Returns the header.
inline TaskHeader* write_task(std::byte* slot, std::uint32_t fn_id, std::uint16_t flags, const void* in,
                              std::size_t in_size, GlobalRef out = GlobalRef(), GlobalRef sync = GlobalRef()) noexcept {
  TaskHeader* h = header(slot);
  h->fn_id = fn_id;
  h->flags = flags;
  h->in_size = static_cast<std::uint16_t>(in_size);
  h->completion = GlobalRef();
  h->ief = GlobalRef();
  h->out = out;
  h->sync = sync;
  h->spawner = kNoSpawner;
  h->levels = 0;
  h->depth = 0;
  if (in != nullptr) copy_input(payload(slot), in, in_size);
  return h;
}

// Could the task leave its process? A registered task that is not
// local-only (continuations and closures are). Its output must also fit
// what the receiver can send back, which only the registry knows.
inline bool may_migrate(const TaskHeader& h) noexcept {
  return h.fn_id != kClosureFn && h.fn_id != kContinuationFn && (h.flags & kLocalOnly) == 0;
}

// Bytes of a slot that carry information (header + used payload): what a
// pop or steal copies.
inline std::size_t used_bytes(const std::byte* slot) noexcept {
  return sizeof(TaskHeader) + header(slot)->in_size;
}

}  // namespace heist::task
