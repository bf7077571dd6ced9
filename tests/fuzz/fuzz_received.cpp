// libFuzzer target: arbitrary bytes as what a rank receives from another
// rank, fed to the checks and state machines that act on it
// (src/rma/received_checks.hpp, sws_stealval.hpp, sws_state_machines.hpp,
// sdc_queue_state.hpp). Built with clang -fsanitize=fuzzer,address,undefined
// (tests/fuzz/CMakeLists.txt), so any out-of-bounds access or undefined
// behaviour is a crash, and so is every property below that fails (abort()).
//
// Input: one selector byte, then the data of that case:
//   0  a task descriptor (a slot of 48..176 bytes) against a fixed registry:
//      accepted => everything execute_foreign() uses is in range
//   1  an inbox entry header + payload capacity: accepted => the output and
//      error text lie inside the entry
//   2  a thief's view: a stealval and a ring size: accepted => the claimed
//      block lies in the offer and every slot index in the ring; policy::SwsSteal
//      never throws on a fresh attempt
//   3  the SWS owner fed arbitrary fetched words and completion counts
//      between its own operations: it either rejects them (std::logic_error)
//      or keeps its invariants (ring_tail <= split, writable slots free)
//   4  SDC tail/split under the lock: accepted => the steal stays in the ring
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "policy/sws_state_machines.hpp"
#include "rma/received_checks.hpp"
#include "policy/sdc_queue_state.hpp"
#include "policy/sws_stealval.hpp"
#include "task/task_slot.hpp"

namespace {

using namespace heist::rma;
namespace policy = heist::policy;

class Bytes {
 public:
  Bytes(const std::uint8_t* data, std::size_t size) : data_(data), size_(size) {}
  bool empty() const { return at_ >= size_; }
  template <class T>
  T take() {
    T value{};
    const std::size_t n = std::min(sizeof(T), size_ - std::min(at_, size_));
    std::memcpy(&value, data_ + at_, n);
    at_ += sizeof(T);
    return value;
  }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t at_ = 0;
};

void require(bool property) {
  if (!property) std::abort();
}

const std::vector<TaskShape> kShapes = {{8, 8, false}, {16, 0, false}, {8, 0, true}, {64, 512, false}, {0, 0, false}};

void descriptor(Bytes& in) {
  const std::size_t stride = 48 + 16 * (in.take<std::uint8_t>() % 9);
  const std::uint32_t ranks = 1 + in.take<std::uint8_t>() % 8;
  std::vector<std::byte> slot(stride);
  for (std::byte& b : slot) b = static_cast<std::byte>(in.take<std::uint8_t>());
  const std::string bad = check_task_descriptor(slot, TaskShapeSpan(kShapes), ranks, 256);
  if (!bad.empty()) return;
  heist::task::TaskHeader h;
  std::memcpy(&h, slot.data(), sizeof h);
  require(h.fn_id < kShapes.size() && !kShapes[h.fn_id].local_only);
  require(h.in_size == kShapes[h.fn_id].in_size && sizeof h + h.in_size <= stride);
  require(kShapes[h.fn_id].out_size <= 256);
  require(!h.completion.null() && h.completion.rank() < ranks);
  require((h.flags & ~heist::task::kJoined) == 0);
}

void inbox_entry(Bytes& in) {
  const auto h = in.take<InboxEntryHeader>();
  const std::size_t capacity = in.take<std::uint16_t>();
  const std::uint32_t self = in.take<std::uint8_t>();
  if (!check_inbox_entry(h, capacity, self).empty()) return;
  require(std::uint64_t{h.out_size} + h.error_size <= capacity);
  require(heist::task::GlobalRef::from_bits(h.completion).rank() == self);
  // count 0 is a failure note: an error and nothing else.
  require(h.count >= 1 || (h.error_size > 0 && h.out == 0 && h.sync == 0 && h.out_size == 0));
  require(h.count <= 1 || (h.out == 0 && h.sync == 0 && h.out_size == 0));
}

void thief(Bytes& in) {
  const std::uint64_t word = in.take<std::uint64_t>();
  const std::uint32_t slots = 1 + in.take<std::uint32_t>() % policy::sws::kMaxRingSlots;
  const std::uint32_t threshold = 1 + in.take<std::uint16_t>();
  policy::SwsSteal probe(policy::sws::TargetMode::empty);
  probe.on_probe(word);  // never throws on a fresh attempt
  policy::SwsSteal s;
  const bool claimed = s.on_fetch_add(word, threshold) == policy::SwsSteal::Step::copy;
  if (!check_stealval(word, slots).empty()) return;
  if (!claimed) return;
  const policy::sws::Claim& c = s.claim();
  const policy::sws::Stealval v = policy::sws::unpack(word);
  require(c.block.count >= 1 && c.block.offset + c.block.count <= v.offered && v.offered <= slots);
  // The copy SwsQueue::steal makes: runs of slots that never leave the ring.
  const std::uint64_t first = std::uint64_t{c.start} + c.block.offset;
  for (std::uint32_t i = 0; i < c.block.count;) {
    const std::uint64_t slot = (first + i) % slots;
    const auto run = static_cast<std::uint32_t>(std::min<std::uint64_t>(c.block.count - i, slots - slot));
    require(run >= 1 && slot + run <= slots);
    i += run;
  }
}

void owner(Bytes& in) {
  const std::uint32_t slots = 1 + in.take<std::uint16_t>() % 1024;
  policy::SwsOwnerState o(slots);
  std::uint64_t head = 0;  // private tasks [split, head)
  for (int step = 0; step < 64 && !in.empty(); ++step) {
    try {
      switch (in.take<std::uint8_t>() % 6) {
        case 0:  // push
          if (o.may_write(head)) ++head;
          break;
        case 1: {  // release n with an arbitrary fetched word
          const std::uint32_t n = 1 + in.take<std::uint16_t>() % slots;
          if (head - o.split() < n || !o.can_release(n)) break;
          (void)o.release_addend(n);
          const policy::TaskRange skipped = o.on_released(in.take<std::uint64_t>());
          require(skipped.begin <= skipped.end);
          break;
        }
        case 2:  // acquire with an arbitrary fetched word
          if (!o.live()) break;
          (void)o.disable_addend();
          (void)o.on_disabled(in.take<std::uint64_t>());
          break;
        case 3:  // observe an arbitrary word
          o.observe(in.take<std::uint64_t>());
          break;
        case 4:  // progress with arbitrary completion counters
          o.progress(in.take<std::uint64_t>(), in.take<std::uint64_t>());
          break;
        case 5:  // pop
          if (head > o.split()) --head;
          break;
      }
    } catch (const std::logic_error&) {
      return;  // rejected: the runtime ends the job with this message (Distributor)
    }
    // Public slots [ring_tail, split) are never writable; nor is anything a
    // whole ring above the tail (it would overwrite the tail's slot).
    require(o.ring_tail() <= o.split() && o.split() <= head);
    require(!o.may_write(o.ring_tail() + slots));
    if (o.split() > 0) require(!o.may_write(o.split() - 1));
  }
}

void sdc(Bytes& in) {
  const std::uint64_t tail = in.take<std::uint64_t>();
  const std::uint64_t split = in.take<std::uint64_t>();
  const std::uint64_t slots = 1 + in.take<std::uint32_t>() % (1u << 20);
  if (!check_sdc_meta(tail, split, slots).empty()) return;
  policy::SdcSteal s(1);
  s.on_lock(0);
  s.on_meta(tail, split, [](std::uint64_t available) { return available / 2 + 1; });
  require(s.count() <= slots && s.first() == tail && s.new_tail() <= split);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  Bytes in(data + 1, size - 1);
  switch (data[0] % 5) {
    case 0: descriptor(in); break;
    case 1: inbox_entry(in); break;
    case 2: thief(in); break;
    case 3: owner(in); break;
    case 4: sdc(in); break;
  }
  return 0;
}
