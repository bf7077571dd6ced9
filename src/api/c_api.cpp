// The C API (heist.h): HotSLAW's task-queue calls on top of the C++ runtime.
// No exception crosses into C: each call catches, records the message for
// heist_last_error(), and returns an error value.
#include "heist/heist.h"

#include <cstdarg>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "heist/heist.hpp"
#include "heist/option_table.hpp"
#include "sched/worker.hpp"
#include "task/task_registry.hpp"

struct heist_taskq {
  struct Function {
    heist_task_fn fn;
    std::uint32_t id;
    std::size_t in_size;
  };
  std::vector<Function> functions;
  std::unique_ptr<heist::Runtime> runtime;
};

namespace {

thread_local std::string g_last_error;
bool g_allocated = false;
std::string g_env_error;  // why the HEIST_* environment was refused; heist_taskq_all_alloc fails with it

heist::Options& pending() {
  static heist::Options options = [] {
    try {
      return heist::Options::from_env();
    } catch (const std::exception& e) {
      g_env_error = e.what();
      return heist::Options{};
    }
  }();
  return options;
}

template <class F>
int guarded(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    g_last_error = e.what();
  } catch (...) {
    g_last_error = "unknown error";
  }
  return -1;
}

template <class Apply>
int configure(Apply&& apply) {
  return guarded([&] {
    if (g_allocated) throw std::logic_error("heist_taskq_set_*: the task queue is already allocated");
    apply(pending());
    return 0;
  });
}

}  // namespace

extern "C" {

int heist_taskq_set_workers(int workers) {
  return configure([&](heist::Options& o) { heist::option_table()[0].set(o, std::to_string(workers)); });
}

int heist_taskq_set_policy(const char* policy) {
  return configure([&](heist::Options& o) { o.policy = heist::parse_spawn_policy(policy ? policy : ""); });
}

int heist_taskq_set_queue_bound(int bound) {
  return configure([&](heist::Options& o) {
    if (bound < 1) throw heist::OptionError("heist_taskq_set_queue_bound: bound must be >= 1");
    o.queue_bound = bound;
  });
}

int heist_taskq_set_chunk(const char* chunk) {
  return configure([&](heist::Options& o) { o.chunk = heist::parse_chunk(chunk ? chunk : ""); });
}

heist_taskq_t* heist_taskq_all_alloc(int nfunc, ...) {
  va_list args;
  va_start(args, nfunc);
  heist_taskq_t* result = nullptr;
  guarded([&] {
    if (g_allocated) throw std::logic_error("heist_taskq_all_alloc: a task queue is already allocated");
    if (nfunc < 1) throw std::invalid_argument("heist_taskq_all_alloc: nfunc must be >= 1");
    (void)pending();
    if (!g_env_error.empty()) throw heist::OptionError(g_env_error);
    auto q = std::make_unique<heist_taskq>();
    auto& registry = heist::task::TaskRegistry::global();
    for (int i = 0; i < nfunc; ++i) {
      auto fn = va_arg(args, heist_task_fn);
      const std::size_t in_size = va_arg(args, std::size_t);
      const std::size_t out_size = va_arg(args, std::size_t);
      if (fn == nullptr || in_size > 65535 || out_size > (std::size_t{1} << 40))
        throw std::invalid_argument("heist_taskq_all_alloc: function " + std::to_string(i) +
                                    ": null function or implausible size (sizes are size_t)");
      const auto key = reinterpret_cast<const void*>(fn);
      std::uint32_t id;
      if (auto known = registry.find_key(key)) {
        id = *known;
        if (registry[id].in_size != in_size)
          throw std::invalid_argument("heist_taskq_all_alloc: function " + std::to_string(i) +
                                      " registered earlier with another input size");
      } else {
        // Named by position: every process allocates the same functions in
        // the same order, so names (and ids) agree across ranks.
        id = registry.add("c:" + std::to_string(registry.size()), fn,
                          in_size, out_size, key);
      }
      q->functions.push_back({fn, id, in_size});
    }
    q->runtime = std::make_unique<heist::Runtime>(pending());
    g_allocated = true;
    result = q.release();
    return 0;
  });
  va_end(args);
  return result;
}

int heist_taskq_put(heist_taskq_t* q, heist_task_fn fn, void* in, void* out) {
  return guarded([&] {
    if (q == nullptr) throw std::invalid_argument("heist_taskq_put: null queue");
    for (const auto& f : q->functions) {
      if (f.fn != fn) continue;
      if (heist::detail::WorkerCore* w = heist::detail::take_inline()) {
        heist::detail::run_inline(w, [&] { fn(in, out); });
        return 0;
      }
      heist::detail::spawn_registered(f.id, in, f.in_size, out, heist::detail::Join::joined);
      return 0;
    }
    throw std::invalid_argument("heist_taskq_put: function was not registered by heist_taskq_all_alloc");
  });
}

int heist_taskq_execute(heist_taskq_t* q) {
  (void)q;
  return guarded([] {
    auto* w = heist::sched::Worker::current();
    if (w == nullptr) throw std::logic_error("heist_taskq_execute: called outside the runtime");
    return w->execute_one() ? 1 : 0;
  });
}

int heist_taskq_steal(heist_taskq_t* q) {
  (void)q;
  return guarded([] {
    auto* w = heist::sched::Worker::current();
    if (w == nullptr) throw std::logic_error("heist_taskq_steal: called outside the runtime");
    return static_cast<int>(w->steal_once());
  });
}

int heist_taskq_wait(heist_taskq_t* q) {
  (void)q;
  return guarded([] {
    heist::wait();
    return 0;
  });
}

int heist_taskq_fence(heist_taskq_t* q) {
  (void)q;
  return guarded([] {
    heist::fence();
    return 0;
  });
}

int heist_taskq_all_is_empty(heist_taskq_t* q) {
  (void)q;
  return guarded([] {
    auto* w = heist::sched::Worker::current();
    if (w == nullptr) throw std::logic_error("heist_taskq_all_is_empty: called outside the runtime");
    return w->root_empty() ? 1 : 0;
  });
}

void heist_taskq_free(heist_taskq_t* q) {
  guarded([&] {
    delete q;
    g_allocated = false;
    return 0;
  });
}

const char* heist_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"
