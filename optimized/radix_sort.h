// Private helper of the optimized SparseConcat: a stable radix sort of 64-bit keys on a range
// of their bits, multi-threaded with OpenMP.
//
//   std::uint64_t* keys = ends_in_scratch(52 - 20) ? a : b;  // so the result lands in b
//   ... fill keys ...
//   radix_sort_bits(keys, scratch, n, /*low_bit=*/20, /*high_bit=*/52, chunks, threads);
//
// Keys are ordered by bits [low_bit, high_bit) only; keys equal there keep their order. One
// pass over memory splits the keys by their top digit (MSD) into buckets small enough for the
// cache, then each bucket is finished by LSD passes in cache. Whether the result is in `keys`
// or in `scratch` depends only on the number of bits (ends_in_scratch). The result does not
// depend on `chunks` or `threads`.
#pragma once

#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstdint>
#include <vector>

namespace opconform::optimized::radix_sort {

inline constexpr int kMaxDigitBits = 11;
inline constexpr int kTopDigitBits = 8;           // buckets of the pass over memory
inline constexpr std::int64_t kSmallBucket = 32;  // insertion sort at or below

// The plan for `bits` bits: the top digit's width (0: no split) and the LSD passes after it.
struct Plan {
  int top_bits = 0;
  int lsd_passes = 0;
  int lsd_digit_bits = 0;
};
inline Plan plan_for(int bits) {
  Plan p;
  if (bits <= 0) return p;
  if (bits > kMaxDigitBits) p.top_bits = kTopDigitBits;
  const int rest = bits - p.top_bits;
  p.lsd_passes = (rest + kMaxDigitBits - 1) / kMaxDigitBits;
  p.lsd_digit_bits = p.lsd_passes > 0 ? (rest + p.lsd_passes - 1) / p.lsd_passes : 0;
  return p;
}

// Whether radix_sort_bits leaves its result in `scratch` for a sort on `bits` bits.
inline bool ends_in_scratch(int bits) {
  const Plan p = plan_for(bits);
  return ((p.top_bits > 0 ? 1 : 0) + p.lsd_passes) % 2 == 1;
}

namespace detail {

// Bits [shift, shift + width) of key; shift and width may each be 0..64.
inline std::uint64_t field(std::uint64_t key, int shift, int width) {
  const std::uint64_t shifted = shift >= 64 ? 0 : key >> shift;
  return width >= 64 ? shifted : shifted & ((std::uint64_t{1} << width) - 1);
}

// Stable LSD sort of from[0, n) on bits [low_bit, low_bit + passes * digit_bits), ping-ponging
// with to[0, n); the result is in `from` after an even number of passes, else in `to`.
inline void lsd_in_cache(std::uint64_t* from, std::uint64_t* to, std::int64_t n, int low_bit, int high_bit, int passes,
                         int digit_bits, std::vector<std::int64_t>& count) {
  if (n <= kSmallBucket) {  // stable insertion sort on the bits, then where the passes end
    const int width = high_bit - low_bit;
    for (std::int64_t i = 1; i < n; ++i) {
      const std::uint64_t key = from[i];
      const std::uint64_t k = field(key, low_bit, width);
      std::int64_t j = i;
      for (; j > 0 && field(from[j - 1], low_bit, width) > k; --j) from[j] = from[j - 1];
      from[j] = key;
    }
    if (passes % 2 == 1) std::copy_n(from, n, to);
    return;
  }
  // One counting pass for all digits (the passes permute the keys, not their digits).
  const std::int64_t buckets = std::int64_t{1} << digit_bits;
  count.assign(static_cast<std::size_t>(passes * buckets), 0);
  auto width = [&](int pass) { return std::min(digit_bits, high_bit - low_bit - pass * digit_bits); };
  if (passes == 2) {  // the common case, unrolled: shifts below 64 and digits of at most 11 bits
    const int shift0 = low_bit, shift1 = low_bit + digit_bits;
    const std::uint64_t mask0 = (std::uint64_t{1} << width(0)) - 1, mask1 = (std::uint64_t{1} << width(1)) - 1;
    std::int64_t* count0 = count.data();
    std::int64_t* count1 = count0 + buckets;
    for (std::int64_t e = 0; e < n; ++e) {
      const std::uint64_t key = from[e];
      ++count0[(key >> shift0) & mask0];
      ++count1[(key >> shift1) & mask1];
    }
  } else {
    for (std::int64_t e = 0; e < n; ++e)
      for (int pass = 0; pass < passes; ++pass)
        ++count[pass * buckets + field(from[e], low_bit + pass * digit_bits, width(pass))];
  }
  for (int pass = 0; pass < passes; ++pass) {
    std::int64_t* c = count.data() + pass * buckets;
    std::int64_t next = 0;
    for (std::int64_t b = 0; b < buckets; ++b) {
      const std::int64_t here = c[b];
      c[b] = next;
      next += here;
    }
  }
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = low_bit + pass * digit_bits, w = width(pass);
    std::int64_t* c = count.data() + pass * buckets;
    for (std::int64_t e = 0; e < n; ++e) to[c[field(from[e], shift, w)]++] = from[e];
    std::swap(from, to);
  }
}

// Moves from[0, n) to to[slot[d]++], d = bits [shift, shift + bits) of each key, stably.
// Keys are staged per bucket in a cache line and a completed line that lies inside this call's
// slots is written whole with streaming stores (no read of the target line); the other lines
// (shared with the neighbouring slots) word by word.
inline void scatter_by_digit(const std::uint64_t* from, std::int64_t n, std::uint64_t* to, std::int64_t* slot,
                             std::int64_t buckets, int shift, int bits) {
#if defined(__SSE2__)
  struct alignas(64) Line {
    std::uint64_t word[8];
  };
  const std::vector<std::int64_t> begin(slot, slot + buckets);
  std::vector<Line> staged(static_cast<std::size_t>(buckets));
  // to[w] sits at word (w + phase) % 8 of its line.
  const auto phase = static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(to) / 8 % 8);
  auto at = [&](std::int64_t u) { return static_cast<std::uint64_t>(u + phase) % 8; };
  for (std::int64_t e = 0; e < n; ++e) {
    const std::uint64_t key = from[e];
    const std::uint64_t d = field(key, shift, bits);
    const std::int64_t w = slot[d]++;
    Line& line = staged[d];
    line.word[at(w)] = key;
    if (at(w) != 7) continue;
    if (w - 7 >= begin[d]) {
      const __m128i* source = reinterpret_cast<const __m128i*>(line.word);
      __m128i* target = reinterpret_cast<__m128i*>(to + (w - 7));
      for (int v = 0; v < 4; ++v) _mm_stream_si128(target + v, _mm_load_si128(source + v));
    } else {
      for (std::int64_t u = begin[d]; u <= w; ++u) to[u] = line.word[at(u)];
    }
  }
  for (std::int64_t d = 0; d < buckets; ++d) {  // the last, partial lines
    const std::int64_t line_begin = slot[d] - static_cast<std::int64_t>(at(slot[d]));
    for (std::int64_t u = std::max(line_begin, begin[d]); u < slot[d]; ++u) to[u] = staged[d].word[at(u)];
  }
  _mm_sfence();
#else
  for (std::int64_t e = 0; e < n; ++e) to[slot[field(from[e], shift, bits)]++] = from[e];
#endif
}

}  // namespace detail

// Sorts keys[0, n) by bits [low_bit, high_bit) (0 <= low_bit <= high_bit <= 64), stably; the
// result is in scratch[0, n) when ends_in_scratch(high_bit - low_bit), else in keys[0, n).
// `chunks` >= 1 splits the pass over memory.
inline void radix_sort_bits(std::uint64_t* keys, std::uint64_t* scratch, std::int64_t n, int low_bit, int high_bit,
                            std::int64_t chunks, int threads) {
  const Plan plan = plan_for(high_bit - low_bit);
  if (plan.top_bits == 0) {
    std::vector<std::int64_t> count;
    detail::lsd_in_cache(keys, scratch, n, low_bit, high_bit, plan.lsd_passes, plan.lsd_digit_bits, count);
    return;
  }
  // The pass over memory: keys -> scratch by the top digit, chunk by chunk in key order.
  const int top_shift = high_bit - plan.top_bits;
  const std::int64_t buckets = std::int64_t{1} << plan.top_bits;
  chunks = std::clamp<std::int64_t>(chunks, 1, std::max<std::int64_t>(n, 1));
  threads = static_cast<int>(std::clamp<std::int64_t>(threads, 1, chunks));
  auto chunk_begin = [&](std::int64_t c) { return n / chunks * c + std::min(c, n % chunks); };
  std::vector<std::int64_t> slots(static_cast<std::size_t>(chunks * buckets));
  std::vector<std::int64_t> bucket_begin(static_cast<std::size_t>(buckets + 1));
#pragma omp parallel num_threads(threads) if (threads > 1)
  {
#pragma omp for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::int64_t* count = slots.data() + c * buckets;
      const std::int64_t end = chunk_begin(c + 1);
      for (std::int64_t e = chunk_begin(c); e < end; ++e) ++count[detail::field(keys[e], top_shift, plan.top_bits)];
    }
#pragma omp single
    {
      std::int64_t next = 0;  // bucket-major, then chunk: the stable order
      for (std::int64_t b = 0; b < buckets; ++b) {
        bucket_begin[b] = next;
        for (std::int64_t c = 0; c < chunks; ++c) {
          std::int64_t& slot = slots[static_cast<std::size_t>(c * buckets + b)];
          const std::int64_t count = slot;
          slot = next;
          next += count;
        }
      }
      bucket_begin[buckets] = next;
    }
#pragma omp for schedule(static)
    for (std::int64_t c = 0; c < chunks; ++c) {
      const std::int64_t begin = chunk_begin(c);
      detail::scatter_by_digit(keys + begin, chunk_begin(c + 1) - begin, scratch, slots.data() + c * buckets, buckets,
                               top_shift, plan.top_bits);
    }
    // Each bucket, in cache: scratch -> keys -> ... on the remaining bits.
    std::vector<std::int64_t> count;
#pragma omp for schedule(dynamic, 16)
    for (std::int64_t b = 0; b < buckets; ++b) {
      const std::int64_t begin = bucket_begin[b], size = bucket_begin[b + 1] - begin;
      detail::lsd_in_cache(scratch + begin, keys + begin, size, low_bit, top_shift, plan.lsd_passes,
                           plan.lsd_digit_bits, count);
    }
  }
}

}  // namespace opconform::optimized::radix_sort
