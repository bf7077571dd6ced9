#include "rma/steal_dispatch.hpp"

#include <mutex>

#include "platform/timer.hpp"
#include "rma/sdc_queue.hpp"
#include "rma/sws_queue.hpp"
#include "sched/scheduler.hpp"
#include "sched/worker.hpp"

namespace heist::rma {

namespace {

std::unique_ptr<StealProtocol> make_protocol(const Options& o, RmaWindow& w, const WindowLayout& layout, int rank,
                                             int ranks, int workers) {
  if (o.protocol == StealProtocolKind::sdc) return std::make_unique<SdcQueue>(w, layout, rank, o.chunk);
  return std::make_unique<SwsQueue>(w, layout, rank, ranks, workers, static_cast<std::uint32_t>(o.sws_empty_threshold));
}

}  // namespace

StealDispatch::StealDispatch(DistContext& ctx, const policy::PollPlan& plan)
    : ctx_(ctx),
      plan_(plan),
      protocol_(make_protocol(ctx.sched().options(), ctx.window(), ctx.layout(), ctx.rank(), ctx.ranks(),
                              ctx.sched().size())),
      reacquire_delay_ns_(std::int64_t{ctx.sched().options().reacquire_delay_us} * 1000) {}

void StealDispatch::on_poll(sched::Worker& w, PerWorker& p, std::optional<std::uint64_t>& inbox_posted) {
  if (!plan_.watches_public_queue() || !protocol_->dry(p.comm, inbox_posted)) return;
  const bool asked = protocol_->asked();
  const policy::DryStep dry = policy::PollPlan::on_dry(asked, w.queued());
  if (dry.want_work) w.want_work();  // the next spawn may queue work; the next poll releases it
  if (!dry.release) return;
  const std::uint32_t released = release_from(w, p);
  const policy::ReleaseStep after = policy::PollPlan::after_release(released, asked);
  if (after.reserve) reserved_until_ns_.store(platform::now_ns() + reacquire_delay_ns_, std::memory_order_relaxed);
}

std::uint32_t StealDispatch::release_from(sched::Worker& w, PerWorker& p) {
  const std::uint32_t offer = plan_.offer(protocol_->room(), w.queued());
  if (offer == 0) return 0;
  p.buffer.clear();
  const std::uint32_t n = w.take_oldest(offer, p.buffer, ctx_.max_output());
  if (n == 0) return 0;
  std::vector<std::byte> returned;
  protocol_->release(p.buffer.data(), n, returned, p.comm);
  ++w.stats_ref().public_releases;
  for (std::size_t at = 0; at < returned.size(); at += ctx_.stride()) w.accept_stolen(returned.data() + at);
  return n;
}

std::uint32_t StealDispatch::reclaim(sched::Worker& w) {
  std::unique_lock<std::mutex> lock(ctx_.owner(), std::try_to_lock);
  if (!lock.owns_lock()) return 0;
  // Unless still reserved for the thief of another rank that asked for
  // them. The offer's state is the lock holder's: read under the lock
  // (TSan, 2 ranks x 2 workers: another worker's poll released meanwhile).
  if (!policy::PollPlan::may_reclaim(protocol_->offering(), platform::now_ns(),
                                     reserved_until_ns_.load(std::memory_order_relaxed)))
    return 0;
  PerWorker& p = ctx_.of(w);
  ctx_.flush_pending(p);
  p.buffer.clear();
  const std::uint32_t n = protocol_->acquire(p.buffer, p.comm);
  lock.unlock();
  if (n == 0) return 0;
  w.stats_ref().public_acquires += n;
  return ctx_.accept(w, p.buffer.data(), n, ctx_.rank());
}

sched::StealOutcome StealDispatch::steal(sched::Worker& w, int victim, policy::Level level) {
  const bool sequential = ctx_.sched().options().remote_steal == RemoteStealMode::sequential;
  if (sequential && !ctx_.remote_token().try_take()) return {};
  PerWorker& p = ctx_.of(w);
  ctx_.flush_pending(p);
  WorkerStats& s = w.stats_ref();
  ++s.remote_steal_attempts;
  p.buffer.clear();
  const std::int64_t traced_from = w.trace() ? platform::now_ns() : 0;
  const std::uint32_t n = protocol_->steal(victim, w.id(), level, p.buffer, p.comm);
  if (sequential) ctx_.remote_token().give_back();
  if (n == 0) {
    ++s.remote_failed_steals;
    return {0, true};
  }
  DistContext::defer_flush(p, victim);  // the completion add is non-blocking
  ++s.remote_steals;
  s.remote_tasks_stolen += n;
  const std::uint32_t accepted = ctx_.accept(w, p.buffer.data(), n, victim);
  if (w.trace()) [[unlikely]] w.trace_steal(traced_from, victim, trace::kPublicQueueTrack, n);
  return {accepted, true};
}

}  // namespace heist::rma
