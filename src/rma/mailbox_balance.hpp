// MailboxBalance: balancing between processes through the task mailbox —
// success-only requests and their answers (HabaneroUPC++), Chameleon-style
// pushes (PGAS-WS §3.2) — and the load boards both read. The decisions are
// policy::PollPlan's; task_mailbox.hpp explains the delivery protocol.
//
// Success-only: every rank advertises its load (tasks queued, plus workers
// busy with a task) on a board at each node's first rank when it turns zero
// or non-zero; a thief reads its node's board (one RMA get), queues a
// request (MPI_SUM on the victim's requests[thief], then on its doorbell) at
// a rank of another node that advertises work, and the victim's next poll
// with tasks to spare answers it through the thief's TaskMailbox (or queues
// its next spawn to answer with) straight into the thief's answer area
// for it (AnswerSlots: one blocking round trip); a request is never
// declined, so an inter-node steal never fails. A poll reads one word, the
// doorbell, to learn of requests and mailbox deliveries, and the answer word
// of each rank it has a request open at. Push: every --push-interval-us a rank
// publishes its load, reads the board, plans and sends its share to the
// paired rank's mailbox.
//
// Threads and orderings:
//  * on_poll runs under the owner lock (DistContext): the request book, the
//    doorbell seen, the load published and the push pacer are its state.
//  * request() runs on any worker, with that worker's board copy and
//    buffers. requested_[r] is an atomic flag so that two workers never queue
//    two requests at one rank: the exchange makes exactly one of them the
//    poster. Relaxed, as every access to it: the flag guards no data (the
//    victim counts requests itself, in its window, and the answer that
//    clears the flag arrives after the victim read the request). The poster
//    adds the rank to open_ (under open_mutex_, taken for a few list
//    operations: a request is a round trip anyway), whose answer words the
//    owner's polls read; the poll that takes the answer removes it, then
//    clears the flag. The clear is relaxed, so the next poster's entry may
//    reach open_ before that removal: open_ counts a rank once per open
//    request either way (a removal takes one entry), and a rank has at
//    most one request open at a time (its victim answers each once).
//  * window order: a request lands (flush) before the doorbell rings, and a
//    mailbox batch before its doorbell, so a silent doorbell means nothing new.
//    The doorbell's own add is not waited for: it is the worker's pending
//    (lazy) flush, completed at its next poll or remote call, as a completion's
//    seq word (DistContext::flush_pending). The ring is late at most until
//    then, never lost, and the sender blocks one round trip less per request
//    and per batch.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "policy/poll_plan.hpp"
#include "rma/answer_slots.hpp"
#include "rma/dist_context.hpp"
#include "rma/task_mailbox.hpp"

namespace heist::policy {
class SearchDriver;
}

namespace heist::rma {

class MailboxBalance {
 public:
  MailboxBalance(DistContext& ctx, const policy::PollPlan& plan);
  // After DistContext::set_machine: the boards' hosts.
  void set_up();

  // Owner lock held: the mailbox's part of w's poll.
  void on_poll(sched::Worker& w, PerWorker& p);
  // Success-only: queue a request at a rank of another node that advertises
  // work; false if none was posted.
  bool request(sched::Worker& w, policy::SearchDriver& search);
  // The rank w's last request went to has a request of this process open
  // (requested_, relaxed: a stale true costs one early poll, a stale false
  // the poll round's wait for an answer that already came).
  bool awaits_answer(sched::Worker& w) noexcept {
    const int asked = ctx_.of(w).asked;
    return asked >= 0 && requested_[static_cast<std::size_t>(asked)].load(std::memory_order_relaxed);
  }

 private:
  std::uint32_t process_load() const noexcept;
  void publish_load(PerWorker& p, std::uint32_t load);
  void read_board(PerWorker& p);
  void answer_doorbell(sched::Worker& w, PerWorker& p);
  void serve_requests(sched::Worker& w, PerWorker& p);
  void push_step(sched::Worker& w, PerWorker& p);
  void drain_mailbox(sched::Worker& w, PerWorker& p);
  // Owner lock held: takes the answers that arrived to this process's open requests.
  void take_answers(sched::Worker& w, PerWorker& p);
  // Takes up to n of w's oldest migratable tasks into p.buffer as a batch
  // of this poll's round for target's mailbox; false if none could go.
  bool take_batch(int target, MailKind kind, PerWorker& p, sched::Worker& w, std::uint32_t n);
  // Sends the round's batches (TaskMailbox::send_round, or AnswerSlots::send
  // for answers); the doorbells' or answer words' flush is lazy.
  void send_round(sched::Worker& w, PerWorker& p, MailKind kind);

  DistContext& ctx_;
  const policy::PollPlan& plan_;
  TaskMailbox mailbox_;
  AnswerSlots answers_;
  std::vector<int> board_hosts_;  // each node's first rank: it holds that node's board
  int board_host_ = 0;            // this rank's node's
  std::vector<std::atomic<bool>> requested_;  // [rank]: this process has a request queued there (relaxed)
  std::mutex open_mutex_;
  std::vector<int> open_;          // the ranks of requested_ (under open_mutex_)
  // open_'s size, changed with it; read without the mutex by every poll, so
  // that a process with no request open takes no lock. Relaxed: a poll that
  // misses a request posted meanwhile takes its answer at the next one.
  std::atomic<std::size_t> open_count_{0};
  std::vector<int> open_copy_;     // owner lock: open_ as a poll looks at it
  std::vector<int> answered_;      // owner lock: the ranks whose answers a poll took
  // Owner lock:
  policy::RequestBook requests_;  // other ranks' requests here, asked and answered
  std::uint64_t doorbell_seen_ = 0;
  bool requests_waiting_ = false;  // a request could not be answered yet
  std::uint32_t published_ = policy::kNothingPublished;  // the load last advertised
  policy::Pacer<std::int64_t> push_pacer_;
  std::vector<MailBatch> round_;  // the batches of this poll's answers or pushes
};

}  // namespace heist::rma
