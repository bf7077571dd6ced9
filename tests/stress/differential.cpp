// Differential test of the exception contract (docs/programming.md,
// "Exceptions"): seeded random task trees — spawn (registered, migratable
// or Migration::process), spawn_handle and spawn_after, fences, nested
// finish with asyncs (registered and closures), escaping asyncs — with
// random throws, guarded (try/catch) and unguarded joins, run by the
// runtime and by a sequential interpreter of the same tree, which says what
// every task computes, which tasks run, and which exceptions each catch may
// see. Every run is compared with it:
//  * each task's result (a digest of its children's results and of what it
//    caught) equals the interpreter's; a wait() that returned normally
//    found every child's output written, with the expected value;
//  * each catch caught exactly where the interpreter catches, an exception
//    one of the tasks it joins threw (of that type in one process; across
//    ranks its message);
//  * each task ran once where the interpreter runs it, never where it does
//    not; the region fails exactly when the interpreter's root does.
// What the interpreter cannot know (which of several failures a join
// raises, and whether the siblings spawned after a failed child that may
// have run inline were spawned at all) it leaves open, as the contract
// does; a tree whose outcome would hang on it (an escaping async of such a
// maybe-spawned task that throws) is generated again.
//
//   heist_differential [--seeds A:B] [--workers 1,2,4] [--policies all|p,q]
//                      [--plant-fault] [--verbose]
// Under mpirun every rank runs the same configurations (Runtime::root).
// --plant-fault runs with the planted fault in exception routing
// (sched::g_misroute_failures: failures reach the outermost wait, as
// before joins raised them) and exits 0 only if the comparison caught it:
// the test's self-test.
#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "heist/heist.hpp"
#include "sched/task_failure.hpp"

namespace {

// ---------------------------------------------------------------- the tree

enum class How : std::uint8_t { spawn_any, spawn_proc, spawn_handle, spawn_after, async_any, async_proc, async_closure };
enum class Op : std::uint8_t { work, throw_here, spawn_group, finish_group, bare_async };

struct Kid {
  std::uint32_t node;
  How how;
  bool fence_before;
};

struct Stmt {
  Op op;
  bool guarded = false;  // try/catch around the group
  std::vector<Kid> kids;
};

struct Node {
  std::vector<Stmt> body;
};

enum Status : std::uint8_t { never = 0, maybe = 1, certain = 2 };

struct Model {
  std::vector<Node> nodes;
  // The interpreter's answers.
  std::vector<std::uint64_t> digest;  // of a node that completes
  std::vector<std::uint8_t> completes;
  std::vector<Status> runs;
  std::vector<std::vector<std::set<std::uint32_t>>> may_catch;  // [node][stmt]: ids a catch there may see
  bool root_fails = false;
  std::set<std::uint32_t> root_raises;
  bool ambiguous = false;
};

std::uint64_t mix(std::uint64_t h, std::uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  h *= 0xff51afd7ed558ccdULL;
  return h ^ (h >> 33);
}

constexpr std::uint64_t kCaught = 0xC0FFEE;
constexpr std::uint64_t kUnwritten = 0xDEADBEEFDEADBEEFULL;

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    s += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }
  bool chance(unsigned percent) { return below(100) < percent; }
};

struct Generator {
  Rng rng;
  Model& m;
  unsigned max_nodes;

  std::uint32_t node(unsigned depth) {
    const auto id = static_cast<std::uint32_t>(m.nodes.size());
    m.nodes.emplace_back();
    const unsigned statements = 1 + rng.below(3);
    std::vector<Stmt> body;
    for (unsigned s = 0; s < statements; ++s) {
      Stmt st;
      const unsigned r = rng.below(100);
      const bool room = depth < 4 && m.nodes.size() < max_nodes;
      if (!room || r < 25) st.op = r % 8 == 0 ? Op::throw_here : Op::work;
      else if (r < 30) st.op = Op::throw_here;
      else if (r < 68) st.op = Op::spawn_group;
      else if (r < 90) st.op = Op::finish_group;
      else st.op = Op::bare_async;
      st.guarded = rng.chance(60);
      if (st.op == Op::spawn_group || st.op == Op::finish_group || st.op == Op::bare_async) {
        const unsigned kids = st.op == Op::bare_async ? 1 : 1 + rng.below(3);
        bool handle_before = false;
        for (unsigned k = 0; k < kids; ++k) {
          Kid kid{};
          if (st.op == Op::spawn_group && rng.chance(15)) {
            kid.how = rng.chance(50) ? How::async_any : How::async_closure;  // an async between the spawns
          } else if (st.op == Op::spawn_group) {
            const unsigned h = rng.below(handle_before ? 4 : 3);
            kid.how = h == 0 ? How::spawn_any : h == 1 ? How::spawn_proc : h == 2 ? How::spawn_handle : How::spawn_after;
            handle_before = handle_before || kid.how == How::spawn_handle || kid.how == How::spawn_after;
            kid.fence_before = k > 0 && rng.chance(20);
          } else {
            const unsigned h = rng.below(3);
            kid.how = h == 0 ? How::async_any : h == 1 ? How::async_proc : How::async_closure;
          }
          kid.node = node(depth + 1);
          st.kids.push_back(kid);
        }
      }
      body.push_back(std::move(st));
    }
    m.nodes[id].body = std::move(body);
    return id;
  }
};

// ---------------------------------------------------------------- the sequential interpreter

struct Escapes {  // the failures of the asyncs a finish governs
  bool certain = false, possible = false;
  std::set<std::uint32_t> ids;
};

struct Outcome {
  bool fails = false;
  std::set<std::uint32_t> raises;
  std::uint64_t digest = 0;
};

std::uint32_t throw_id(std::uint32_t node, std::size_t stmt) { return node * 8 + static_cast<std::uint32_t>(stmt); }

bool may_run_inline(How how) { return how == How::spawn_any || how == How::spawn_proc; }
bool is_async(How how) { return how == How::async_any || how == How::async_proc || how == How::async_closure; }

// `status`: whether the node runs at all; `sure`: whether it runs given
// that the body of its innermost finish (or the root) runs.
Outcome interpret(Model& m, std::uint32_t id, Status status, bool sure, Escapes& escapes) {
  m.runs[id] = status;
  const Node& n = m.nodes[id];
  Outcome out;
  std::uint64_t d = mix(0x5eed, id);
  for (std::size_t s = 0; s < n.body.size(); ++s) {
    const Stmt& st = n.body[s];
    bool failed = false;
    std::set<std::uint32_t> raised;
    switch (st.op) {
      case Op::work: d = mix(d, 0x57); continue;
      case Op::throw_here:
        out.fails = true;
        out.raises = {throw_id(id, s)};
        return out;
      case Op::bare_async: {
        const Outcome k = interpret(m, st.kids[0].node, status, sure, escapes);
        if (k.fails) {
          (sure ? escapes.certain : escapes.possible) = true;
          escapes.ids.insert(k.raises.begin(), k.raises.end());
        }
        d = mix(d, 0xA5);
        continue;
      }
      case Op::spawn_group: {
        // A child that may have run inline and failed raised at its spawn:
        // the siblings after it may not have been spawned.
        Status kid_status = status;
        bool kid_sure = sure;
        std::uint64_t kids = 0;
        for (const Kid& kid : st.kids) {
          const Outcome k = interpret(m, kid.node, kid_status, kid_sure, escapes);
          if (is_async(kid.how)) {  // governed by the finish around, not joined by this group
            if (k.fails) {
              (kid_sure ? escapes.certain : escapes.possible) = true;
              escapes.ids.insert(k.raises.begin(), k.raises.end());
            }
            continue;
          }
          if (k.fails) {
            failed = true;
            raised.insert(k.raises.begin(), k.raises.end());
            if (may_run_inline(kid.how)) {
              kid_status = std::min(kid_status, maybe);
              kid_sure = false;
            }
          } else {
            kids = mix(kids, k.digest);
          }
        }
        if (!failed) d = mix(d, kids);
        break;
      }
      case Op::finish_group: {
        Escapes inner;
        for (const Kid& kid : st.kids) {
          const Outcome k = interpret(m, kid.node, status, true, inner);
          if (k.fails) {
            inner.certain = true;
            inner.ids.insert(k.raises.begin(), k.raises.end());
          }
        }
        if (!inner.certain && inner.possible) m.ambiguous = true;  // fails or not, by the schedule
        failed = inner.certain;
        raised = inner.ids;
        if (!failed) d = mix(d, 0xF1);
        break;
      }
    }
    if (failed) {
      if (!st.guarded) {
        out.fails = true;
        out.raises = raised;
        return out;
      }
      m.may_catch[id][s] = raised;
      d = mix(d, kCaught);
    }
  }
  out.digest = d;
  m.digest[id] = d;
  m.completes[id] = 1;
  return out;
}

Model make_model(std::uint64_t seed, unsigned max_nodes) {
  for (std::uint64_t attempt = 0;; ++attempt) {
    Model m;
    Generator g{Rng{mix(seed, attempt)}, m, max_nodes};
    g.node(0);
    const std::size_t n = m.nodes.size();
    m.digest.assign(n, 0);
    m.completes.assign(n, 0);
    m.runs.assign(n, never);
    m.may_catch.assign(n, {});
    for (std::size_t i = 0; i < n; ++i) m.may_catch[i].assign(m.nodes[i].body.size(), {});  // every node: a fault may run any
    Escapes top;
    const Outcome root = interpret(m, 0, certain, true, top);
    if (!root.fails && !top.certain && top.possible) m.ambiguous = true;
    if (m.ambiguous) continue;
    // The root's region raises the root's failure or one of its escaping
    // asyncs' (where the region's body runs as a task, on a fiber, both
    // are its tasks' failures: the first recorded is raised).
    m.root_fails = root.fails || top.certain;
    m.root_raises = root.raises;
    m.root_raises.insert(top.ids.begin(), top.ids.end());
    return m;
  }
}

// ---------------------------------------------------------------- the runtime's run

struct DiffError : std::runtime_error {
  explicit DiffError(std::uint32_t id) : std::runtime_error("diff-throw#" + std::to_string(id) + "#") {}
};

const Model* g_model = nullptr;
std::vector<std::atomic<int>>* g_ran = nullptr;
std::atomic<std::uint64_t> g_mismatches{0};
std::mutex g_report_mutex;
std::string g_context;  // the configuration and seed, for reports
bool g_verbose = false;
int g_ranks = 1;
// What the trees held (the first configuration's pass), for the summary.
std::uint64_t g_nodes = 0, g_catches = 0, g_failed_regions = 0;
std::uint64_t g_elsewhere = 0;  // tasks that ran on a rank other than 0 (all configurations)

void mismatch(const std::string& what) {
  if (g_mismatches.fetch_add(1) < 5 || g_verbose) {
    std::lock_guard lock(g_report_mutex);
    std::fprintf(stderr, "MISMATCH [%s]: %s\n", g_context.c_str(), what.c_str());
  }
}

// The thrower's id in an exception's message; -1 if none.
long thrown_id(const std::exception& e) {
  const char* at = std::strstr(e.what(), "diff-throw#");
  if (at == nullptr) return -1;
  return std::strtol(at + std::strlen("diff-throw#"), nullptr, 10);
}

void check_caught(const std::exception& e, const std::set<std::uint32_t>& allowed, const std::string& where,
                  bool message_only = false) {
  const long id = thrown_id(e);
  if (id < 0 || allowed.count(static_cast<std::uint32_t>(id)) == 0) {
    std::string expect;
    for (std::uint32_t a : allowed) expect += std::to_string(a) + " ";
    mismatch(where + " caught \"" + e.what() + "\"; the interpreter allows [" + expect + "]");
    return;
  }
  // Types are kept within a process; across ranks the message travels.
  if (dynamic_cast<const DiffError*>(&e) == nullptr && !message_only &&
      (g_ranks == 1 || std::strstr(e.what(), "threw on rank") == nullptr))
    mismatch(where + " caught \"" + e.what() + "\" without its type (DiffError)");
}

std::uint64_t run_node(std::uint32_t id);

struct NodeIn {
  std::uint32_t node;
};
void spawned_any_body(const NodeIn& in, std::uint64_t* out) { *out = run_node(in.node); }
void spawned_proc_body(const NodeIn& in, std::uint64_t* out) { *out = run_node(in.node); }
void async_any_body(const NodeIn& in) { (void)run_node(in.node); }
void async_proc_body(const NodeIn& in) { (void)run_node(in.node); }
const auto spawn_any_task = heist::register_task<spawned_any_body>("differential.spawn");
const auto spawn_proc_task = heist::register_task<spawned_proc_body>("differential.spawn_process", heist::Migration::process);
const auto async_any_task = heist::register_task<async_any_body>("differential.async");
const auto async_proc_task = heist::register_task<async_proc_body>("differential.async_process", heist::Migration::process);

void spin(std::uint32_t id) {
  volatile std::uint64_t x = id;
  const unsigned n = static_cast<unsigned>(mix(id, 7) % 4000);
  for (unsigned i = 0; i < n; ++i) x = x * 3 + 1;
}

void launch_async(const Kid& kid) {
  switch (kid.how) {
    case How::async_any: heist::async(async_any_task, NodeIn{kid.node}); break;
    case How::async_proc: heist::async(async_proc_task, NodeIn{kid.node}); break;
    default: {
      const std::uint32_t node = kid.node;
      heist::async([node] { (void)run_node(node); });
    }
  }
}

std::uint64_t run_node(std::uint32_t id) {
  const Model& m = *g_model;
  (*g_ran)[id].fetch_add(1, std::memory_order_relaxed);
  const Node& n = m.nodes[id];
  const std::string where = "node " + std::to_string(id);
  std::uint64_t d = mix(0x5eed, id);
  spin(id);
  for (std::size_t s = 0; s < n.body.size(); ++s) {
    const Stmt& st = n.body[s];
    const std::string at = where + " statement " + std::to_string(s);
    switch (st.op) {
      case Op::work: spin(id + static_cast<std::uint32_t>(s)); d = mix(d, 0x57); continue;
      case Op::throw_here: throw DiffError(throw_id(id, s));
      case Op::bare_async: launch_async(st.kids[0]); d = mix(d, 0xA5); continue;
      case Op::spawn_group: {
        const std::size_t k = st.kids.size();
        std::vector<std::uint64_t> outs(k, kUnwritten);
        std::vector<heist::TaskHandle> handles(k);
        auto group = [&] {
          heist::TaskHandle last;
          for (std::size_t i = 0; i < k; ++i) {
            const Kid& kid = st.kids[i];
            if (kid.fence_before) heist::fence();
            const NodeIn in{kid.node};
            switch (kid.how) {
              case How::spawn_any: heist::spawn(spawn_any_task, in, &outs[i]); break;
              case How::spawn_proc: heist::spawn(spawn_proc_task, in, &outs[i]); break;
              case How::spawn_handle: last = handles[i] = heist::spawn_handle(spawn_any_task, in, &outs[i]); break;
              case How::spawn_after: last = handles[i] = heist::spawn_after({last}, spawn_any_task, in, &outs[i]); break;
              default: launch_async(kid); break;
            }
          }
          heist::wait();
        };
        if (!st.guarded) {
          group();
        } else {
          try {
            group();
          } catch (const std::exception& e) {
            if (m.may_catch[id][s].empty()) mismatch(at + " caught \"" + e.what() + "\"; the interpreter catches nothing there");
            else check_caught(e, m.may_catch[id][s], at);
            d = mix(d, kCaught);
            continue;
          }
        }
        if (!m.may_catch[id][s].empty()) mismatch(at + ": wait() returned normally; the interpreter raises there");
        std::uint64_t kids = 0;
        for (std::size_t i = 0; i < k; ++i) {
          const std::uint32_t c = st.kids[i].node;
          if (is_async(st.kids[i].how)) continue;
          if (outs[i] == kUnwritten) mismatch(at + ": wait() returned, child " + std::to_string(c) + "'s output unwritten");
          else if (!m.completes[c] || outs[i] != m.digest[c]) mismatch(at + ": child " + std::to_string(c) + "'s output differs");
          kids = mix(kids, outs[i]);
        }
        d = mix(d, kids);
        continue;
      }
      case Op::finish_group: {
        auto group = [&] {
          heist::finish([&] {
            for (const Kid& kid : st.kids) launch_async(kid);
          });
        };
        if (!st.guarded) {
          group();
        } else {
          try {
            group();
          } catch (const std::exception& e) {
            if (m.may_catch[id][s].empty()) mismatch(at + " (finish) caught \"" + e.what() + "\"; the interpreter catches nothing there");
            else check_caught(e, m.may_catch[id][s], at + " (finish)");
            d = mix(d, kCaught);
            continue;
          }
        }
        if (!m.may_catch[id][s].empty()) mismatch(at + ": finish returned normally; the interpreter raises there");
        d = mix(d, 0xF1);
        continue;
      }
    }
  }
  if (!m.completes[id]) mismatch(where + " completed; the interpreter's fails");
  else if (d != m.digest[id]) mismatch(where + "'s result differs from the interpreter's");
  return d;
}

// ---------------------------------------------------------------- configurations

struct Config {
  heist::SpawnPolicy policy;
  int workers;
  bool continuations;  // fibers and suspending waits under a stack policy
};

std::string name(const Config& c) {
  return std::string(heist::to_string(c.policy)) + " x" + std::to_string(c.workers) + (c.continuations ? " +fibers" : "");
}

// One seed under the running Runtime; returns the mismatches it found
// (on rank 0 with several ranks: every rank's, summed).
std::uint64_t run_seed(heist::Runtime& rt, std::uint64_t seed, unsigned max_nodes) {
  const Model m = make_model(seed, max_nodes);
  g_nodes += m.nodes.size();
  g_failed_regions += m.root_fails;
  for (const auto& stmts : m.may_catch)
    for (const auto& ids : stmts) g_catches += !ids.empty();
  std::vector<std::atomic<int>> ran(m.nodes.size());
  g_model = &m;
  g_ran = &ran;
  const std::uint64_t before = g_mismatches.load();
  std::uint64_t out = kUnwritten;
  bool failed = false;
  try {
    rt.root([&] {
      heist::spawn(spawn_any_task, NodeIn{0}, &out);
      heist::wait();
    });
  } catch (const std::exception& e) {
    failed = true;
    if (!m.root_fails) mismatch(std::string("the region failed: \"") + e.what() + "\"; the interpreter's completes");
    // Another rank's region throws "heist: rank R: <message>".
    else check_caught(e, m.root_raises, "the region", rt.rank() != 0);
  }
  if (!failed && m.root_fails) mismatch("the region completed; the interpreter's fails");
  if (!failed && rt.rank() == 0 && out != m.digest[0]) mismatch("the root's result differs");
  std::uint64_t here = 0;
  for (const auto& r : ran) here += static_cast<std::uint64_t>(r.load());
  g_elsewhere += rt.sum_over_ranks(rt.rank() == 0 ? 0 : here);
  // Runs by node: 2 bits a node, summed over the ranks.
  for (std::size_t base = 0; base < m.nodes.size(); base += 32) {
    std::uint64_t packed = 0;
    for (std::size_t i = base; i < std::min(base + 32, m.nodes.size()); ++i)
      packed |= static_cast<std::uint64_t>(std::min(ran[i].load(), 3)) << (2 * (i - base));
    packed = rt.sum_over_ranks(packed);
    for (std::size_t i = base; i < std::min(base + 32, m.nodes.size()); ++i) {
      const int runs = static_cast<int>((packed >> (2 * (i - base))) & 3);
      const Status s = m.runs[i];
      if ((s == certain && runs != 1) || (s == maybe && runs > 1) || (s == never && runs != 0))
        mismatch("node " + std::to_string(i) + " ran " + std::to_string(runs) + " times; the interpreter says " +
                 (s == certain ? "once" : s == maybe ? "at most once" : "never"));
    }
  }
  g_model = nullptr;
  g_ran = nullptr;
  return rt.sum_over_ranks(g_mismatches.load() - before);
}

const char* how_name(How h) {
  static const char* const names[] = {"spawn", "spawn(process)", "spawn_handle", "spawn_after", "async", "async(process)", "async(closure)"};
  return names[static_cast<int>(h)];
}

// The tree of one seed and the interpreter's answers, for a failure's report.
void dump(std::uint64_t seed, unsigned max_nodes) {
  const Model m = make_model(seed, max_nodes);
  static const char* const ops[] = {"work", "throw", "spawn group", "finish group", "async"};
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    std::printf("node %zu (%s, %s):\n", i, m.completes[i] ? "completes" : "fails",
                m.runs[i] == certain ? "runs" : m.runs[i] == maybe ? "may run" : "never runs");
    for (std::size_t s = 0; s < m.nodes[i].body.size(); ++s) {
      const Stmt& st = m.nodes[i].body[s];
      std::printf("  %zu: %s%s", s, ops[static_cast<int>(st.op)], st.guarded && (st.op == Op::spawn_group || st.op == Op::finish_group) ? " in try" : "");
      if (st.op == Op::throw_here) std::printf(" #%u", throw_id(static_cast<std::uint32_t>(i), s));
      for (const Kid& k : st.kids) std::printf(" %s%s %u", k.fence_before ? "fence, " : "", how_name(k.how), k.node);
      std::printf("\n");
    }
  }
}

std::vector<int> parse_ints(const std::string& s) {
  std::vector<int> v;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t comma = s.find(',', at);
    v.push_back(std::atoi(s.substr(at, comma - at).c_str()));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t first = 1, last = 24;
  std::vector<int> workers{1, 2, 4};
  std::string policies = "all";
  bool plant = false;
  unsigned max_nodes = 48;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has = i + 1 < argc;
    if (a == "--seeds" && has) {
      const std::string v = argv[++i];
      const std::size_t colon = v.find(':');
      first = std::strtoull(v.c_str(), nullptr, 10);
      last = colon == std::string::npos ? first : std::strtoull(v.c_str() + colon + 1, nullptr, 10);
    } else if (a == "--workers" && has) {
      workers = parse_ints(argv[++i]);
    } else if (a == "--policies" && has) {
      policies = argv[++i];
    } else if (a == "--max-nodes" && has) {
      max_nodes = static_cast<unsigned>(std::atoi(argv[++i]));
    } else if (a == "--plant-fault") {
      plant = true;
    } else if (a == "--verbose") {
      g_verbose = true;
    } else if (a == "--dump" && has) {
      dump(std::strtoull(argv[++i], nullptr, 10), max_nodes);
      return 0;
    } else {
      std::fprintf(stderr,
                   "usage: %s [--seeds A:B] [--workers 1,2,4] [--policies all|p,q] [--max-nodes N] [--plant-fault] "
                   "[--verbose] [--dump SEED]\n",
                   argv[0]);
      return 2;
    }
  }
  heist::sched::g_misroute_failures.store(plant);
  std::vector<Config> configs;
  for (heist::SpawnPolicy p : {heist::SpawnPolicy::help_first, heist::SpawnPolicy::inline_child, heist::SpawnPolicy::bounded,
                               heist::SpawnPolicy::slaw, heist::SpawnPolicy::work_first, heist::SpawnPolicy::adaptive}) {
    if (policies != "all" && ("," + policies + ",").find("," + std::string(heist::to_string(p)) + ",") == std::string::npos)
      continue;
    for (int w : workers) configs.push_back({p, w, false});
    // The stack policies once more on fibers, waits suspending.
    if (p == heist::SpawnPolicy::help_first || p == heist::SpawnPolicy::bounded)
      configs.push_back({p, workers.back(), true});
  }
  std::uint64_t total = 0, trees = 0, nodes = 0, catches = 0, failed_regions = 0;
  int rank = 0;
  for (const Config& c : configs) {
    heist::Options o;
    o.policy = c.policy;
    o.workers = c.workers;
    if (c.continuations) {
      o.continuations = heist::ContinuationMode::on;
      o.suspend_waits = heist::SuspendWaits::on;
    }
    heist::Runtime rt(o);
    rank = rt.rank();
    g_ranks = rt.ranks();
    std::uint64_t found = 0;
    for (std::uint64_t seed = first; seed <= last; ++seed) {
      g_context = name(c) + (g_ranks > 1 ? " ranks " + std::to_string(g_ranks) : "") + " seed " + std::to_string(seed);
      found += run_seed(rt, seed, max_nodes);
      ++trees;
    }
    if (rank == 0 && (found > 0 || g_verbose))
      std::printf("%-28s seeds %" PRIu64 "-%" PRIu64 ": %" PRIu64 " mismatches\n", name(c).c_str(), first, last, found);
    total += found;
    if (nodes == 0) {
      nodes = g_nodes;
      catches = g_catches;
      failed_regions = g_failed_regions;
    }
  }
  if (rank == 0) {
    std::printf("differential: %" PRIu64 " trees (a configuration's: %" PRIu64 " tasks, %" PRIu64 " joins that catch, %" PRIu64
                " regions that fail), %zu configurations x %d rank(s) (%" PRIu64 " tasks ran on ranks > 0), %" PRIu64
                " mismatches%s\n",
                trees, nodes, catches, failed_regions, configs.size(), g_ranks, g_elsewhere, total,
                plant ? " (planted fault)" : "");
  }
  if (plant) {
    if (rank == 0) std::printf(total > 0 ? "the planted fault was caught\n" : "the planted fault went UNNOTICED\n");
    return total > 0 ? 0 : 1;
  }
  return total == 0 ? 0 : 1;
}
