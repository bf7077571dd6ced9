// Engine<W>, SuccessOnly across nodes (seed 003, HabaneroUPC++'s
// SuccessOnlyWS; policy::SuccessOnlyVictims): every rank advertises how many
// tasks its workers hold (updated when one of them polls or runs dry); a
// thief whose inside-the-node walk is done reads the advertisements (one
// round trip), asks SuccessOnlyVictims::next_rank for a rank on another node
// that advertises work, and queues a request there (one round trip). The
// rank serves queued requests when one of its workers polls with tasks in its
// deque: it sends half of them (one-way put plus the transfer). A request
// that reaches a rank whose workers hold nothing — the advertisement was
// stale — is declined and counted as a failed steal (and in `declines`):
// the simulator measures how close to "no failed inter-node steal" the
// scheme gets. Included by sim/engine.hpp.
#pragma once

namespace heist::sim {

template <class W>
std::uint64_t Engine<W>::rank_tasks(int rank) const {
  std::uint64_t n = 0;
  const int first = machine_.first_worker(rank);
  for (int i = first; i < first + machine_.workers_per_rank(); ++i) n += workers_[static_cast<std::size_t>(i)].deque.size();
  return n;
}

template <class W>
void Engine<W>::advertise(int rank) {
  advertised_[static_cast<std::size_t>(rank)] =
      static_cast<std::uint32_t>(std::min<std::uint64_t>(rank_tasks(rank), 0xFFFFFFFFu));
}

template <class W>
void Engine<W>::read_adverts(Worker& w, double t) {
  const double back = t + machine_.latency_ns(Hop::network) / 2;
  const std::optional<int> rank = w.success_only->next_rank(w.rng, advertised_);
  if (!rank) {  // nobody advertises work: back off, then walk the node again
    const double delay =
        cfg_.backoff == BackoffModel::heist ? heist_backoff_ns(w.backoff_round, w.backoff_limits) : 0.0;
    ++w.backoff_round;
    launch_attempt(w, back + delay);
    return;
  }
  w.target = *rank;
  w.choice = {machine_.first_worker(*rank), topology_.common_level(w.id, machine_.first_worker(*rank))};
  w.hop = machine_.hop_to_rank(w.id, *rank);
  ++result_.requests;
  ++counts(w, true).attempts;
  ++result_.messages.blocking;
  schedule(w, Step::request, back + machine_.latency_ns(w.hop) / 2);
}

template <class W>
void Engine<W>::arrive_request(Worker& w, double t) {
  advance_rank(w.target, t);
  if (rank_tasks(w.target) == 0) {  // stale advertisement: the rank has nothing left
    ++result_.declines;
    ++counts(w, true).failed;
    failed(w, t + machine_.latency_ns(w.hop) / 2);
    return;
  }
  requests_[static_cast<std::size_t>(w.target)].push_back(w.id);
  w.step = Step::waiting;
  heap_.remove(static_cast<std::uint32_t>(w.id));  // until the rank serves or declines it
}

// Worker v of a rank polls: serve its queued requests from its own deque.
template <class W>
void Engine<W>::serve_requests(Worker& v) {
  std::deque<int>& queue = requests_[static_cast<std::size_t>(v.rank)];
  while (!queue.empty()) {
    Worker& thief = workers_[static_cast<std::size_t>(queue.front())];
    const Hop hop = machine_.hop(v.id, thief.id);
    if (v.deque.size() >= 1) {
      queue.pop_front();
      thief.incoming.clear();
      const auto half = static_cast<std::uint32_t>((v.deque.size() + 1) / 2);
      const std::uint32_t n = v.deque.take_oldest(half, thief.incoming);
      StealCounts& c = counts(thief, true);
      ++c.steals;
      c.tasks += n;
      result_.messages.bytes += std::uint64_t{n} * slot_bytes_;
      ++result_.messages.nonblocking;
      charge(v, OwnerOps{1, 0});  // the put's local completion
      schedule(thief, Step::receive,
               v.clock + machine_.latency_ns(hop) / 2 + machine_.transfer_ns(hop, std::size_t{n} * slot_bytes_));
    } else if (rank_tasks(v.rank) == 0) {
      queue.pop_front();
      ++result_.declines;
      ++counts(thief, true).failed;
      failed(thief, v.clock + machine_.latency_ns(hop) / 2);
    } else {
      break;  // another worker of this rank holds tasks: it serves at its poll
    }
  }
}

}  // namespace heist::sim
