#include "task/task_registry.hpp"

#include <stdexcept>

namespace heist::task {

TaskRegistry& TaskRegistry::global() {
  static TaskRegistry registry;
  return registry;
}

std::uint32_t TaskRegistry::add(std::string name, detail::TaskInvoke invoke, std::size_t in_size,
                                std::size_t out_size, const void* key, bool local_only) {
  if (invoke == nullptr) throw std::invalid_argument("task registry: null function for '" + name + "'");
  std::lock_guard lock(add_mutex_);
  const std::uint32_t n = count_.load(std::memory_order_relaxed);  // writers hold the mutex
  for (std::uint32_t i = 0; i < n; ++i)
    if (entries_[i].name == name)
      throw std::invalid_argument("task registry: a task named '" + name + "' is already registered");
  if (n == kCapacity) throw std::invalid_argument("task registry: more than 4096 task functions");
  entries_[n] = TaskInfo{std::move(name), invoke, in_size, out_size, key, local_only, key == nullptr};
  count_.store(n + 1, std::memory_order_release);  // publishes entries_[n] to lock-free readers
  return n;
}

const TaskInfo& TaskRegistry::at(std::uint32_t id) const {
  if (id >= size())
    throw std::out_of_range("task registry: unknown task function id " + std::to_string(id) + " (" +
                            std::to_string(size()) + " registered)");
  return entries_[id];
}

std::optional<std::uint32_t> TaskRegistry::find_key(const void* key) const noexcept {
  const std::uint32_t n = size();
  for (std::uint32_t i = 0; i < n; ++i)
    if (entries_[i].key == key) return i;
  return std::nullopt;
}

std::optional<std::uint32_t> TaskRegistry::find_name(const std::string& name) const noexcept {
  const std::uint32_t n = size();
  for (std::uint32_t i = 0; i < n; ++i)
    if (entries_[i].name == name) return i;
  return std::nullopt;
}

std::uint64_t TaskRegistry::hash() const noexcept {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&h](const void* data, std::size_t len) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < len; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  };
  const std::uint32_t n = size();
  for (std::uint32_t i = 0; i < n; ++i) {
    const TaskInfo& e = entries_[i];
    const std::uint64_t fields[3] = {i, e.in_size, e.out_size};
    mix(fields, sizeof fields);
    mix(e.name.data(), e.name.size() + 1);
  }
  return h;
}

}  // namespace heist::task
