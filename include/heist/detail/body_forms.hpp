// heist::detail — the forms of a task body (FnTraits), the Context rule's checks, and how the
// runtime calls a closure.
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
#error "heist/detail/body_forms.hpp is part of heist/heist.hpp: include that"
#endif

namespace heist {

namespace detail {
// Any other signature: the message below, not an incomplete type.
template <class F>
struct FnTraits {
  static_assert(sizeof(F) == 0,  // false for every F: fires only when a wrong body is registered
                "a task body is one of: void f(const In&, Out*); R f(In) or R f(const In&) (R void or "
                "trivially copyable); the same with a heist::Context first (docs/api.md)");
  using In = int;
  using Out = void;
  static constexpr bool returns = false;
  static constexpr bool takes_context = false;
};
template <class I, class O>
struct FnTraits<void (*)(const I&, O*)> {
  using In = I;
  using Out = O;
  static constexpr bool returns = false;
  static constexpr bool takes_context = false;
};
template <class R, class A>
struct FnTraits<R (*)(A)> {
  using In = std::remove_cvref_t<A>;
  using Out = R;
  static constexpr bool returns = !std::is_void_v<R>;
  static constexpr bool takes_context = false;
  static_assert(std::is_same_v<A, In> || std::is_same_v<A, const In&>,
                "a task body takes its input by value or by const reference");
  static_assert(std::is_void_v<R> || std::is_trivially_copyable_v<R>,
                "a task body's returned value must be trivially copyable");
};
// The same forms with a Context first.
template <class I, class O>
struct FnTraits<void (*)(Context, const I&, O*)> : FnTraits<void (*)(const I&, O*)> {
  static constexpr bool takes_context = true;
};
template <class R, class A>
struct FnTraits<R (*)(Context, A)> : FnTraits<R (*)(A)> {
  static constexpr bool takes_context = true;
};

struct ContextAccess {
  static constexpr Context at(WorkerCore* worker, int level) noexcept { return Context(worker, level); }
  static constexpr WorkerCore* worker(Context c) noexcept { return c.worker_; }
#if HEIST_CHECK_CONTEXT
  static Context bound(Context c, const void* body) noexcept {
    c.body_ = body;
    return c;
  }
  static const void* body(Context c) noexcept { return c.body_; }
#endif
};

// The checked mode (HEIST_CHECK_CONTEXT): every task body and closure the
// runtime calls is entered through a CheckedBody on its own stack, which
// the worker's checked_body points at while it is the innermost one (the
// pointer travels with the stack under continuation stealing). A plain
// call asks whether the innermost body takes a Context; a call given a
// Context, whether that Context was made for the innermost body.
#if HEIST_CHECK_CONTEXT
struct CheckedBody {
  explicit CheckedBody(bool context) noexcept : takes_context(context), outer(tls_worker->checked_body) {
    tls_worker->checked_body = this;
  }
  ~CheckedBody() { tls_worker->checked_body = outer; }  // read afresh: the body may end on another worker
  CheckedBody(const CheckedBody&) = delete;
  CheckedBody& operator=(const CheckedBody&) = delete;
  bool takes_context;
  const void* outer;
};
[[noreturn, gnu::noinline, gnu::cold]] inline void context_rule_broken(const char* call, bool plain) {
  throw std::logic_error(
      std::string(call) +
      (plain ? ": a plain call inside a task body that takes a heist::Context; make it through the Context "
               "(e.g. heist::wait(ctx)): the worker does not hold such a body's level"
             : ": given a heist::Context outside the body that received it (another task, a closure, or after "
               "that body returned); a Context belongs to the calls of its own body"));
}
#endif
HEIST_INLINE void check_plain_call([[maybe_unused]] const char* call) {
#if HEIST_CHECK_CONTEXT
  const auto* body = static_cast<const CheckedBody*>(tls_worker->checked_body);
  if (body != nullptr && body->takes_context) context_rule_broken(call, true);
#endif
}
HEIST_INLINE void check_context_call([[maybe_unused]] Context ctx, [[maybe_unused]] const char* call) {
#if HEIST_CHECK_CONTEXT
  if (ContextAccess::body(ctx) != tls_worker->checked_body) context_rule_broken(call, false);
#endif
}
// Calls a closure the runtime runs as a task (async, async_any): a plain body.
template <class F>
HEIST_INLINE void call_closure(F&& f) {
#if HEIST_CHECK_CONTEXT
  const CheckedBody checked(false);
#endif
  std::forward<F>(f)();
}
}  // namespace detail

}  // namespace heist
