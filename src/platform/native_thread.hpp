// A joinable thread with a chosen stack size (std::thread cannot set one):
// worker stacks must be large enough for the nesting of tasks run inline and
// while helping (see Options::worker_stack_bytes).
#pragma once

#include <pthread.h>

#include <cstddef>
#include <functional>

namespace heist::platform {

class NativeThread {
 public:
  NativeThread(std::size_t stack_bytes, std::function<void()> body);
  NativeThread(const NativeThread&) = delete;
  NativeThread& operator=(const NativeThread&) = delete;
  ~NativeThread();  // joins

 private:
  static void* trampoline(void* self);
  std::function<void()> body_;
  pthread_t handle_{};
};

}  // namespace heist::platform
