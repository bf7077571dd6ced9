// Multi-rank fault scenarios, run under mpirun by CTest (tests/mpi/CMakeLists.txt):
//   hold        rank 0's root keeps every rank busy for --hold-s seconds; with
//               --kill-rank-after-ms R:MS the job must die (non-zero, naming
//               rank R) long before; exits 0 only if nothing killed it.
//   abort       rank --fault-rank's own task calls std::abort() while every rank
//               computes: the job must end non-zero.
//   exit        the same with std::exit(3) inside the task.
//   throw       exceptions across ranks: (1) root mode: tasks that run on a rank
//               other than 0 throw; (2) pool mode: a descendant of a task seeded
//               on --fault-rank throws there. Every rank must see the region
//               fail with the thrower's message; exits 0 iff so.
// Every run is bounded: a hang fails the test through its CTest timeout.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>
#include <heist/heist.hpp>
#include <heist/option_table.hpp>

namespace {

heist::Runtime* g_runtime = nullptr;
int g_fault_rank = 1;
double g_hold_s = 30;

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

void spin_us(int us) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  while (std::chrono::steady_clock::now() < until) {
  }
}

// ---- hold: waves of 1 ms tasks until the deadline ----
struct Until {
  std::int64_t deadline_ms;
  int depth;
};
void busy(const Until& u);
const auto busy_task = heist::register_task<busy>("fault_driver.busy");
// A binary tree of escaping asyncs, 2^11 - 1 tasks of 1 ms (less past the deadline).
void busy(const Until& u) {
  if (now_ms() >= u.deadline_ms) return;
  spin_us(1000);
  if (u.depth >= 10) return;
  heist::async(busy_task, Until{u.deadline_ms, u.depth + 1});
  heist::async(busy_task, Until{u.deadline_ms, u.depth + 1});
}

heist::Options g_options = heist::Options::from_env();

int run_hold() {
  heist::Runtime rt(g_options);
  const Until u{now_ms() + static_cast<std::int64_t>(g_hold_s * 1000), 0};
  rt.root([&] {
    while (now_ms() < u.deadline_ms) heist::finish([&] { heist::async(busy_task, u); });
  });
  if (rt.rank() == 0) std::printf("hold: ran %.1f s without a fault\n", g_hold_s);
  return 0;
}

// ---- abort / exit inside a task on the fault rank ----
enum class Fault : int { abort_process, exit_process, throw_error };
struct FaultInput {
  Fault fault;
  std::int64_t deadline_ms;
};
void faulty(const FaultInput& in) {
  spin_us(20000);  // every rank is inside the region by now
  static const char* const what[] = {"abort()", "exit(3)", "throw"};
  std::fprintf(stderr, "fault_driver: rank %d: %s in a task\n", g_runtime->rank(), what[static_cast<int>(in.fault)]);
  std::fflush(stderr);
  switch (in.fault) {
    case Fault::abort_process: std::abort();
    case Fault::exit_process: std::exit(3);
    case Fault::throw_error:
      throw std::runtime_error("boom in a descendant on rank " + std::to_string(g_runtime->rank()));
  }
}
// Process-local: it runs on the rank where its parent ran.
const auto faulty_task = heist::register_task<faulty>("fault_driver.faulty", heist::Migration::process);
// Seeds the fault below a level of escaping asyncs, so that it runs as a
// descendant (under a proxy finish when its parent was stolen).
void parent(const FaultInput& in) { heist::async(faulty_task, in); }
const auto parent_task = heist::register_task<parent>("fault_driver.parent");

int run_fault(Fault fault) {
  heist::Runtime rt(g_options);
  g_runtime = &rt;
  const FaultInput in{fault, now_ms() + static_cast<std::int64_t>(g_hold_s * 1000)};
  try {
    rt.pool([&] {
      if (rt.rank() == g_fault_rank) heist::async(faulty_task, in);
      for (int i = 0; i < 2; ++i) heist::async(busy_task, Until{now_ms() + 2000, 3});
    });
  } catch (const std::exception& e) {
    std::printf("rank %d: region failed: %s\n", rt.rank(), e.what());
    return 1;
  }
  std::printf("rank %d: no fault happened\n", rt.rank());
  return 0;
}

// ---- throw: exceptions reach every rank ----
std::atomic<int> g_thrown{0};
void maybe_throw(const int& i) {
  spin_us(2000);
  if (g_runtime->rank() != 0) {
    g_thrown.fetch_add(1);
    throw std::runtime_error("boom from task " + std::to_string(i));
  }
}
const auto maybe_throw_task = heist::register_task<maybe_throw>("fault_driver.maybe_throw");

int run_throw() {
  heist::Runtime rt(g_options);
  g_runtime = &rt;
  bool ok = true;
  // (1) Root mode: tasks spawned on rank 0 that throw where they were stolen.
  std::string message;
  try {
    rt.root([&] {
      for (int i = 0; i < 400; ++i) heist::async(maybe_throw_task, i);
    });
  } catch (const std::exception& e) {
    message = e.what();
  }
  const std::uint64_t thrown = rt.sum_over_ranks(static_cast<std::uint64_t>(g_thrown.load()));
  if (thrown == 0) {
    if (rt.rank() == 0) std::printf("throw/root: no task ran outside rank 0: inconclusive\n");
    ok = false;
  } else if (message.find("boom from task") == std::string::npos) {
    std::printf("throw/root: rank %d: region did not fail with the task's message (got '%s')\n", rt.rank(),
                message.c_str());
    ok = false;
  } else if (rt.rank() == 0) {
    std::printf("throw/root: rank 0: %s\n", message.c_str());
  }
  // (2) Pool mode: a descendant throws on the fault rank.
  message.clear();
  try {
    rt.pool([&] {
      if (rt.rank() == g_fault_rank) heist::async(parent_task, FaultInput{Fault::throw_error, 0});
    });
  } catch (const std::exception& e) {
    message = e.what();
  }
  const std::string want = "boom in a descendant on rank ";  // whichever rank ran it
  if (message.find(want) == std::string::npos) {
    std::printf("throw/pool: rank %d: region did not fail with '%s' (got '%s')\n", rt.rank(), want.c_str(),
                message.c_str());
    ok = false;
  } else if (rt.rank() == 0) {
    std::printf("throw/pool: rank 0: %s\n", message.c_str());
  }
  // The runtime stays usable after a failed region.
  std::atomic<int> ran{0};
  rt.root([&] {
    for (int i = 0; i < 10; ++i) heist::async([&ran] { ran.fetch_add(1); });
  });
  if (rt.rank() == 0 && ran.load() != 10) ok = false;
  const std::uint64_t failures = rt.sum_over_ranks(ok ? 0 : 1);
  if (rt.rank() == 0) std::printf("throw: %s\n", failures == 0 ? "every rank saw both failures" : "FAILED");
  return failures == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"heist multi-rank fault driver"};
  app.require_subcommand(1);
  for (const heist::OptionSpec& spec : heist::option_table())
    app.add_option_function<std::string>(spec.flag, [&spec](const std::string& v) { spec.set(g_options, v); },
                                         spec.help);
  app.add_option("--fault-rank", g_fault_rank, "the rank where the fault happens");
  app.add_option("--hold-s", g_hold_s, "hold: seconds to keep every rank busy");
  int rc = 0;
  app.add_subcommand("hold")->fallthrough()->callback([&] { rc = run_hold(); });
  app.add_subcommand("abort")->fallthrough()->callback([&] { rc = run_fault(Fault::abort_process); });
  app.add_subcommand("exit")->fallthrough()->callback([&] { rc = run_fault(Fault::exit_process); });
  app.add_subcommand("throw")->fallthrough()->callback([&] { rc = run_throw(); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fault_driver: %s\n", e.what());
    return 2;
  }
  return rc;
}
