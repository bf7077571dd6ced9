// Distributor, the locality part: SWS offer caps, success-only requests and
// their answers, Chameleon-style pushes, the task mailbox (distributor.hpp
// explains the scheme; task_mailbox.hpp the delivery protocol).
//
// Threads: request() runs on any worker; the board copy and buffers used are
// the calling worker's (PerWorker). requested_[r] is an atomic flag so that
// two workers never queue two requests at one rank: the exchange makes
// exactly one of them the poster. Relaxed, as every access to it: the flag
// guards no data (the victim counts requests itself, in its window, and the
// delivery that clears the flag arrives after the victim read the request).
// remote_busy_ (--remote-steal sequential) is relaxed for the same reason:
// it only keeps a second worker from stealing remotely, and every buffer a
// remote steal uses is the stealing worker's own. serve_requests,
// publish_load and push_step run under the owner lock.
#include <algorithm>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "rma/distributor.hpp"
#include "platform/timer.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"

namespace heist::rma {

void Distributor::setup_locality() {
  const Options& o = sched_.options();
  success_only_ = o.victim.kind == VictimSpec::Kind::success_only && o.balance == BalanceMode::steal;
  push_ = o.balance == BalanceMode::push;
  bool same_node_peers = false, other_nodes = false;
  for (int r = 0; r < ranks_; ++r) {
    if (r == rank_) continue;
    (node_of(r) == node_of(rank_) ? same_node_peers : other_nodes) = true;
  }
  // Who may steal one-sidedly from this process's public queue.
  const bool node_thieves = !push_ && same_node_peers;
  const bool machine_thieves = !push_ && !success_only_ && other_nodes;
  one_sided_thieves_ = node_thieves || machine_thieves;
  // SWS: the thief's block is the protocol's (block i of the steal-half
  // sequence of the offer, at most half of it); offering at most 2k tasks
  // keeps every block within k when each remote level asks for at most k.
  if (o.protocol == StealProtocolKind::sws) {
    std::uint32_t cap = 0;
    for (const auto& [present, level] : {std::pair{node_thieves, policy::Level::node},
                                         std::pair{machine_thieves, policy::Level::machine}}) {
      if (!present) continue;
      const std::uint32_t k = chunk_.at(level);
      if (k == ChunkSpec::kHalf) {
        cap = 0;
        break;
      }
      cap = std::max(cap, 2 * k);
    }
    sws_offer_cap_ = cap;
  }
  for (int r = 0; r < ranks_; ++r) {  // node ids follow each node's lowest rank (machine_map.hpp)
    if (node_of(r) == static_cast<int>(board_hosts_.size())) board_hosts_.push_back(r);
  }
  board_host_ = board_hosts_[static_cast<std::size_t>(node_of(rank_))];
  requested_ = std::vector<std::atomic<bool>>(static_cast<std::size_t>(ranks_));
  served_.assign(static_cast<std::size_t>(ranks_), 0);
  for (PerWorker& p : per_worker_) p.words.resize(static_cast<std::size_t>(ranks_));
  push_thresholds_ = {o.push.min_tasks, o.push.min_imbalance, o.push.min_ratio, o.push.share, o.push.max_tasks};
}

std::uint32_t Distributor::process_load() const noexcept {
  std::uint32_t load = 0;
  for (const PerWorker& p : per_worker_) load += p.load.load(std::memory_order_relaxed);
  return load;
}

void Distributor::publish_load(PerWorker& p, std::uint32_t load) {
  for (int host : board_hosts_) window_.replace(host, layout_.board(rank_), load, p.comm);
  for (int host : board_hosts_) window_.flush(host, p.comm);
  published_ = load;
}

void Distributor::read_board(PerWorker& p) {
  window_.read_words_sync(board_host_, layout_.board(0), p.words.data(), ranks_, p.comm);
}

// ---------------------------------------------------------------- success-only

bool Distributor::request(sched::Worker& w, policy::SearchDriver& search) {
  return or_abort([&]() -> bool {
    const bool sequential = sched_.options().remote_steal == RemoteStealMode::sequential;
    if (sequential && remote_busy_.exchange(true, std::memory_order_relaxed)) return false;
    PerWorker& p = per_worker_[static_cast<std::size_t>(w.id())];
    flush_pending(p);
    read_board(p);
    std::vector<std::uint32_t> advertised(static_cast<std::size_t>(ranks_));
    for (int r = 0; r < ranks_; ++r) {
      const bool queued = requested_[static_cast<std::size_t>(r)].load(std::memory_order_relaxed);
      advertised[static_cast<std::size_t>(r)] = queued ? 0u : static_cast<std::uint32_t>(p.words[static_cast<std::size_t>(r)]);
    }
    const std::optional<int> victim = search.next_rank(p.rng, advertised);
    bool posted = false;
    if (victim && !requested_[static_cast<std::size_t>(*victim)].exchange(true, std::memory_order_relaxed)) {
      window_.add(*victim, layout_.requests(rank_), 1, p.comm);
      window_.flush(*victim, p.comm);  // the request lands before the doorbell rings
      window_.add(*victim, layout_.doorbell(), 1, p.comm);
      window_.flush(*victim, p.comm);
      ++w.stats_ref().remote_steal_attempts;
      posted = true;
    }
    if (sequential) remote_busy_.store(false, std::memory_order_relaxed);
    return posted;
  });
}

void Distributor::answer_doorbell(sched::Worker& w, PerWorker& p) {
  // One read per poll: the doorbell rings after every request and every
  // mailbox batch (each lands first), so nothing new is missed while it is
  // silent; requests still unanswered are looked at again without it.
  const std::uint64_t rung = window_.read_sync(rank_, layout_.doorbell(), p.comm);
  if (rung == doorbell_seen_ && !requests_waiting_) return;
  doorbell_seen_ = rung;
  drain_mailbox(w, p);
  if (success_only_) serve_requests(w, p);
}

void Distributor::serve_requests(sched::Worker& w, PerWorker& p) {
  window_.read_words_sync(rank_, layout_.requests(0), p.words.data(), ranks_, p.comm);
  requests_waiting_ = false;
  for (int t = 0; t < ranks_; ++t) {
    if (p.words[static_cast<std::size_t>(t)] == served_[static_cast<std::size_t>(t)]) continue;
    // A request of rank t waits: answer it now, or queue the next spawn to.
    const auto queued = static_cast<std::uint32_t>(w.queued());
    const std::uint32_t n = std::min(chunk_.take(queued, level_of(t)), mailbox_.max_batch() / 2);
    if (n == 0 || !send_tasks_to(t, MailKind::request, p, w, n)) {
      w.want_work();
      requests_waiting_ = true;
      return;
    }
    ++served_[static_cast<std::size_t>(t)];
    ++w.stats_ref().requests_served;
  }
}

// ---------------------------------------------------------------- push

void Distributor::push_step(sched::Worker& w, PerWorker& p) {
  const std::int64_t now = platform::now_ns();
  if (now < next_push_ns_) return;
  next_push_ns_ = now + std::int64_t{sched_.options().push.interval_us} * 1000;
  const std::uint32_t load = process_load();
  if (load != published_) publish_load(p, load);
  read_board(p);
  std::vector<policy::RankLoad> loads;
  for (int r = 0; r < ranks_; ++r)
    loads.push_back({r, r == rank_ ? load : static_cast<std::uint32_t>(p.words[static_cast<std::size_t>(r)])});
  for (const policy::PushTransfer& t : policy::plan_push(loads, push_thresholds_)) {
    if (t.from != rank_) continue;
    const std::uint32_t n = std::min({t.tasks, static_cast<std::uint32_t>(w.queued()), mailbox_.max_batch() / 2});
    if (n > 0 && send_tasks_to(t.to, MailKind::push, p, w, n)) ++w.stats_ref().pushes;
  }
}

// ---------------------------------------------------------------- the mailbox

bool Distributor::send_tasks_to(int target, MailKind kind, PerWorker& p, sched::Worker& w, std::uint32_t n) {
  p.buffer.clear();
  const std::uint32_t moved = w.take_oldest(n, p.buffer, max_output());
  if (moved == 0) return false;
  mailbox_.send(target, kind, p.buffer.data(), moved, p.comm, [&] {
    drain_inbox(w, p);  // two ranks sending to each other's full mailboxes must not wait forever
    drain_mailbox(w, p);
    std::this_thread::yield();
  });
  WorkerStats& s = w.stats_ref();
  (kind == MailKind::request ? s.tasks_served : s.tasks_pushed) += moved;
  return true;
}

void Distributor::drain_mailbox(sched::Worker& w, PerWorker& p) {
  mailbox_.drain(p.comm, [&](const MailHeader& h, const std::byte* slots, std::uint32_t n) {
    const int from = static_cast<int>(h.from);
    if (from < 0 || from >= ranks_ || from == rank_)
      throw DistError("heist: rank " + std::to_string(rank_) + " found mailbox tasks from rank " +
                      std::to_string(h.from) + "; memory is corrupt");
    accept(w, slots, n, from);
    if (h.kind != static_cast<std::uint32_t>(MailKind::request)) return;
    // The answer to this process's request at `from`: a successful steal.
    requested_[static_cast<std::size_t>(from)].store(false, std::memory_order_relaxed);
    WorkerStats& s = w.stats_ref();
    LevelStealStats& at = s.levels[policy::index(level_of(from))];
    ++at.successes;
    at.tasks += n;
    ++s.remote_steals;
    s.remote_tasks_stolen += n;
  });
}

}  // namespace heist::rma
