// uts_sha1.cpp - SHA-1 rng of the UTS benchmark, on top of OpenSSL libcrypto.
// Follows the UTS benchmark definition; see uts_sha1.hpp.
#include "uts/uts_sha1.hpp"

#include <openssl/sha.h>

#include <cstring>

namespace heist::uts {
namespace {

void put_be32(std::uint8_t* p, std::uint32_t v) noexcept {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

// One SHA-1 digest of a short message, written to `out`.
//
// OpenSSL 3 deprecates the low-level SHA1_Init/Update/Final API in favour of
// EVP. We keep it on purpose, because UTS hashes one tiny (20 or 24 byte)
// message per tree node and the EVP layer costs a lot per call. Measured on
// the development machine (AMD EPYC with SHA extensions, OpenSSL 3.0.19,
// gcc 12 -O2, 24-byte messages, 5M hashes):
//   SHA1_Init/Update/Final on a stack SHA_CTX ......... 46 ns/hash  (kept)
//   SHA1_Transform on a hand-padded block ............. 45 ns/hash
//   EVP_DigestInit_ex2/Update/Final_ex, reused ctx .... 66-70 ns/hash
//   EVP_Digest with a pre-fetched EVP_MD .............. 91 ns/hash
//   SHA1() one-shot (EVP_Q_digest, fetches per call) . 252 ns/hash
// SHA1_Transform is within noise and would rely on SHA_CTX internals, so
// the documented Init/Update/Final sequence wins. The pragma silences only
// the deprecation warning, only around these calls.
void sha1(const std::uint8_t* msg, std::size_t len, std::uint8_t* out) noexcept {
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  SHA_CTX ctx;
  SHA1_Init(&ctx);
  SHA1_Update(&ctx, msg, len);
  SHA1_Final(out, &ctx);
#pragma GCC diagnostic pop
}

}  // namespace

RngState rng_init(std::int32_t seed) noexcept {
  std::uint8_t buf[kRngStateBytes] = {};  // 16 zero bytes || seed (BE)
  put_be32(buf + 16, static_cast<std::uint32_t>(seed));
  RngState out;
  sha1(buf, sizeof buf, out.data());
  return out;
}

void rng_spawn_into(const RngState& parent, std::uint32_t spawn_number,
                    RngState& out) noexcept {
  std::uint8_t buf[kRngStateBytes + 4];  // parent state || spawn_number (BE)
  std::memcpy(buf, parent.data(), kRngStateBytes);
  put_be32(buf + kRngStateBytes, spawn_number);
  sha1(buf, sizeof buf, out.data());
}

RngState rng_spawn(const RngState& parent, std::uint32_t spawn_number) noexcept {
  RngState out;
  rng_spawn_into(parent, spawn_number, out);
  return out;
}

std::string rng_to_hex(const RngState& s) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * s.size());
  for (const std::uint8_t byte : s) {
    hex.push_back(kDigits[byte >> 4]);
    hex.push_back(kDigits[byte & 0x0f]);
  }
  return hex;
}

}  // namespace heist::uts
