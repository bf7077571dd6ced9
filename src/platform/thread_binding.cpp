#include "platform/thread_binding.hpp"

#include <pthread.h>

#include <vector>

#include "platform/hw_topology.hpp"

namespace heist::platform {

ThreadBinding::ThreadBinding(int worker, bool restore) noexcept {
  const std::vector<int>& pus = process_pus();
  if (pus.empty() || worker < 0) return;
  const int cpu = pus[static_cast<std::size_t>(worker) % pus.size()];
  if (restore && pthread_getaffinity_np(pthread_self(), sizeof saved_, &saved_) != 0) return;
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(cpu, &one);
  if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) != 0) return;
  restore_ = restore;
}

ThreadBinding::~ThreadBinding() {
  if (restore_) pthread_setaffinity_np(pthread_self(), sizeof saved_, &saved_);
}

}  // namespace heist::platform
