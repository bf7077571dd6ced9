// The simulator's workloads: the task trees of the real apps, generated on
// the fly by the apps' own code (apps/uts's SHA-1 tree, apps/nqueens's board
// placement, apps/fib's recursion, apps/bpc's producer/consumer chain), one
// node at a time — no trace is ever stored.
//
// A workload is a type with
//   Task                     the task's input (trivially copyable, small)
//   Cursor                   the iteration over one task's children
//   static constexpr bool kJoins    spawn + wait (a task waits for its queued
//                                   children, running them nested) or escaping
//                                   asyncs (it returns and leaves them queued)
//   Task root() const
//   Cursor open(const Task&, Work&) const   children to come, and the work the
//                                   task does itself besides spawning
//   bool next(Cursor&, Task& child) const   the next child, false when none
//   static bool empty(const Cursor&)        no child (left) to spawn
//   std::size_t input_bytes() const         the task's input, as the runtime copies it
#pragma once

#include <bit>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "bpc/bpc.hpp"
#include "fib/fib.hpp"
#include "nqueens/nqueens.hpp"
#include "uts/uts_params.hpp"
#include "uts/uts_tree.hpp"

namespace heist::sim {

// What a task does besides spawning: nodes of the app's sequential kernel it
// runs below a cutoff, and fixed busy time (BPC's tasks).
struct Work {
  std::uint64_t sequential_nodes = 0;
  double busy_ns = 0;
};

// ---- fib: fib(n) spawns fib(n-1) and fib(n-2); below the cutoff (or n < 2)
// a task runs fib_sequential, fib_calls(n) calls (apps/fib/fib_kernels.cpp).
class FibWorkload {
 public:
  struct Task {
    std::int32_t n;
  };
  struct Cursor {
    std::int32_t n;
    std::int32_t next;  // children made so far (0..2)
  };
  static constexpr bool kJoins = true;

  FibWorkload(int n, int cutoff) : n_(n), cutoff_(cutoff) {}
  Task root() const noexcept { return {n_}; }
  Cursor open(const Task& t, Work& w) const noexcept {
    if (t.n < 2) return {t.n, 2};
    if (t.n < cutoff_) {
      w.sequential_nodes = apps::fib::fib_calls(t.n);
      return {t.n, 2};
    }
    return {t.n, 0};
  }
  static bool empty(const Cursor& c) noexcept { return c.next >= 2; }
  bool next(Cursor& c, Task& child) const noexcept {
    if (c.next >= 2) return false;
    child.n = c.n - 1 - c.next++;
    return true;
  }
  std::size_t input_bytes() const noexcept { return 2 * sizeof(std::int32_t); }  // FibIn{n, cutoff}
  nlohmann::json params() const { return {{"n", n_}, {"cutoff", cutoff_}}; }
  // Sequential kernel nodes of the whole computation (calibration).
  std::uint64_t sequential_nodes_total() const noexcept { return apps::fib::fib_calls(n_); }

 private:
  int n_, cutoff_;
};

// ---- nqueens: one task per partial placement (apps/nqueens); rows >= the
// cutoff (if > 0) are counted sequentially inside the task.
class NqueensWorkload {
 public:
  using Task = apps::nqueens::Board;
  struct Cursor {
    Task board;
    std::uint32_t free;  // columns still to place a queen on
  };
  static constexpr bool kJoins = true;

  NqueensWorkload(int n, int cutoff) : n_(n), cutoff_(cutoff) {}
  Task root() const noexcept { return apps::nqueens::empty_board(static_cast<std::uint32_t>(n_)); }
  Cursor open(const Task& b, Work& w) const noexcept {
    if (b.row == b.n) return {b, 0};
    if (cutoff_ != 0 && b.row >= static_cast<std::uint32_t>(cutoff_)) {
      w.sequential_nodes = subtree_nodes(b);
      return {b, 0};
    }
    return {b, ~(b.cols | b.diag_left | b.diag_right) & apps::nqueens::full_mask(b.n)};
  }
  static bool empty(const Cursor& c) noexcept { return c.free == 0; }
  bool next(Cursor& c, Task& child) const noexcept {
    if (c.free == 0) return false;
    const std::uint32_t bit = c.free & (0u - c.free);
    c.free ^= bit;
    child = apps::nqueens::place(c.board, bit);
    return true;
  }
  std::size_t input_bytes() const noexcept { return sizeof(Task) + sizeof(std::uint32_t); }  // QueensIn
  nlohmann::json params() const { return {{"n", n_}, {"cutoff", cutoff_}}; }
  // Calls count_sequential makes below `b`, b included.
  static std::uint64_t subtree_nodes(const Task& b) noexcept;
  std::uint64_t sequential_nodes_total() const noexcept { return subtree_nodes(root()); }

 private:
  int n_, cutoff_;
};

// ---- uts: one task per tree node (apps/uts/uts_heist.cpp: escaping asyncs);
// a child is made (one SHA-1) when its parent spawns it.
class UtsWorkload {
 public:
  using Task = uts::UtsNode;
  struct Cursor {
    Task parent;
    std::int32_t next;
    std::int32_t count;
  };
  static constexpr bool kJoins = false;

  UtsWorkload(std::string tree, const uts::UtsParams& params) : tree_(std::move(tree)), p_(params) {}
  Task root() const noexcept { return uts::make_root(p_); }
  Cursor open(const Task& t, Work&) const noexcept { return {t, 0, uts::num_children(p_, t)}; }
  static bool empty(const Cursor& c) noexcept { return c.next >= c.count; }
  bool next(Cursor& c, Task& child) const noexcept {
    if (c.next >= c.count) return false;
    child = uts::make_child(p_, c.parent, c.next++);
    return true;
  }
  std::size_t input_bytes() const noexcept { return sizeof(Task); }
  nlohmann::json params() const { return {{"tree", tree_}, {"uts", uts::describe(p_)}}; }
  const uts::UtsParams& uts_params() const noexcept { return p_; }
  std::uint64_t sequential_nodes_total() const noexcept { return 0; }

 private:
  std::string tree_;
  uts::UtsParams p_;
};

// ---- bpc: a producer spawns the next producer first (it is the oldest task
// of its queue, the one thieves take) and then its consumers; every task
// busy-waits its duration (apps/bpc/bpc_kernels.cpp).
class BpcWorkload {
 public:
  struct Task {
    std::uint32_t level;     // producer: its place in the chain
    std::uint32_t producer;  // 1 producer, 0 consumer
  };
  struct Cursor {
    std::uint32_t level;
    std::uint32_t next;
    std::uint32_t count;
  };
  static constexpr bool kJoins = false;

  explicit BpcWorkload(const apps::bpc::BpcParams& p) : p_(p) {}
  Task root() const noexcept { return {0, 1}; }
  Cursor open(const Task& t, Work& w) const noexcept {
    if (t.producer == 0) {
      w.busy_ns = p_.consumer_ns;
      return {t.level, 0, 0};
    }
    w.busy_ns = p_.producer_ns;
    const std::uint32_t successor = t.level + 1 < p_.depth ? 1 : 0;
    return {t.level, 1 - successor, 1 + p_.consumers};
  }
  static bool empty(const Cursor& c) noexcept { return c.next >= c.count; }
  bool next(Cursor& c, Task& child) const noexcept {
    if (c.next >= c.count) return false;
    child = c.next == 0 ? Task{c.level + 1, 1} : Task{c.level, 0};
    ++c.next;
    return true;
  }
  std::size_t input_bytes() const noexcept { return sizeof(apps::bpc::BpcParams) + sizeof(std::uint32_t); }
  nlohmann::json params() const {
    return {{"depth", p_.depth}, {"consumers", p_.consumers}, {"consumer_us", p_.consumer_ns / 1000.0},
            {"producer_us", p_.producer_ns / 1000.0}};
  }
  std::uint64_t sequential_nodes_total() const noexcept { return 0; }

 private:
  apps::bpc::BpcParams p_;
};

}  // namespace heist::sim
