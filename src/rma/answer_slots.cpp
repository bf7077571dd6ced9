#include "rma/answer_slots.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "policy/locality_plan.hpp"
#include "rma/mpi_session.hpp"

namespace heist::rma {

AnswerSlots::AnswerSlots(RmaWindow& window, const WindowLayout& layout, int rank, int ranks)
    : win_(window),
      layout_(layout),
      rank_(rank),
      sent_(static_cast<std::size_t>(ranks)),
      seen_(static_cast<std::size_t>(ranks)) {}

void AnswerSlots::send(std::span<const MailBatch> round, const std::byte* slots, CommCounters& c) {
  if (round.empty()) return;
  ++c.mailbox_rounds;
  const std::size_t stride = layout_.stride;
  std::size_t bytes = 0;
  for (const MailBatch& b : round) {
    if (b.count == 0 || b.count > max_answer())
      throw DistError("heist: an answer of " + std::to_string(b.count) + " tasks does not fit an answer area of " +
                      std::to_string(max_answer()));
    bytes += WindowLayout::kMailHeader + b.count * stride;
  }
  out_.resize(bytes);  // read by the puts until the flush below
  std::size_t at = 0;
  for (const MailBatch& b : round) {
    const MailHeader header{static_cast<std::uint32_t>(rank_), static_cast<std::uint32_t>(b.count),
                            static_cast<std::uint32_t>(MailKind::request), 0};
    std::memcpy(out_.data() + at, &header, sizeof header);
    std::memcpy(out_.data() + at + sizeof header, slots + b.offset, b.count * stride);
    const std::size_t length = sizeof header + b.count * stride;
    win_.put(b.target, layout_.answer_area(rank_), out_.data() + at, length, c);
    at += length;
  }
  // The areas are complete before their seq words say so.
  flush_each_target(win_, round, [](const MailBatch&) { return true; }, c);
  for (const MailBatch& b : round)
    win_.replace(b.target, layout_.answer_seq(rank_), seq_word(++sent_[static_cast<std::size_t>(b.target)], b.count), c);
}

void AnswerSlots::read_words(std::span<const int> open, CommCounters& c) {
  words_.resize(open.size());
  if (open.empty()) return;
  const auto [lowest, highest] = std::minmax_element(open.begin(), open.end());
  if (!policy::answer_words_at_once(*lowest, *highest)) {
    for (std::size_t i = 0; i < open.size(); ++i) words_[i] = win_.read_sync(rank_, layout_.answer_seq(open[i]), c);
    return;
  }
  span_.resize(static_cast<std::size_t>(*highest - *lowest + 1));
  win_.read_words_sync(rank_, layout_.answer_seq(*lowest), span_.data(), static_cast<int>(span_.size()), c);
  for (std::size_t i = 0; i < open.size(); ++i) words_[i] = span_[static_cast<std::size_t>(open[i] - *lowest)];
}

std::uint32_t AnswerSlots::arrived(int from, std::uint64_t word, CommCounters& c) {
  const auto v = static_cast<std::size_t>(from);
  const auto answer = static_cast<std::uint32_t>(word >> 32);
  if (answer == seen_[v]) return 0;
  const auto n = static_cast<std::uint32_t>(word);
  if (answer != static_cast<std::uint32_t>(seen_[v] + 1) || n == 0 || n > max_answer())
    throw DistError("heist: rank " + std::to_string(rank_) + " found answer " + std::to_string(answer) + " (" +
                    std::to_string(n) + " tasks) of rank " + std::to_string(from) + " after answer " +
                    std::to_string(seen_[v]) + "; memory is corrupt");
  const std::size_t bytes = WindowLayout::kMailHeader + std::size_t{n} * layout_.stride;
  area_.resize(bytes);
  win_.get(rank_, layout_.answer_area(from), area_.data(), bytes, c);
  win_.flush(rank_, c);
  MailHeader header{};
  std::memcpy(&header, area_.data(), sizeof header);
  if (header.from != static_cast<std::uint32_t>(from) || header.count != n ||
      header.kind != static_cast<std::uint32_t>(MailKind::request))
    throw DistError("heist: rank " + std::to_string(rank_) + " found an answer of " + std::to_string(header.count) +
                    " tasks from rank " + std::to_string(header.from) + " in rank " + std::to_string(from) +
                    "'s answer area (its count says " + std::to_string(n) + "); memory is corrupt");
  seen_[v] = answer;
  return n;
}

}  // namespace heist::rma
