// Engine<W>, what moves between processes besides one-sided steals, with the
// decisions of policy::PollPlan (src/policy/poll_plan.hpp):
//  * boards: each node's first rank holds every rank's published load;
//    publishing writes (and flushes) it on every node's board, reading one's
//    own node's board is one round trip;
//  * success-only (HabaneroUPC++): a thief whose walk inside its node is done reads
//    its board, asks SuccessOnlyVictims::next_rank for a rank of another node
//    that advertises work and has no request of this process queued, and
//    posts a request there (one round trip; the doorbell that announces it
//    lands half a round trip after that); the victim answers at its polls
//    (policy::serve_requests, PollPlan::answer_size) straight into the
//    thief process's answer area for it (AnswerSlots: the round costs the
//    victim one round trip to its farthest thief, an answer is seen when its
//    answer word lands, half a round trip later), and never declines: with
//    nothing to spare it asks its next spawn to queue;
//  * push (Chameleon, PGAS-WS): every --push-interval-us a polling worker
//    publishes its process's load, reads the board, plans with
//    PollPlan::pushes_from and sends its share to the paired ranks' mailboxes;
//  * the mailbox: the batches of one poll's pushes form
//    a round that costs its sender three round trips to the farthest target
//    (tickets, puts of the slots, seq words, each phase one flush for all; the
//    room check is answered from the sender's cache, the doorbells' flush is
//    lazy); each batch is drained by its receiving process's next poll after
//    its doorbell lands.
// Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
std::uint32_t Engine<W>::process_load(int rank) const {
  std::uint64_t load = 0;
  const int first = machine_.first_worker(rank);
  for (int i = first; i < first + machine_.workers_per_rank(); ++i) load += workers_[static_cast<std::size_t>(i)].load;
  return static_cast<std::uint32_t>(std::min<std::uint64_t>(load, 0xFFFFFFFFu));
}

template <class W>
void Engine<W>::publish_load(Worker& w, Process& proc, std::uint32_t load) {
  // MailboxBalance::publish_load issues every board's write, then flushes
  // them one by one: the writes travel together, the last flush returns
  // when the farthest has landed.
  const int per_node = machine_.spec().ranks_per_node;
  double cost = 0;
  for (int node = 0; node < machine_.spec().nodes; ++node)
    cost = std::max(cost, latency_to_rank(w.id, node * per_node));
  result_.messages.blocking += static_cast<std::uint64_t>(machine_.spec().nodes);
  w.clock += cost;
  if (w.step == Step::busy) w.work_ns += cost;
  board_[static_cast<std::size_t>(w.rank)] = load;
  proc.published = load;
}

template <class W>
void Engine<W>::request_across(Worker& w, double t) {
  Process& proc = procs_[static_cast<std::size_t>(w.rank)];
  const bool sequential = cfg_.options.remote_steal == RemoteStealMode::sequential;
  if (sequential && proc.remote_busy) return;  // another worker of this process is at it
  // Read this node's board (one round trip), skip ranks already asked.
  const int host = machine_.rank_of(machine_.node_of(w.id) * machine_.spec().cores_per_node());
  const double read = latency_to_rank(w.id, host);
  ++result_.messages.blocking;
  ++result_.board_reads;
  advertised_ = board_;
  for (int r : proc.requested) advertised_[static_cast<std::size_t>(r)] = 0;
  const std::optional<int> victim = w.search.next_rank(w.remote_rng, advertised_);
  w.clock = t + read;
  if (!victim) return;
  // Post the request: its count (flushed), then the doorbell, whose
  // flush is lazy; the victim learns of the request when the doorbell lands.
  proc.requested.push_back(*victim);
  w.asked = *victim;
  const double to_victim = latency_to_rank(w.id, *victim);
  post(w.clock + 1.5 * to_victim, *victim, w.rank, -1);
  w.clock += to_victim;
  ++result_.messages.blocking;
  ++result_.messages.nonblocking;
  ++result_.requests;
  ++counts(policy::Level::machine, true).attempts;
}

template <class W>
void Engine<W>::serve_requests(Worker& w, Process& proc) {
  policy::serve_requests(proc.requests, [&](int thief_rank, std::uint32_t waiting) {
    // Worker::queued_report_back: a workload's tasks all join, or none do.
    const auto report_back = [&] { return W::kJoins && w.deque.size() > 0; };
    std::uint32_t n = plan_.answer_size(w.deque.size(), siblings_public(w), w.step != Step::busy,
                                        level_of(thief_rank, w.rank), waiting, report_back(),
                                        static_cast<std::size_t>(searching_in_rank_[static_cast<std::size_t>(w.rank)]));
    if (const std::uint32_t probe = policy::PollPlan::probe_size(n, w.deque.size()); probe > 0) {
      collect_from_siblings(w, probe);
      n = policy::PollPlan::probed_answer(n, report_back());
    }
    if (n > w.deque.size()) collect_from_siblings(w, static_cast<std::uint32_t>(n - w.deque.size()));
    if (n == 0 || !take_batch(w, thief_rank, true, n)) {
      want_work(w);
      return false;
    }
    ++result_.requests_served;
    return true;
  });
  send_round(w, true);
}

template <class W>
void Engine<W>::push_step(Worker& w, Process& proc) {
  if (!proc.push_pacer.due(w.clock, cfg_.options.push.interval_us * 1000.0)) return;
  const std::uint32_t load = process_load(w.rank);
  if (policy::PollPlan::publish_at_push(load, proc.published)) publish_load(w, proc, load);
  const int host = machine_.rank_of(machine_.node_of(w.id) * machine_.spec().cores_per_node());
  w.clock += latency_to_rank(w.id, host);  // read the board
  ++result_.messages.blocking;
  ++result_.board_reads;
  for (const policy::PushTransfer& t : plan_.pushes_from(w.rank, load, std::span<const std::uint32_t>(board_))) {
    const std::uint32_t n = plan_.push_size(t, w.deque.size());
    if (n > 0 && take_batch(w, t.to, false, n)) ++result_.pushes;
  }
  send_round(w, false);
}

template <class W>
std::size_t Engine<W>::siblings_public(const Worker& w) const {
  std::size_t n = 0;
  const int first = machine_.first_worker(w.rank);
  for (int i = first; i < first + machine_.workers_per_rank(); ++i)
    if (i != w.id) n += workers_[static_cast<std::size_t>(i)].deque.public_size();
  return n;
}

// As the runtime's: siblings in order, each claim with the thieves'
// protocol (one round trip to the sibling), the tasks into w's deque. The
// siblings are not advanced to w's clock (that would run their polls
// inside this one's serve_requests): a busy sibling's public part is as of
// its last event, which only ever holds fewer tasks than it would.
template <class W>
std::uint32_t Engine<W>::collect_from_siblings(Worker& w, std::uint32_t max) {
  std::uint32_t got = 0;
  std::vector<Task> claimed;
  const int first = machine_.first_worker(w.rank);
  for (int i = first; i < first + machine_.workers_per_rank() && got < max; ++i) {
    if (i == w.id) continue;
    Worker& s = workers_[static_cast<std::size_t>(i)];
    if (s.deque.public_size() == 0) continue;
    claimed.clear();
    const std::uint32_t k = s.deque.steal([&](std::uint32_t available) { return std::min(available, max - got); },
                                          claimed);
    for (const Task& task : claimed) w.deque.push(task);
    w.clock += machine_.latency_ns(machine_.hop(w.id, i));
    got += k;
  }
  return got;
}

template <class W>
bool Engine<W>::take_batch(Worker& w, int target, bool answer, std::uint32_t n) {
  const int index = take_slot(mails_, free_mails_);
  Mail& mail = mails_[static_cast<std::size_t>(index)];
  mail.from = w.rank;
  mail.answer = answer;
  mail.tasks.clear();
  const std::uint32_t moved = w.deque.take_oldest(n, mail.tasks);
  if (moved == 0) {
    free_mails_.push_back(index);
    return false;
  }
  round_.emplace_back(target, index);
  (answer ? result_.tasks_served : result_.tasks_pushed) += moved;
  result_.messages.bytes += std::uint64_t{moved} * slot_bytes_;
  return true;
}

// TaskMailbox::send_round (pushes): the tickets, the puts of the slots and
// the seq words of all batches travel together, one flush each, so the
// round costs its sender three round trips to its farthest target plus the
// transfers; the room check reads the sender's cached view of each target's
// consumption (the simulated mailbox never fills); the doorbells are issued
// last, their flush lazy: a batch is seen when its doorbell lands.
// AnswerSlots::send (answers): the puts of the areas, one flush, the
// answer words issued after it with a lazy flush: one round trip plus the
// transfers, each answer seen when its word lands.
template <class W>
void Engine<W>::send_round(Worker& w, bool answers) {
  if (round_.empty()) return;
  double rtt = 0, bytes = 0;
  for (const auto& [target, index] : round_) {
    rtt = std::max(rtt, latency_to_rank(w.id, target));
    bytes += machine_.transfer_ns(machine_.hop_to_rank(w.id, target),
                                  mails_[static_cast<std::size_t>(index)].tasks.size() * slot_bytes_);
  }
  const int trips = answers ? 1 : 3;
  const double sent = w.clock + trips * rtt + bytes;  // the doorbells or answer words are issued
  for (const auto& [target, index] : round_) post(sent + latency_to_rank(w.id, target) / 2, target, w.rank, index);
  if (w.step == Step::busy) w.work_ns += sent - w.clock;
  w.clock = sent;
  const auto n = static_cast<std::uint64_t>(round_.size());
  result_.messages.blocking += static_cast<std::uint64_t>(trips) * n;
  result_.messages.nonblocking += n;
  round_.clear();
}

template <class W>
void Engine<W>::drain_mailbox(Worker& w, Process& proc) {
  OwnerOps ops;
  ++ops.blocking;  // the seq word of the next batch
  std::uint32_t answered = 0;  // tasks the answers brought
  while (!proc.mailbox.empty()) {
    Mail& mail = proc.mailbox.front();
    ops.blocking += 2;  // the batch's get, the next seq word
    ops.bytes += mail.tasks.size() * slot_bytes_;
    for (const Task& task : mail.tasks) w.deque.push(task);
    if (mail.answer) {  // the answer to this process's request at `from`: a successful steal
      std::erase(proc.requested, mail.from);
      StealCounts& c = counts(level_of(mail.from, w.rank), true);
      ++c.steals;
      c.tasks += mail.tasks.size();
      answered += static_cast<std::uint32_t>(mail.tasks.size());
    }
    proc.mailbox.pop_front();
  }
  if (policy::PollPlan::release_answered(answered)) w.deque.release();
  w.load = policy::worker_load(w.deque.size(), w.step == Step::busy);  // counts what arrived (as the runtime)
  charge(w, ops);
}

// A message lands at its rank.
template <class W>
void Engine<W>::deliver(Message& m) {
  advance_rank(m.rank, m.time);
  if (const auto* done = std::get_if<Completion>(&m.what)) {
    if (!done->inbox) {
      count_down(done->scope, m.time, done->count);  // from a worker of the same process
    } else {
      Completion landed = *done;  // counts at a poll there
      landed.landed = m.time;
      landed.from = m.from;
      procs_[static_cast<std::size_t>(m.rank)].inbox.push_back(landed);
    }
    return;
  }
  Process& proc = procs_[static_cast<std::size_t>(m.rank)];
  if (auto* sws = std::get_if<policy::SwsSteal>(&m.what)) {
    policy::sws_apply(*sws, proc.window.stealval, proc.window.completed);
  } else if (auto* sdc = std::get_if<policy::SdcSteal>(&m.what)) {
    policy::sdc_apply(*sdc, proc.window.sdc, [](std::uint64_t) { return std::uint32_t{0}; });
  } else if (const int index = std::get<int>(m.what); index < 0) {
    proc.requests.add_asked(m.from);  // a success-only request
  } else {
    proc.mailbox.push_back(std::move(mails_[static_cast<std::size_t>(index)]));
    free_mails_.push_back(index);
  }
}

}  // namespace heist::sim
