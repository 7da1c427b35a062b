// SPDX-License-Identifier: Apache-2.0
// The two halves of the harness byte format: ByteReader consumes fuzzer bytes through clang's
// header-only FuzzedDataProvider (structure from the end, payload from the front), and
// ByteWriter produces exactly the bytes a ByteReader will read back, so any case can be turned
// into a seed (fuzz/case_codec.h).
//
//   ByteWriter w;  w.u8(3); w.u64(1ull << 62); w.payload("ab", 2);
//   std::vector<std::uint8_t> bytes = w.bytes();
//   ByteReader r(bytes.data(), bytes.size());   // r.u8() == 3, r.u64() == 1 << 62, ...
//
// Integers are little-endian: an 8-byte value sits in the input as its 8 LE bytes (read from
// the end, most significant byte last), so dictionary tokens are plain LE encodings.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace opconform::fuzz {

class ByteReader {
 public:
  ByteReader(const std::uint8_t* data, std::size_t size) : provider_(data, size) {}

  // One structure byte (0 when the input is exhausted).
  std::uint8_t u8() { return provider_.ConsumeIntegral<std::uint8_t>(); }
  // Eight structure bytes as a two's-complement 64-bit value (missing bytes are 0).
  std::uint64_t u64() { return provider_.ConsumeIntegral<std::uint64_t>(); }
  // `size` payload bytes into `out`; bytes past the end of the input read as 0.
  void payload(void* out, std::size_t size);
  std::size_t remaining() { return provider_.remaining_bytes(); }

 private:
  FuzzedDataProvider provider_;
};

class ByteWriter {
 public:
  void u8(std::uint8_t v) { tail_.push_back(v); }
  void u64(std::uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8) tail_.push_back(static_cast<std::uint8_t>(v >> shift));
  }
  void payload(const void* data, std::size_t size) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    front_.insert(front_.end(), p, p + size);
  }
  // Appends what `other` wrote, as if it had been written here.
  void append(const ByteWriter& other) {
    front_.insert(front_.end(), other.front_.begin(), other.front_.end());
    tail_.insert(tail_.end(), other.tail_.begin(), other.tail_.end());
  }
  // The payload, then the structure bytes in reverse reading order.
  std::vector<std::uint8_t> bytes() const {
    std::vector<std::uint8_t> out(front_);
    out.insert(out.end(), tail_.rbegin(), tail_.rend());
    return out;
  }

 private:
  std::vector<std::uint8_t> front_;
  std::vector<std::uint8_t> tail_;  // in the order a reader consumes them
};

inline void ByteReader::payload(void* out, std::size_t size) {
  auto* p = static_cast<std::uint8_t*>(out);
  const std::size_t got = provider_.ConsumeData(p, size);
  for (std::size_t i = got; i < size; ++i) p[i] = 0;
}

}  // namespace opconform::fuzz
