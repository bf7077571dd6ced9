// heist::detail — closures as tasks (their operations, their registered id for
// async_any, their inline run) and the finish scope's body runner.
// Part of heist/heist.hpp, which includes it where the declarations it
// uses end (Context, Task); not a header of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <new>
#include <type_traits>
#include <typeinfo>
#include <utility>

#ifndef HEIST_INLINE
#error "heist/detail/closure_paths.hpp is part of heist/heist.hpp: include that"
#endif

namespace heist {

namespace detail {
// ClosureOps::run_copy for F, or null where F cannot be copied bytewise
// (such closures are boxed, never copied into a slot).
template <class F>
constexpr auto copy_and_run() noexcept -> void (*)(const void*) {
  if constexpr (std::is_trivially_copyable_v<F>) {
    return [](const void* object) {
      alignas(F) std::byte copy[sizeof(F)];
      std::memcpy(copy, object, sizeof(F));  // begins the lifetime of an F (implicit-lifetime type)
      call_closure(*std::launder(reinterpret_cast<F*>(copy)));
    };
  } else {
    return nullptr;
  }
}

template <class F>
const ClosureOps& closure_ops() {
  static const ClosureOps ops{
      [](void* object) { call_closure(*static_cast<F*>(object)); },
      copy_and_run<F>(),
      [](void* box) {
        std::unique_ptr<F> owned(static_cast<F*>(box));
        call_closure(*owned);
      },
      [](void* object) -> void* { return new F(std::move(*static_cast<F*>(object))); },
      sizeof(F),
      alignof(F),
      std::is_trivially_copyable_v<F> && std::is_trivially_destructible_v<F>,
  };
  return ops;
}

// async(ctx, f) and async_any(ctx, f) inline: the closure runs as a task of
// its own at the next level, without a Context, its exception caught for
// the finish that governs it (run_inline_async).
template <class F>
HEIST_INLINE void run_closure_inline_at(WorkerCore* w, Context ctx, F&& f) {
  auto body = [&](Context) { call_closure(std::forward<F>(f)); };
  try {
    run_inline_at(w, ctx, caught_async(body));
  } catch (...) {
    inline_async_failed();
  }
}
}  // namespace detail

namespace detail {
template <class F>
void invoke_closure_task(void* in, void*) {
  F copy = *std::launder(static_cast<const F*>(in));
  call_closure(copy);
}
template <class F>
inline const std::uint32_t closure_task_id =
    register_closure_task(typeid(F).name(), &invoke_closure_task<F>, sizeof(F));
}  // namespace detail

namespace detail {
// Runs f inside the finish scope begun as `scope`, and waits for it; `sync`
// runs first whenever the scope is closed (a Context body's level, which
// f's store-free spawns did not keep: sync_level).
template <class F, class Sync>
void run_finish(FrameCore* scope, F&& f, Sync&& sync) {
  try {
    std::forward<F>(f)();
  } catch (...) {
    sync();
    finish_abort(scope);
    throw;
  }
  sync();
  finish_end(scope);
}
template <class F>
void run_finish(FrameCore* scope, F&& f) {
  run_finish(scope, std::forward<F>(f), [] {});
}
}  // namespace detail

}  // namespace heist
