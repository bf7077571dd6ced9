// A reference to memory in some process of the job: the rank in the top 16
// bits, the address in the low 48 (user-space addresses on x86-64 and
// AArch64 fit). Task slots hold GlobalRefs so that a slot copied to another
// process still names its finish scope and output in the process that owns them.
#pragma once

#include <cstdint>
#include <stdexcept>

namespace heist::task {

class GlobalRef {
 public:
  static constexpr unsigned kAddrBits = 48;
  static constexpr std::uint64_t kAddrMask = (std::uint64_t{1} << kAddrBits) - 1;
  static constexpr std::uint32_t kMaxRank = 0xFFFF;

  constexpr GlobalRef() noexcept = default;

  static GlobalRef make(std::uint32_t rank, const void* ptr) {
    const auto addr = reinterpret_cast<std::uintptr_t>(ptr);
    if (rank > kMaxRank || (addr & ~kAddrMask) != 0)
      throw std::out_of_range("GlobalRef: rank or address does not fit in 16+48 bits");
    return GlobalRef((std::uint64_t{rank} << kAddrBits) | addr);
  }

  // For pointers of the calling process (user-space addresses always fit).
  static GlobalRef local(std::uint32_t rank, const void* ptr) noexcept {
    return GlobalRef((std::uint64_t{rank} << kAddrBits) | reinterpret_cast<std::uintptr_t>(ptr));
  }

  // A reference received from another process (validated by the receiver).
  static constexpr GlobalRef from_bits(std::uint64_t bits) noexcept { return GlobalRef(bits); }

  constexpr bool null() const noexcept { return (bits_ & kAddrMask) == 0; }
  constexpr std::uint32_t rank() const noexcept { return static_cast<std::uint32_t>(bits_ >> kAddrBits); }
  template <class T>
  T* local() const noexcept {  // valid only in process rank()
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(bits_ & kAddrMask));
  }
  constexpr std::uint64_t bits() const noexcept { return bits_; }
  friend constexpr bool operator==(GlobalRef, GlobalRef) = default;

 private:
  constexpr explicit GlobalRef(std::uint64_t bits) noexcept : bits_(bits) {}
  std::uint64_t bits_ = 0;
};

}  // namespace heist::task
