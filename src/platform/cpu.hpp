// The spin-wait hint: tells the core a thread is spinning (frees pipeline
// resources for the sibling hyperthread, saves power).
#pragma once

namespace heist::platform {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

}  // namespace heist::platform
