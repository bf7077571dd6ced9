#include "platform/native_thread.hpp"

#include <cstring>
#include <stdexcept>
#include <string>

namespace heist::platform {

namespace {
void check(int rc, const char* what) {
  if (rc != 0) throw std::runtime_error(std::string("heist: ") + what + ": " + std::strerror(rc));
}
}  // namespace

NativeThread::NativeThread(std::size_t stack_bytes, std::function<void()> body) : body_(std::move(body)) {
  pthread_attr_t attr;
  check(pthread_attr_init(&attr), "pthread_attr_init");
  const int rc_stack = pthread_attr_setstacksize(&attr, stack_bytes);
  const int rc_create = rc_stack == 0 ? pthread_create(&handle_, &attr, &trampoline, this) : rc_stack;
  pthread_attr_destroy(&attr);
  check(rc_create, "cannot start a worker thread");
}

NativeThread::~NativeThread() { pthread_join(handle_, nullptr); }

void* NativeThread::trampoline(void* self) {
  static_cast<NativeThread*>(self)->body_();
  return nullptr;
}

}  // namespace heist::platform
