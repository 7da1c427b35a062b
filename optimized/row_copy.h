// Private helper of the optimized DynamicStitch, DynamicPartition (and, for the thread count,
// SparseConcat): moves one row (a run of
// elements of one dtype) from a source buffer to a destination buffer, with the row's byte
// width fixed at compile time for the common small widths and std::string rows copied by
// assignment.
//
//   with_row_mover<T>(row_elems, [&](auto mover) { mover.copy(dst, dst_row, src, src_row); });
#pragma once

#include <omp.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

namespace opconform::optimized::row_copy {

// Copies rows of kBytes bytes between byte buffers (trivially copyable element types).
template <std::int64_t kBytes>
struct FixedBytes {
  using Element = std::byte;
  std::int64_t row_bytes() const { return kBytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    std::memcpy(dst + dst_row * kBytes, src + src_row * kBytes, kBytes);
  }
};

// Copies rows of a runtime byte width between byte buffers.
struct AnyBytes {
  using Element = std::byte;
  std::int64_t bytes;
  std::int64_t row_bytes() const { return bytes; }
  void copy(std::byte* dst, std::int64_t dst_row, const std::byte* src, std::int64_t src_row) const {
    std::memcpy(dst + dst_row * bytes, src + src_row * bytes, static_cast<std::size_t>(bytes));
  }
};

// Copies rows of `elems` strings by assignment.
struct Strings {
  using Element = std::string;
  std::int64_t elems;
  std::int64_t row_bytes() const { return elems * static_cast<std::int64_t>(sizeof(std::string)); }
  void copy(std::string* dst, std::int64_t dst_row, const std::string* src,
            std::int64_t src_row) const {
    for (std::int64_t k = 0; k < elems; ++k) dst[dst_row * elems + k] = src[src_row * elems + k];
  }
};

// Calls f(mover) with the mover for rows of `row_elems` elements of type T; the mover's
// Element is the pointer type f must hand to copy() (std::byte for every trivially copyable T).
// Precondition: row_elems * sizeof(T) fits in int64 (the rows belong to a valid tensor).
template <class T, class F>
void with_row_mover(std::int64_t row_elems, F&& f) {
  if constexpr (std::is_same_v<T, std::string>) {
    f(Strings{row_elems});
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    const std::int64_t bytes = row_elems * static_cast<std::int64_t>(sizeof(T));
    switch (bytes) {
      case 1: f(FixedBytes<1>{}); return;
      case 2: f(FixedBytes<2>{}); return;
      case 4: f(FixedBytes<4>{}); return;
      case 8: f(FixedBytes<8>{}); return;
      case 16: f(FixedBytes<16>{}); return;
      case 32: f(FixedBytes<32>{}); return;
      case 64: f(FixedBytes<64>{}); return;
      case 128: f(FixedBytes<128>{}); return;
      case 256: f(FixedBytes<256>{}); return;
      default: f(AnyBytes{bytes}); return;
    }
  }
}

// Below this many bytes of work a kernel runs on the calling thread: waking a team costs more.
inline constexpr std::int64_t kMinParallelBytes = std::int64_t{1} << 18;

// Worker threads for ExecOptions::num_threads (0: OpenMP's default) and `work_bytes` of work,
// at least 1. The thread count only ever changes who runs the chunks, never the result.
inline int resolve_threads(int requested, std::int64_t work_bytes) {
  if (work_bytes < kMinParallelBytes) return 1;
  const int threads = requested > 0 ? requested : omp_get_max_threads();
  return threads > 0 ? threads : 1;
}

}  // namespace opconform::optimized::row_copy
