#include "rma/mailbox_balance.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <thread>

#include "platform/timer.hpp"
#include "policy/search_driver.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"

namespace heist::rma {

MailboxBalance::MailboxBalance(DistContext& ctx, const policy::PollPlan& plan)
    : ctx_(ctx),
      plan_(plan),
      mailbox_(ctx.window(), ctx.layout(), ctx.rank()),
      answers_(ctx.window(), ctx.layout(), ctx.rank(), ctx.ranks()) {}

void MailboxBalance::set_up() {
  const int ranks = ctx_.ranks();
  for (int r = 0; r < ranks; ++r) {  // node ids follow each node's lowest rank (machine_map.hpp)
    if (ctx_.node_of(r) == static_cast<int>(board_hosts_.size())) board_hosts_.push_back(r);
  }
  board_host_ = board_hosts_[static_cast<std::size_t>(ctx_.node_of(ctx_.rank()))];
  requested_ = std::vector<std::atomic<bool>>(static_cast<std::size_t>(ranks));
  requests_ = policy::RequestBook(ranks);
}

void MailboxBalance::on_poll(sched::Worker& w, PerWorker& p) {
  if (plan_.locality().success_only) take_answers(w, p);
  if (plan_.drains_mailbox()) answer_doorbell(w, p);
  if (plan_.locality().success_only) {
    const std::uint32_t load = process_load();
    if (plan_.publish_at_poll(load, published_)) publish_load(p, load);
  }
  if (plan_.locality().push) push_step(w, p);
}

std::uint32_t MailboxBalance::process_load() const noexcept {
  std::uint32_t load = 0;
  for (const PerWorker& p : ctx_.per_worker()) load += p.load.load(std::memory_order_relaxed);
  return load;
}

void MailboxBalance::publish_load(PerWorker& p, std::uint32_t load) {
  RmaWindow& window = ctx_.window();
  for (int host : board_hosts_) window.replace(host, ctx_.layout().board(ctx_.rank()), load, p.comm);
  for (int host : board_hosts_) window.flush(host, p.comm);
  published_ = load;
}

void MailboxBalance::read_board(PerWorker& p) {
  ctx_.window().read_words_sync(board_host_, ctx_.layout().board(0), p.words.data(), ctx_.ranks(), p.comm);
}

// ---------------------------------------------------------------- success-only

bool MailboxBalance::request(sched::Worker& w, policy::SearchDriver& search) {
  const bool sequential = ctx_.sched().options().remote_steal == RemoteStealMode::sequential;
  if (sequential && !ctx_.remote_token().try_take()) return false;
  PerWorker& p = ctx_.of(w);
  ctx_.flush_pending(p);
  read_board(p);
  const int ranks = ctx_.ranks();
  std::vector<std::uint32_t> advertised(static_cast<std::size_t>(ranks));
  for (int r = 0; r < ranks; ++r) {
    const bool queued = requested_[static_cast<std::size_t>(r)].load(std::memory_order_relaxed);
    advertised[static_cast<std::size_t>(r)] = queued ? 0u : static_cast<std::uint32_t>(p.words[static_cast<std::size_t>(r)]);
  }
  const std::optional<int> victim = search.next_rank(p.rng, advertised);
  bool posted = false;
  if (victim && !requested_[static_cast<std::size_t>(*victim)].exchange(true, std::memory_order_relaxed)) {
    RmaWindow& window = ctx_.window();
    window.add(*victim, ctx_.layout().requests(ctx_.rank()), 1, p.comm);
    window.flush(*victim, p.comm);  // the request lands before the doorbell rings
    window.add(*victim, ctx_.layout().doorbell(), 1, p.comm);
    DistContext::defer_flush(p, *victim);  // the doorbell
    {
      std::lock_guard<std::mutex> lock(open_mutex_);
      open_.push_back(*victim);
      open_count_.fetch_add(1, std::memory_order_relaxed);
    }
    ++w.stats_ref().remote_steal_attempts;
    p.asked = *victim;
    posted = true;
  }
  if (sequential) ctx_.remote_token().give_back();
  return posted;
}

void MailboxBalance::answer_doorbell(sched::Worker& w, PerWorker& p) {
  // One read per poll: the doorbell rings after every request and every
  // mailbox batch (each lands first), so nothing new is missed while it is
  // silent; requests still unanswered are looked at again without it.
  const std::uint64_t rung = ctx_.window().read_sync(ctx_.rank(), ctx_.layout().doorbell(), p.comm);
  if (rung == doorbell_seen_ && !requests_waiting_) return;
  doorbell_seen_ = rung;
  drain_mailbox(w, p);
  if (plan_.locality().success_only) serve_requests(w, p);
}

void MailboxBalance::serve_requests(sched::Worker& w, PerWorker& p) {
  const int ranks = ctx_.ranks();
  ctx_.window().read_words_sync(ctx_.rank(), ctx_.layout().requests(0), p.words.data(), ranks, p.comm);
  for (int t = 0; t < ranks; ++t) requests_.set_asked(t, p.words[static_cast<std::size_t>(t)]);
  // A request of rank t waits: answer it now, or queue the next spawn to.
  // The answers of this poll go out as one mailbox round.
  p.buffer.clear();
  round_.clear();
  requests_waiting_ = !policy::serve_requests(requests_, [&](int t, std::uint32_t waiting) {
    std::uint32_t n = plan_.answer_size(w.queued(), w.siblings_public(), w.searching(), ctx_.level_of(t), waiting,
                                        w.queued_report_back(),
                                        static_cast<std::size_t>(std::max(0, w.scheduler().searching_workers())));
    if (const std::uint32_t probe = policy::PollPlan::probe_size(n, w.queued()); probe > 0) {
      w.collect_from_siblings(probe);
      n = policy::PollPlan::probed_answer(n, w.queued_report_back());
    }
    if (n > w.queued()) w.collect_from_siblings(static_cast<std::uint32_t>(n - w.queued()));
    if (n == 0 || !take_batch(t, MailKind::request, p, w, n)) {
      w.want_work();
      return false;
    }
    ++w.stats_ref().requests_served;
    return true;
  });
  send_round(w, p, MailKind::request);
}

void MailboxBalance::take_answers(sched::Worker& w, PerWorker& p) {
  if (open_count_.load(std::memory_order_relaxed) == 0) return;  // most polls: no mutex
  {
    std::lock_guard<std::mutex> lock(open_mutex_);
    if (open_.empty()) return;
    open_copy_ = open_;
  }
  answered_.clear();
  std::uint32_t received = 0;
  answers_.take(open_copy_, p.comm, [&](int from, const std::byte* slots, std::uint32_t n) {
    received += ctx_.accept(w, slots, n, from);
    // The answer to this process's request at `from`: a successful steal.
    WorkerStats& s = w.stats_ref();
    LevelStealStats& at = s.levels[policy::index(ctx_.level_of(from))];
    ++at.successes;
    at.tasks += n;
    ++s.remote_steals;
    s.remote_tasks_stolen += n;
  }, answered_);
  if (answered_.empty()) return;
  if (policy::PollPlan::release_answered(received)) w.release_half();
  {
    std::lock_guard<std::mutex> lock(open_mutex_);
    for (const int from : answered_) open_.erase(std::find(open_.begin(), open_.end(), from));
    open_count_.fetch_sub(answered_.size(), std::memory_order_relaxed);
  }
  for (const int from : answered_)  // after the removal (mailbox_balance.hpp: open_)
    requested_[static_cast<std::size_t>(from)].store(false, std::memory_order_relaxed);
  p.load.store(policy::worker_load(w.queued(), !w.searching()), std::memory_order_relaxed);
}

// ---------------------------------------------------------------- push

void MailboxBalance::push_step(sched::Worker& w, PerWorker& p) {
  if (!push_pacer_.due(platform::now_ns(), std::int64_t{ctx_.sched().options().push.interval_us} * 1000)) return;
  const std::uint32_t load = process_load();
  if (policy::PollPlan::publish_at_push(load, published_)) publish_load(p, load);
  read_board(p);
  const std::span<const std::uint64_t> board(p.words.data(), static_cast<std::size_t>(ctx_.ranks()));
  p.buffer.clear();
  round_.clear();
  for (const policy::PushTransfer& t : plan_.pushes_from(ctx_.rank(), load, board)) {
    const std::uint32_t n = plan_.push_size(t, w.queued());
    if (n > 0 && take_batch(t.to, MailKind::push, p, w, n)) ++w.stats_ref().pushes;
  }
  send_round(w, p, MailKind::push);
}

// ---------------------------------------------------------------- the mailbox

bool MailboxBalance::take_batch(int target, MailKind kind, PerWorker& p, sched::Worker& w, std::uint32_t n) {
  const std::size_t at = p.buffer.size();
  const std::uint32_t moved = w.take_oldest(n, p.buffer, ctx_.max_output());
  if (moved == 0) return false;
  round_.push_back(MailBatch{target, kind, at, moved});
  WorkerStats& s = w.stats_ref();
  (kind == MailKind::request ? s.tasks_served : s.tasks_pushed) += moved;
  return true;
}

void MailboxBalance::send_round(sched::Worker& w, PerWorker& p, MailKind kind) {
  if (round_.empty()) return;
  ctx_.flush_pending(p);
  if (kind == MailKind::request) {
    answers_.send(round_, p.buffer.data(), p.comm);
    for (const MailBatch& b : round_) DistContext::defer_flush(p, b.target);  // the answer words
    round_.clear();
    return;
  }
  mailbox_.send_round(round_, p.buffer.data(), p.comm, [&] {
    ctx_.drain_inbox(w, p);  // two ranks sending to each other's full mailboxes must not wait forever
    drain_mailbox(w, p);
    std::this_thread::yield();
  });
  for (const MailBatch& b : round_) DistContext::defer_flush(p, b.target);  // the doorbells
  round_.clear();
}

void MailboxBalance::drain_mailbox(sched::Worker& w, PerWorker& p) {
  mailbox_.drain(p.comm, [&](const MailHeader& h, const std::byte* slots, std::uint32_t n) {
    const int from = static_cast<int>(h.from);
    if (from < 0 || from >= ctx_.ranks() || from == ctx_.rank())
      throw DistError("heist: rank " + std::to_string(ctx_.rank()) + " found mailbox tasks from rank " +
                      std::to_string(h.from) + "; memory is corrupt");
    if (h.kind != static_cast<std::uint32_t>(MailKind::push))  // answers come through AnswerSlots
      throw DistError("heist: rank " + std::to_string(ctx_.rank()) + " found a mailbox batch of kind " +
                      std::to_string(h.kind) + " from rank " + std::to_string(h.from) + "; memory is corrupt");
    ctx_.accept(w, slots, n, from);
  });
  // The load this poll publishes counts what just arrived: set before the
  // drain only, a rank in long tasks advertised each push one poll late,
  // and the pusher pushed again.
  p.load.store(policy::worker_load(w.queued(), !w.searching()), std::memory_order_relaxed);
}

}  // namespace heist::rma
