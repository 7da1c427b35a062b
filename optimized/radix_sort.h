// Private helper of the optimized SparseConcat: a stable LSD radix sort of 64-bit keys on a
// range of their bits, multi-threaded with OpenMP.
//
//   const std::uint64_t* sorted = radix_sort_bits(keys, scratch, n, /*low_bit=*/20,
//                                                 /*high_bit=*/52, chunks, threads);
//
// Keys are ordered by bits [low_bit, high_bit) only; keys equal there keep their order. The
// result is in `keys` or in `scratch` (the returned pointer; passes_for() says which: an odd
// pass count ends in scratch). It does not depend on `chunks` or `threads`: each pass scatters
// chunk by chunk in key order.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace opconform::optimized::radix_sort {

inline constexpr int kMaxDigitBits = 11;

// Passes that sort `bits` bits (each of at most kMaxDigitBits).
inline int passes_for(int bits) { return bits <= 0 ? 0 : (bits + kMaxDigitBits - 1) / kMaxDigitBits; }

// Sorts keys[0, n) by bits [low_bit, high_bit) (0 <= low_bit <= high_bit <= 64), stably,
// ping-ponging with scratch[0, n). `chunks` >= 1 splits each pass.
inline std::uint64_t* radix_sort_bits(std::uint64_t* keys, std::uint64_t* scratch, std::int64_t n,
                                      int low_bit, int high_bit, std::int64_t chunks, int threads) {
  const int bits = high_bit - low_bit;
  const int passes = passes_for(bits);
  if (n < 2 || passes == 0) {
    if (passes % 2 == 1) std::copy_n(keys, n, scratch);
    return passes % 2 == 1 ? scratch : keys;
  }
  const int digit_bits = (bits + passes - 1) / passes;
  const std::int64_t buckets = std::int64_t{1} << digit_bits;
  chunks = std::clamp<std::int64_t>(chunks, 1, n);
  threads = static_cast<int>(std::clamp<std::int64_t>(threads, 1, chunks));
  auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };
  auto digit = [&](std::uint64_t key, int pass) {
    const int shift = low_bit + pass * digit_bits;
    const int width = std::min(digit_bits, high_bit - shift);
    return static_cast<std::int64_t>((key >> shift) & ((std::uint64_t{1} << width) - 1));
  };
  // slots[(pass * chunks + c) * buckets + b]: chunk c's count, then first slot, for digit b.
  // One chunk: every pass's counts come from one read of the keys (they do not depend on the
  // order); several chunks: each pass counts its own chunks.
  std::vector<std::int64_t> slots(static_cast<std::size_t>((chunks == 1 ? passes : 1) * chunks * buckets));
  if (chunks == 1) {
    for (std::int64_t e = 0; e < n; ++e)
      for (int pass = 0; pass < passes; ++pass) ++slots[pass * buckets + digit(keys[e], pass)];
  }

  std::uint64_t* from = keys;
  std::uint64_t* to = scratch;
  for (int pass = 0; pass < passes; ++pass) {
    std::int64_t* pass_slots = slots.data() + (chunks == 1 ? pass * buckets : 0);
#pragma omp parallel num_threads(threads)
    {
      if (chunks > 1) {
#pragma omp for schedule(static)
        for (std::int64_t c = 0; c < chunks; ++c) {
          std::int64_t* count = pass_slots + c * buckets;
          std::fill(count, count + buckets, 0);
          const std::int64_t end = chunk_begin(c + 1);
          for (std::int64_t e = chunk_begin(c); e < end; ++e) ++count[digit(from[e], pass)];
        }
      }
#pragma omp single
      {
        std::int64_t next = 0;  // bucket-major, then chunk: the stable order
        for (std::int64_t b = 0; b < buckets; ++b)
          for (std::int64_t c = 0; c < chunks; ++c) {
            std::int64_t& slot = pass_slots[c * buckets + b];
            const std::int64_t count = slot;
            slot = next;
            next += count;
          }
      }
#pragma omp for schedule(static)
      for (std::int64_t c = 0; c < chunks; ++c) {
        std::int64_t* slot = pass_slots + c * buckets;
        const std::int64_t end = chunk_begin(c + 1);
        for (std::int64_t e = chunk_begin(c); e < end; ++e) {
          const std::uint64_t key = from[e];
          to[slot[digit(key, pass)]++] = key;
        }
      }
    }
    std::swap(from, to);
  }
  return from;
}

}  // namespace opconform::optimized::radix_sort
