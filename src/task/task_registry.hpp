// TaskRegistry: maps task-function ids to functions. All processes of a job
// run the same binary and register in the same order, so ids agree across
// ranks; hash() summarises (id, name, sizes) so start-up can compare it across
// ranks and fail loudly on a mismatch.
//
// Thread safety: add() takes a mutex; lookups are lock-free. Entries live in
// a fixed array and are published by a release store of the count, which
// pairs with the acquire load in size() / at().
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "heist/detail/abi.hpp"

namespace heist::task {

struct TaskInfo {
  std::string name;
  detail::TaskInvoke invoke = nullptr;
  std::size_t in_size = 0;
  std::size_t out_size = 0;
  const void* key = nullptr;  // C API: the user's function pointer
  bool local_only = false;    // Migration::process: never sent to another rank
  // invoke copies the input before any user code runs (heist.hpp's
  // invoke_task does; a C body reads its input pointer whenever it likes),
  // so it may be given a slot that the body's own spawns reuse.
  bool copies_input = false;
};

class TaskRegistry {
 public:
  static constexpr std::size_t kCapacity = 4096;

  static TaskRegistry& global();

  // Returns the new id. Throws std::invalid_argument on a duplicate name or
  // a full registry.
  // `key` is set for a C function (whose invoke reads the input in place),
  // null for heist.hpp's templates (which copy it first).
  std::uint32_t add(std::string name, detail::TaskInvoke invoke, std::size_t in_size,
                    std::size_t out_size, const void* key = nullptr, bool local_only = false);

  std::uint32_t size() const noexcept { return count_.load(std::memory_order_acquire); }

  // Checked lookup: throws std::out_of_range naming the id when unknown
  // (e.g. a corrupted descriptor received from another process).
  const TaskInfo& at(std::uint32_t id) const;

  // Unchecked lookup for ids validated at spawn time.
  const TaskInfo& operator[](std::uint32_t id) const noexcept { return entries_[id]; }

  std::optional<std::uint32_t> find_key(const void* key) const noexcept;
  std::optional<std::uint32_t> find_name(const std::string& name) const noexcept;

  // FNV-1a over every entry's id, name and sizes, in id order.
  std::uint64_t hash() const noexcept;

 private:
  std::mutex add_mutex_;
  std::atomic<std::uint32_t> count_{0};
  std::array<TaskInfo, kCapacity> entries_{};
};

}  // namespace heist::task
