#include "platform/fiber.hpp"

#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <boost/context/detail/fcontext.hpp>
#include <cerrno>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define HEIST_FIBER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HEIST_FIBER_ASAN 1
#endif
#endif
#if defined(__SANITIZE_THREAD__)
#define HEIST_FIBER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HEIST_FIBER_TSAN 1
#endif
#endif
#ifdef HEIST_FIBER_ASAN
#include <sanitizer/asan_interface.h>
#endif
#ifdef HEIST_FIBER_TSAN
#include <sanitizer/tsan_interface.h>
#endif

namespace heist::platform {

namespace bc = boost::context::detail;

namespace {

constexpr std::size_t kGuardBytes = std::size_t{64} << 10;

std::size_t page_size() noexcept {
  static const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return page;
}

// What a jump hands over: the context left, the one entered, and the
// caller's message.
struct Packet {
  Context* from;
  Context* to;
  void* message;
};

// Completes a switch on the arriving side; returns the message.
void* arrive(bc::transfer_t t) noexcept {
  auto* p = static_cast<Packet*>(t.data);
  p->from->fctx = t.fctx;  // `from` is resumable from here on
#ifdef HEIST_FIBER_ASAN
  const void* low = nullptr;
  std::size_t size = 0;
  __sanitizer_finish_switch_fiber(p->to->asan_fake_stack, &low, &size);
  p->to->asan_fake_stack = nullptr;
#endif
  return p->message;
}

void start(bc::transfer_t t) {
  auto* p = static_cast<Packet*>(t.data);
  Context* self = p->to;
  void* message = arrive(t);  // p is dead after this: the left context may run again
  self->entry(message);
  // entry() never returns: it ends by switching away for good.
  std::terminate();
}

}  // namespace

FiberStack::FiberStack(std::size_t usable) {
  const std::size_t page = page_size();
  size_ = (usable + page - 1) / page * page;
  guard_ = kGuardBytes;
  void* p = mmap(nullptr, guard_ + size_, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_STACK, -1, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error(std::string("heist: cannot map a fiber stack of ") + std::to_string(size_) +
                             " bytes: " + std::strerror(errno));
  base_ = static_cast<char*>(p);
  if (mprotect(base_, guard_, PROT_NONE) != 0) {
    const int e = errno;
    munmap(base_, guard_ + size_);
    throw std::runtime_error(std::string("heist: cannot protect a fiber stack's guard page: ") + std::strerror(e));
  }
}

FiberStack::~FiberStack() {
#ifdef HEIST_FIBER_ASAN
  // Frames of a fiber that never returned leave poisoned redzones, and ASan
  // keeps the shadow of unmapped memory: whatever is mapped here next (an
  // MPI window, in the next Runtime of the same process) would be reported
  // as a stack underflow. Clean the shadow before the memory goes.
  __asan_unpoison_memory_region(base_ + guard_, size_);
#endif
  munmap(base_, guard_ + size_);
}

void adopt_native(Context& ctx) noexcept {
  pthread_attr_t attr;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    void* low = nullptr;
    std::size_t size = 0;
    if (pthread_attr_getstack(&attr, &low, &size) == 0) {
      ctx.stack_low = low;
      ctx.stack_size = size;
    }
    pthread_attr_destroy(&attr);
  }
#ifdef HEIST_FIBER_TSAN
  ctx.tsan = __tsan_get_current_fiber();
#endif
}

void prepare(Context& ctx, FiberStack& stack, void (*entry)(void* message)) {
  ctx.entry = entry;
  ctx.stack_low = stack.low();
  ctx.stack_size = stack.size();
  ctx.asan_fake_stack = nullptr;
#ifdef HEIST_FIBER_ASAN
  // The frames of a fiber given up in the middle never returned: their
  // redzones are still poisoned, and the new fiber's frames would land on them.
  __asan_unpoison_memory_region(stack.low(), stack.size());
#endif
  ctx.fctx = bc::make_fcontext(stack.high(), stack.size(), &start);
#ifdef HEIST_FIBER_TSAN
  // A fiber given up in the middle of its frames starts afresh: TSan gets a
  // new fiber for it, so the abandoned frames leave nothing behind.
  if (ctx.tsan != nullptr) __tsan_destroy_fiber(ctx.tsan);
  ctx.tsan = __tsan_create_fiber(0);
#endif
}

void retire(Context& ctx) noexcept {
#ifdef HEIST_FIBER_TSAN
  if (ctx.tsan != nullptr) __tsan_destroy_fiber(ctx.tsan);
#endif
  ctx.tsan = nullptr;
}

void* switch_to(Context& from, Context& to, void* message, bool abandon) {
  Packet packet{&from, &to, message};
#ifdef HEIST_FIBER_ASAN
  __sanitizer_start_switch_fiber(abandon ? nullptr : &from.asan_fake_stack, to.stack_low, to.stack_size);
#else
  (void)abandon;
#endif
#ifdef HEIST_FIBER_TSAN
  __tsan_switch_to_fiber(to.tsan, 0);
#endif
  return arrive(bc::jump_fcontext(to.fctx, &packet));
}

}  // namespace heist::platform
