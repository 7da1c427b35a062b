// Optimized DynamicStitch and ParallelDynamicStitch (docs/contract/dynamic_stitch.md).
//
// Each row of the uninitialised output ends as its last writer's row, or zero for a gap
// (string outputs start as empty strings, their zero). Extra memory stays within ~5% of the
// output, so the winners are decided in one of these ways:
//
// - Byte rows of kPullMinRowBytes or more and at most kForwardMaxPositionsPerRow positions per
//   row, "forward" (stitch_forward): every position's row copied in order, a later writer
//   overwriting an earlier one, then the gaps zeroed from a bitmap: sequential reads, one bit
//   per row and thread (one thread with cached stores marks a byte a row first). Outputs in
//   the core's cache go forward on one thread (up to 32 KiB, and rows of 256 and 512 bytes
//   where the CPU has AVX2, by stitch_small_forward, without the set-up); outputs too large
//   for it (row_copy::streaming_min_bytes(options)), with byte rows of whole 16-byte pieces,
//   on any number of threads, with streaming stores: threads split the positions, and a
//   thread skips the rows a later thread's positions name.
//   Elsewhere each output row is written exactly once:
// - Other rows of kPullMinRowBytes or more (8 bytes per row fit the budget), "pull": a
//   forward pass over the positions (m, i) records each row's last writer, then the output
//   rows are written in order, each read from its winner: sequential writes, random reads.
//   Byte rows of whole 16-byte pieces in outputs too large for the core's cache instead
//   "scatter": the same pass records each row's winning position, then the positions are
//   walked in order and each winner's row is written with streaming stores.
// - Smaller rows, "push": the positions are walked from the last to the first, and the first
//   visit of an output row is its last writer; a bitmap of written rows (a byte a row where one
//   thread takes the whole output, kByteClaimsMinRowBytes) makes every later visit a skip, so a
//   loser's data is never read. The rows no index names are then zeroed as runs of the
//   bitmap's clear bits. The output rows are split into destination blocks
//   [lo, hi), each finished by one thread with its own bitmap of hi - lo bits (rows of 1-2
//   bytes take several blocks, each a pass over the indices).
//
// A row's final content is written by one thread (forward: the one holding its last writer;
// elsewhere its owner), so the result never depends on the thread count or the block size.
// ParallelDynamicStitch takes the same path: the global last writer is one of its allowed
// outcomes.
#include "opconform/optimized/dynamic_stitch.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__SSE4_1__)
#include <smmintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "dynamic_stitch_merge.h"
#include "row_copy.h"
#include "thread_policy.h"

namespace opconform::optimized {
namespace {

using row_copy::with_row_mover;

// One input list: its indices and its rows (index i names row i of `rows`).
struct StitchList {
  const std::int32_t* index;
  std::int64_t size;
  const void* rows;
};

// Whether a[0, n) == b[0, n): a plain loop, as shapes are short (std::equal calls memcmp).
bool same_dims(const std::int64_t* a, const std::int64_t* b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i)
    if (a[i] != b[i]) return false;
  return true;
}

// Whether some index of index[0, n) is negative, and the largest (-1 when n is 0; meaningless
// when one is negative). Every call scans every index: with SSE2, an OR for the sign and a
// compare-and-select maximum, eight indices a step (GCC's own vectorisation of a lane-wise
// min/max took about 0.5 ns an index on the Zen 5 guest, this about 0.13).
struct IndexScan {
  bool negative;
  std::int32_t max;
};
IndexScan scan_indices(const std::int32_t* index, std::int64_t n) {
  std::int32_t max = -1;
  bool negative = false;
  std::int64_t i = 0;
#if defined(__SSE2__)
  const auto vmax = [](__m128i a, __m128i b) {
#if defined(__SSE4_1__)
    return _mm_max_epi32(a, b);
#else
    const __m128i b_greater = _mm_cmpgt_epi32(b, a);
    return _mm_or_si128(_mm_and_si128(b_greater, b), _mm_andnot_si128(b_greater, a));
#endif
  };
  __m128i sign0 = _mm_setzero_si128(), sign1 = _mm_setzero_si128();
  __m128i max0 = _mm_set1_epi32(-1), max1 = _mm_set1_epi32(-1);
  for (; i + 8 <= n; i += 8) {
    const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(index + i));
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(index + i + 4));
    sign0 = _mm_or_si128(sign0, a);
    sign1 = _mm_or_si128(sign1, b);
    max0 = vmax(max0, a);
    max1 = vmax(max1, b);
  }
  negative = _mm_movemask_ps(_mm_castsi128_ps(_mm_or_si128(sign0, sign1))) != 0;
  alignas(16) std::int32_t lanes[4];
  _mm_store_si128(reinterpret_cast<__m128i*>(lanes), vmax(max0, max1));
  max = std::max(std::max(lanes[0], lanes[1]), std::max(lanes[2], lanes[3]));
#endif
  for (; i < n; ++i) {
    negative |= index[i] < 0;
    max = std::max(max, index[i]);
  }
  return {negative, max};
}

// README pre-checks 1-3 and the page's checks 0-2. On success *max_index is the largest index
// (-1 when there is none).
Status validate_inputs(std::string_view op, std::span<const Tensor> indices, std::span<const Tensor> data, int threads,
                       std::int64_t* max_index) {
  // Pre-check 1: argument types.
  for (const Tensor& t : indices)
    if (t.dtype() != DType::kInt32)
      return invalid_argument("Input 'indices' of '", op, "' Op has type ", dtype_name(t.dtype()),
                              " that does not match expected type of int32.");
  for (const Tensor& t : data)
    if (t.dtype() != data[0].dtype())
      return invalid_argument("Input 'data' of '", op, "' Op has type ", dtype_name(t.dtype()),
                              " that does not match type ", dtype_name(data[0].dtype()), " of argument 'data'.");
  // Pre-check 2 (page check 0): N >= 1 and equal list lengths.
  const auto n = static_cast<std::int64_t>(indices.size());
  if (n < 1) return invalid_argument("Value for attr 'N' of ", n, " must be at least minimum 1");
  if (static_cast<std::int64_t>(data.size()) != n)
    return invalid_argument("List argument 'data' to '", op, "' Op with length ",
                            static_cast<std::int64_t>(data.size()), " must match length ", n,
                            " of argument 'indices'.");
  // Pre-check 3: the CPU kernel is registered for every dtype of the README list.

  // Check 1: every index >= 0, in order over m then flat i; the max in int64.
  std::int64_t max_seen = -1;
  for (const Tensor& t : indices) {
    const std::int32_t* index = t.data<std::int32_t>();
    const std::int64_t size = t.num_elements();
    bool negative = false;
    std::int32_t hi = -1;
    if (threads > 1 && size > (1 << 20)) {
#pragma omp parallel for num_threads(threads) reduction(|| : negative) reduction(max : hi)
      for (int t = 0; t < threads; ++t) {
        const std::int64_t begin = thread_policy::share_begin(size, threads, t);
        const IndexScan scan = scan_indices(index + begin, thread_policy::share_begin(size, threads, t + 1) - begin);
        negative = negative || scan.negative;
        hi = std::max(hi, scan.max);
      }
    } else {
      const IndexScan scan = scan_indices(index, size);
      negative = scan.negative;
      hi = scan.max;
    }
    if (negative) {
      const std::int64_t first = std::find_if(index, index + size, [](std::int32_t v) { return v < 0; }) - index;
      return invalid_argument("indices[", first, "] is out of range");
    }
    max_seen = std::max<std::int64_t>(max_seen, hi);
  }

  // Check 2: data[m].shape = indices[m].shape + C, C shared with data[0].
  const Shape& indices0 = indices[0].shape();
  const Shape& data0 = data[0].shape();
  for (std::int64_t m = 0; m < n; ++m) {
    const Shape& is = indices[m].shape();
    const Shape& ds = data[m].shape();
    if (ds.size() < is.size() || !same_dims(is.data(), ds.data(), is.size()))
      return invalid_argument("data[", m, "].shape = ", shape_string(ds), " does not start with indices[", m,
                              "].shape = ", shape_string(is));
    if (m > 0 && (data0.size() - indices0.size() != ds.size() - is.size() ||
                  !same_dims(data0.data() + indices0.size(), ds.data() + is.size(), data0.size() - indices0.size())))
      return invalid_argument("Need data[0].shape[", static_cast<std::int64_t>(indices0.size()), ":] = data[", m,
                              "].shape[", static_cast<std::int64_t>(is.size()),
                              ":], got data[0].shape = ", shape_string(data0), ", data[", m,
                              "].shape = ", shape_string(ds), ", indices[0].shape = ", shape_string(indices0),
                              ", indices[", m, "].shape = ", shape_string(is));
  }
  *max_index = max_seen;
  return Status();
}

constexpr std::int64_t kFilterChunk = 1024;  // positions filtered per step of a partial block
// Positions ahead that the push path prefetches its destination row. Far beyond the L2 each
// random store's line comes from the L3 or memory, and 16 positions do not cover that wait:
// the sweep's 64-byte rows at 32 MiB (1 thread, 5 alternating rounds, ratio to memcpy, medians
// of 3) ran at 0.53-0.57 with 16 and 0.61-0.66 with 64. In the L1 and L2 the far distance
// lost (64 KiB: 0.63-0.67 against 0.60-0.62; 128 positions 0.53).
constexpr std::int64_t kPrefetchDistance = 16;
constexpr std::int64_t kFarPrefetchDistance = 64;
// Destination blocks of more than this many L2s take kFarPrefetchDistance.
constexpr std::int64_t kFarPrefetchL2s = 4;
constexpr std::int64_t kPrefetchRowBytes = 1024;
constexpr std::int64_t kMaxBlocks = 1024;
// Each push block is a pass over all the indices: an injected tile never makes more than this
// many (1024 passes made a 61K-position case take 10 s under ASan).
constexpr std::int64_t kMaxPushBlocks = 64;
// Rows this wide take the pull path: a pointer per row is at most 5% of the output.
constexpr std::int64_t kPullMinRowBytes = 160;
// One thread pushing a whole output of rows this wide claims them a byte each (at most 1/32 of
// the output), not a bit: a byte's test-and-set waits only on an earlier claim of the same row,
// a bit's on any claim of the 64 rows sharing its word. 64-byte rows, the work against the
// plain loop (loop time / work time), bits / bytes, medians of 4 alternating processes on the
// second Intel Xeon guest: 64 KiB 0.60 / 0.74, 128 KiB 0.62 / 0.76, 256 KiB 0.62 / 0.77,
// 384 KiB 0.62 / 0.79, 1 MiB 1.01 / 1.22, 4 MiB 0.97 / 0.98; 8-32 MiB (3 processes) level or
// ahead (0.97-1.14 / 1.03-1.21).
constexpr std::int64_t kByteClaimsMinRowBytes = 32;
constexpr std::int64_t kPullPrefetchRows = 16;  // rows ahead

// Writes the last writer of every output row in [lo, hi) that some index names.
// `written` holds hi - lo zero bits, or with kByteClaims zero bytes. kWhole: [lo, hi) is every
// row, so no index is filtered.
template <bool kWhole, bool kByteClaims, class Mover>
void stitch_block(std::span<const StitchList> lists, std::int64_t lo, std::int64_t hi, std::uint64_t* written,
                  typename Mover::Element* out, const Mover& mover) {
  using Element = typename Mover::Element;
  const auto span = static_cast<std::uint64_t>(hi - lo);
  // Returns whether row r (in the block) was unclaimed, and claims it.
  auto claim = [&](std::int64_t r) {
    const auto offset = static_cast<std::uint64_t>(r - lo);
    if constexpr (kByteClaims) {
      unsigned char& byte = reinterpret_cast<unsigned char*>(written)[offset];
      if (byte) return false;
      byte = 1;
      return true;
    } else {
      std::uint64_t& word = written[offset >> 6];
      const std::uint64_t bit = std::uint64_t{1} << (offset & 63);
      if (word & bit) return false;
      word |= bit;
      return true;
    }
  };
  // Prefetches (for writing) the bitmap word and the destination row of a later position:
  // every line of rows up to kPrefetchRowBytes, else the first (its page walk starts early).
  // Always inlined: GCC deems an outlined copy pure (prefetches have no side effects) and
  // deletes its calls.
  const std::int64_t row_bytes = mover.row_bytes();
  const std::int64_t lines = row_bytes <= kPrefetchRowBytes ? (row_bytes + 63) / 64 : 1;
  const std::int64_t l2 = row_copy::cache_sizes().l2;
  const std::int64_t distance =
      l2 > 0 && (hi - lo) / kFarPrefetchL2s > l2 / row_bytes ? kFarPrefetchDistance : kPrefetchDistance;
  auto prefetch = [&](std::int64_t r) __attribute__((always_inline)) {
    if constexpr (kByteClaims)
      __builtin_prefetch(reinterpret_cast<const unsigned char*>(written) + (r - lo), 1);
    else
      __builtin_prefetch(&written[static_cast<std::uint64_t>(r - lo) >> 6], 1);
    const char* row = reinterpret_cast<const char*>(out) + r * row_bytes;
    for (std::int64_t l = 0; l < lines; ++l) __builtin_prefetch(row + 64 * l, 1);
  };
  for (std::size_t m = lists.size(); m-- > 0;) {
    const std::int32_t* index = lists[m].index;
    const auto* rows = static_cast<const Element*>(lists[m].rows);
    if constexpr (kWhole) {
      for (std::int64_t i = lists[m].size; i-- > 0;) {
        if (i >= distance) prefetch(index[i - distance]);
        const std::int64_t r = index[i];
        if (claim(r)) mover.copy(out, r, rows, i);
      }
    } else {
      std::int64_t picked[kFilterChunk];
      for (std::int64_t end = lists[m].size; end > 0; end -= kFilterChunk) {
        const std::int64_t begin = std::max<std::int64_t>(0, end - kFilterChunk);
        std::int64_t count = 0;
        for (std::int64_t i = end; i-- > begin;) {  // branch-free: keep positions in the block
          picked[count] = i;
          count += static_cast<std::uint64_t>(index[i] - lo) < span;
        }
        for (std::int64_t k = 0; k < count; ++k) {
          if (k + distance < count) prefetch(index[picked[k + distance]]);
          const std::int64_t i = picked[k];
          const std::int64_t r = index[i];
          if (claim(r)) mover.copy(out, r, rows, i);
        }
      }
    }
  }
}

// Index of the first bit at or after `from` in [from, end) equal to `value`, or end.
std::int64_t find_bit(const std::uint64_t* bits, std::int64_t from, std::int64_t end, bool value) {
  if (from >= end) return end;
  std::int64_t w = from >> 6;
  std::uint64_t word = (value ? bits[w] : ~bits[w]) & (~std::uint64_t{0} << (from & 63));
  while (word == 0) {
    if (++w * 64 >= end) return end;
    word = value ? bits[w] : ~bits[w];
  }
  return std::min(end, w * 64 + std::countr_zero(word));
}

// Zeroes the rows lo + k of `out` whose bit k of `written` is clear, k in [0, hi - lo), run by run.
void zero_unwritten(const std::uint64_t* written, std::int64_t lo, std::int64_t hi, std::byte* out,
                    std::int64_t row_bytes) {
  const std::int64_t span = hi - lo;
  for (std::int64_t k = find_bit(written, 0, span, false); k < span;) {
    const std::int64_t end = find_bit(written, k, span, true);
    std::memset(out + (lo + k) * row_bytes, 0, static_cast<std::size_t>((end - k) * row_bytes));
    k = find_bit(written, end, span, false);
  }
}

// Packs byte marks into a bitmap in place: `marks` holds words * 64 bytes, each 0 or 1, and
// ends with its first `words` words the bitmap (word w reads bytes [64w, 64w + 64) and writes
// [8w, 8w + 8), bytes already read).
void pack_byte_marks(std::uint64_t* marks, std::int64_t words) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(marks);
  for (std::int64_t w = 0; w < words; ++w) {
    const unsigned char* from = bytes + w * 64;
    std::uint64_t word = 0;
#if defined(__SSE2__)
    for (int q = 0; q < 4; ++q) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + q * 16));
      const auto unmarked = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_setzero_si128())));
      word |= static_cast<std::uint64_t>(~unmarked & 0xffffu) << (q * 16);
    }
#else
    for (int b = 0; b < 64; ++b) word |= static_cast<std::uint64_t>(from[b]) << b;
#endif
    marks[w] = word;
  }
}

// The push path: destination blocks, each with a bitmap, walked from the last position.
template <class Mover>
void stitch_push(std::span<const StitchList> lists, std::int64_t rows, typename Mover::Element* out, const Mover& mover,
                 const ExecOptions& options, int threads) {
  const std::int64_t row_bytes = mover.row_bytes();

  // Block size: the injected tile, else one block per thread; capped so the bitmaps of all
  // threads stay within 5% of the output (at least 64 KiB in all).
  std::int64_t block_rows = options.tile_bytes > 0 ? std::max<std::int64_t>(1, options.tile_bytes / row_bytes)
                                                   : (rows + threads - 1) / threads;
  block_rows = std::max(block_rows, (rows + kMaxPushBlocks - 1) / kMaxPushBlocks);
  const std::int64_t output_bytes = rows > std::numeric_limits<std::int64_t>::max() / row_bytes
                                        ? std::numeric_limits<std::int64_t>::max()
                                        : rows * row_bytes;
  const std::int64_t bitmap_bits = std::max<std::int64_t>(output_bytes / 20, 64 << 10) * 8;
  block_rows = std::max<std::int64_t>(1, std::min(block_rows, bitmap_bits / threads));
  const std::int64_t blocks = (rows + block_rows - 1) / block_rows;
  threads = static_cast<int>(std::min<std::int64_t>(threads, blocks));

  const auto words = static_cast<std::size_t>((block_rows + 63) / 64);
  const auto finish_block = [&](std::int64_t b, std::uint64_t* written) {
    const std::int64_t lo = b * block_rows;
    const std::int64_t hi = std::min(rows, lo + block_rows);
    std::fill(written, written + words, 0);
    if (lo == 0 && hi == rows)
      stitch_block<true, false>(lists, lo, hi, written, out, mover);
    else
      stitch_block<false, false>(lists, lo, hi, written, out, mover);
    if constexpr (std::is_same_v<typename Mover::Element, std::byte>) zero_unwritten(written, lo, hi, out, row_bytes);
  };
  if (threads == 1) {  // no OpenMP region; the bitmap (or the byte claims) on the stack when small
    std::uint64_t small[64];
    if (blocks == 1 && row_bytes >= kByteClaimsMinRowBytes) {
      const std::size_t mark_words = words * 8;
      std::vector<std::uint64_t> large(mark_words > 64 ? mark_words : 0);  // zeroed
      std::uint64_t* const marks = mark_words > 64 ? large.data() : small;
      if (mark_words <= 64) std::fill(small, small + mark_words, 0);
      stitch_block<true, true>(lists, 0, rows, marks, out, mover);
      pack_byte_marks(marks, static_cast<std::int64_t>(words));
      if constexpr (std::is_same_v<typename Mover::Element, std::byte>) zero_unwritten(marks, 0, rows, out, row_bytes);
      return;
    }
    std::vector<std::uint64_t> large(words > 64 ? words : 0);
    for (std::int64_t b = 0; b < blocks; ++b) finish_block(b, words > 64 ? large.data() : small);
    return;
  }
#pragma omp parallel num_threads(threads)
  {
    std::vector<std::uint64_t> written(words);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t b = 0; b < blocks; ++b) finish_block(b, written.data());
  }
}

// The last writer of every output row: winner[r] = value(m, i) of the last position (m, i)
// naming r, `none` for a gap. Thread t records rows [lo, hi).
template <class V, class F>
std::vector<V> last_writers(std::span<const StitchList> lists, std::int64_t rows, int threads, V none, F value) {
  std::vector<V> winner(static_cast<std::size_t>(rows), none);
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t n) {
    const std::int64_t lo = thread_policy::share_begin(rows, n, t);
    const std::int64_t hi = thread_policy::share_begin(rows, n, t + 1);
    for (std::size_t m = 0; m < lists.size(); ++m) {
      for (std::int64_t i = 0; i < lists[m].size; ++i) {
        const std::int64_t r = lists[m].index[i];
        if (n == 1 || (r >= lo && r < hi)) winner[r] = value(m, i);
      }
    }
  });
  return winner;
}

// The scatter path, for byte rows of whole 16-byte pieces: winner[r] is the flat position
// (over m, then i) of row r's last writer, -1 for a gap. Thread t walks its share of the
// positions in order and copies a position's row when it is that row's winner (each row has
// one, so threads write disjoint rows), with streaming stores; then the gaps are zeroed the
// same way. `Streamed` is a streaming mover (row_copy::with_streamed_mover).
template <class Streamed>
void stitch_scatter(std::span<const StitchList> lists, std::int64_t rows, std::byte* out, const Streamed mover,
                    int threads) {
  const std::int64_t row_bytes = mover.row_bytes();
  std::vector<std::int64_t> offsets;  // flat position of each list's first
  std::int64_t positions = 0;
  for (const StitchList& list : lists) {
    offsets.push_back(positions);
    positions += list.size;
  }
  const std::vector<std::int64_t> winner = last_writers<std::int64_t>(
      lists, rows, threads, -1, [&](std::size_t m, std::int64_t i) { return offsets[m] + i; });
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t n) {
    const std::int64_t first = thread_policy::share_begin(positions, n, t);
    const std::int64_t last = thread_policy::share_begin(positions, n, t + 1);
    // Locals: the streaming stores may alias anything in memory, so members and captures
    // would be reloaded after each.
    const std::int64_t* const winner_of = winner.data();
    std::byte* const target = out;
    const Streamed m = mover;
    std::int64_t offset = 0;  // positions in the lists before `list`
    for (const StitchList& list : lists) {
      const std::int64_t from = std::max<std::int64_t>(first - offset, 0);
      const std::int64_t to = std::min<std::int64_t>(last - offset, list.size);
      const auto* const data = static_cast<const std::byte*>(list.rows);
      const std::int32_t* const index = list.index;
      const std::int64_t base = offset;
      for (std::int64_t i = from; i < to; ++i) {
        if (i + kPrefetchDistance < to) __builtin_prefetch(&winner_of[index[i + kPrefetchDistance]]);
        const std::int64_t r = index[i];
        if (winner_of[r] != base + i) continue;
        m.copy(target, r, data, i);
      }
      offset += list.size;
    }
    const std::int64_t gap_end = thread_policy::share_begin(rows, n, t + 1);
    for (std::int64_t r = thread_policy::share_begin(rows, n, t); r < gap_end; ++r) {
      if (winner[r] >= 0) continue;
      std::byte* row = out + r * row_bytes;
      for (std::int64_t b = 0; b < row_bytes; b += 16) row_copy::stream_zero16(row + b);
    }
    row_copy::stream_fence();
  });
}

// The pull path: winner[r] is the row that output row r copies (nullptr: a gap).
template <class Mover>
void stitch_pull(std::span<const StitchList> lists, std::int64_t rows, typename Mover::Element* out, const Mover& mover,
                 const ExecOptions& options, int threads) {
  using Element = typename Mover::Element;
  const std::int64_t row_bytes = mover.row_bytes();
  const std::int64_t row_elems = row_bytes / static_cast<std::int64_t>(sizeof(Element));
  const std::vector<const Element*> winner = last_writers<const Element*>(
      lists, rows, threads, nullptr,
      [&](std::size_t m, std::int64_t i) { return static_cast<const Element*>(lists[m].rows) + i * row_elems; });
  // Output rows in order, in chunks (one per thread, or per injected tile).
  std::int64_t chunks = threads;
  if (options.tile_bytes > 0) {
    const std::int64_t per_tile = std::max<std::int64_t>(1, options.tile_bytes / row_bytes);
    chunks = std::min<std::int64_t>(kMaxBlocks, rows / per_tile + (rows % per_tile != 0));
  }
  chunks = std::clamp<std::int64_t>(chunks, 1, rows);
  const std::int64_t lines = std::min<std::int64_t>((row_bytes + 63) / 64, 16);
  const auto copy_chunk = [&](std::int64_t c) {
    const std::int64_t begin = thread_policy::share_begin(rows, chunks, c);
    const std::int64_t end = thread_policy::share_begin(rows, chunks, c + 1);
    for (std::int64_t r = begin; r < end; ++r) {
      if (r + kPullPrefetchRows < end) {
        if (const Element* ahead = winner[r + kPullPrefetchRows]) {
          for (std::int64_t l = 0; l < lines; ++l) __builtin_prefetch(reinterpret_cast<const char*>(ahead) + 64 * l);
        }
      }
      if (const Element* source = winner[r]) {
        mover.copy(out, r, source, 0);
      } else if constexpr (std::is_same_v<Element, std::byte>) {
        std::memset(out + r * row_bytes, 0, static_cast<std::size_t>(row_bytes));
      }
    }
  };
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t n) {
    const std::int64_t end = thread_policy::share_begin(chunks, n, t + 1);
    for (std::int64_t c = thread_policy::share_begin(chunks, n, t); c < end; ++c) copy_chunk(c);
  });
}

// The rows a forward pass on one thread with cached stores writes (stitch_forward,
// stitch_small_forward), marked in a pass before the copies, one byte a row, then packed into
// a bitmap in place (zero_unwritten's): `marks` holds words * 64 bytes, zeroed, and ends with
// its first `words` words the bitmap. A byte store a row has no chain: a bit set in a pass of
// its own is a read-modify-write of a word the previous rows' bits share (all 64 rows of a
// 16 KiB output of 256-byte rows: 15-60 % slower than a bit set with each copy, on the first
// Intel Xeon guest), and a bit set with each copy slows the copies once they leave the L1.
// 256-byte rows, the work against the plain loop of copies (no gaps, nothing marked), loop
// time / work time, medians of 3-5 alternating processes on the second Intel Xeon guest
// (model 207), bit with each copy / byte first: in 32-byte moves (stitch_small_forward) 8 KiB
// 1.03 / 1.20, 16 KiB 1.11 / 1.20, 32 KiB 0.79 / 0.96, 64 KiB 0.77 / 1.01, 128 KiB 0.72 /
// 0.94, from 256 KiB to 8 MiB level with the bits set in a pass first (0.94-1.05); a memcpy
// call a row (stitch_forward) 64 KiB 0.65 / 0.68, 256 KiB 0.65 / 0.72, 1 MiB 0.74 / 0.82, 2-8
// MiB level (0.76-0.81).
void mark_rows(std::span<const StitchList> lists, std::uint64_t* marks, std::int64_t words) {
  auto* bytes = reinterpret_cast<unsigned char*>(marks);
  for (const StitchList& list : lists)
    for (std::int64_t i = 0; i < list.size; ++i) bytes[list.index[i]] = 1;
  pack_byte_marks(marks, words);
}
// The forward path, byte rows: every position's row copied to its index in order (a later
// writer overwrites an earlier one), then the rows no index named zeroed. No winner table:
// sequential reads, one bit per row and thread. It copies every duplicate's row too, so it is
// taken only for at most kForwardMaxPositionsPerRow positions per row.
// Thread t copies its share of the positions in order, skipping the rows that a later
// thread's positions name: claims[t] holds the rows thread t's positions name, and after the
// first barrier claims[u] for u >= 1 holds those of threads u and later. `Mover` is a cached
// one, on one thread (stitch_rows), which marks its rows before its copies (mark_rows), or
// StreamedBytes for outputs beyond the core's cache (one thread's streaming stores to one
// address stay in program order).
constexpr std::int64_t kForwardMaxPositionsPerRow = 2;
// Cached forward rows this wide are copied by a memcpy call each (stitch_rows).
constexpr std::int64_t kForwardMemcpyMinRowBytes = 256;
constexpr int kForwardLookahead = 4;
template <class Mover>
void stitch_forward(std::span<const StitchList> lists, std::int64_t rows, std::byte* out, const Mover& mover,
                    int threads) {
  constexpr bool kStreams = row_copy::kStreamed<Mover>;
  const std::int64_t row_bytes = mover.row_bytes();
  const std::int64_t words = (rows + 63) / 64;
  std::int64_t positions = 0;
  for (const StitchList& list : lists) positions += list.size;
  // One bitmap per thread, all of them within 5% of the output; with cached stores one thread
  // and a byte a row (a row is 160 bytes or more).
  const std::int64_t budget_words = rows * row_bytes / 20 / 8;
  threads = kStreams ? static_cast<int>(std::clamp<std::int64_t>(std::min<std::int64_t>(threads, budget_words / words),
                                                                 1, std::max<std::int64_t>(positions, 1)))
                     : 1;
  const auto total = static_cast<std::size_t>(kStreams ? threads * words : words * 8);
  std::uint64_t small[16] = {};
  std::vector<std::uint64_t> large(total > 16 ? total : 0);
  std::uint64_t* const bits = total > 16 ? large.data() : small;
  const auto claims = [&](std::int64_t t) { return bits + t * words; };
  if constexpr (!kStreams) mark_rows(lists, bits, words);

  // Calls f(rows, index, from, to) for each list's part of the positions [first, last), in
  // order (positions i in [from, to) of the list with data `rows`). Lists, output and mover
  // are read into locals: a streaming store may alias any memory, so the compiler reloads what
  // lies in memory after each one.
  const auto for_lists = [lists](std::int64_t first, std::int64_t last, auto&& f) {
    std::int64_t offset = 0;
    for (const StitchList& list : lists) {
      if (offset >= last) break;
      const std::int64_t from = std::max<std::int64_t>(first - offset, 0);
      const std::int64_t to = std::min(last - offset, list.size);
      if (from < to) f(static_cast<const std::byte*>(list.rows), list.index, from, to);
      offset += list.size;
    }
  };
  const auto set = [](std::uint64_t* b, std::int64_t r) { b[r >> 6] |= std::uint64_t{1} << (r & 63); };
  thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t n) {
    const std::int64_t first = thread_policy::share_begin(positions, n, t);
    const std::int64_t last = thread_policy::share_begin(positions, n, t + 1);
    const std::int64_t word_begin = thread_policy::share_begin(words, n, t);
    const std::int64_t word_end = thread_policy::share_begin(words, n, t + 1);
    std::uint64_t* const own = claims(t);
    // Marks the rows that positions [from, to) of a list name (for_lists' callback).
    const auto mark = [own, set](const std::byte*, const std::int32_t* index, std::int64_t from, std::int64_t to) {
      for (std::int64_t i = from; i < to; ++i) set(own, index[i]);
    };
    // With streaming stores thread 0 marks its claims in a pass after its copies (a cached
    // store between streaming ones holds them up: 1 thread, 64 MiB, 0.73 of memcpy marking
    // while copying; a bare loop of the copies at 1 GiB, marking each 1024 positions before
    // their copies 81-82 ms, after all copies 79-80, no marking 74-79, memcpy 73-76). Later
    // threads mark all theirs before the barrier: the earlier threads need them.
    if (t > 0) for_lists(first, last, mark);
    if (n > 1) {
#pragma omp barrier
      if (n > 2) {
        for (std::int64_t w = word_begin; w < word_end; ++w)  // claims[u] |= claims[u + 1], u from n - 2 to 1
          for (std::int64_t u = n - 2; u >= 1; --u) claims(u)[w] |= claims(u + 1)[w];
#pragma omp barrier
      }
    }
    const std::uint64_t* const later = t + 1 < n ? claims(t + 1) : nullptr;
    // With cached stores each destination row is read kForwardLookahead positions before its
    // copy: read right before, it waits behind the previous row's stores. Streaming stores
    // read it in place (read ahead, one thread measured 0.55 -> 0.39 of memcpy at 256 MiB).
    constexpr int kAhead = kStreams ? 0 : kForwardLookahead;
    constexpr int kAheadSlots = kStreams ? 1 : kForwardLookahead;
    const auto copy = [=, target = out, m = mover](const std::byte* rows, const std::int32_t* index, std::int64_t from,
                                                   std::int64_t to) {
      std::int64_t ahead[kAheadSlots] = {};
      for (int a = 0; a < kAhead; ++a) ahead[a] = from + a < to ? index[from + a] : 0;
      for (std::int64_t i = from; i < to; ++i) {
        std::int64_t r = 0;
        if constexpr (kAhead == 0) {
          r = index[i];
        } else {
          r = ahead[0];
          for (int a = 0; a + 1 < kAhead; ++a) ahead[a] = ahead[a + 1];
          ahead[kAhead - 1] = i + kAhead < to ? index[i + kAhead] : 0;
        }
        if (later != nullptr && (later[r >> 6] >> (r & 63) & 1)) continue;
        m.copy(target, r, rows, i);
      }
    };
    for_lists(first, last, copy);
    if (t == 0 && kStreams) for_lists(first, last, mark);
    // Every row some thread claimed is written; zero the others, word share by word share.
    if (n > 1) {
#pragma omp barrier
      for (std::int64_t w = word_begin; w < word_end; ++w) claims(0)[w] |= claims(1)[w];
    }
    const std::int64_t lo = word_begin * 64, hi = std::min(rows, word_end * 64);
    if constexpr (kStreams) {
      for (std::int64_t r = find_bit(claims(0), lo, hi, false); r < hi; r = find_bit(claims(0), r + 1, hi, false))
        for (std::int64_t b = 0; b < row_bytes; b += 16) row_copy::stream_zero16(out + r * row_bytes + b);
      row_copy::stream_fence();
    } else if (lo < hi) {
      zero_unwritten(claims(0) + word_begin, lo, hi, out, row_bytes);
    }
  });
}

// How a call's rows are moved, decided once before the dtype's mover is chosen (stitch_rows).
struct Route {
  std::int64_t row_bytes;
  bool forward;  // byte rows of kPullMinRowBytes or more, at most kForwardMaxPositionsPerRow a row
  bool streams;  // byte rows of whole 16-byte pieces, a 16-byte aligned output past the threshold
  int threads;
};
Route route_of(std::span<const StitchList> lists, std::int64_t rows, std::int64_t row_bytes, bool byte_rows,
               const void* out, const ExecOptions& options) {
  std::int64_t positions = 0;
  for (const StitchList& list : lists) positions += list.size;
  const bool forward = byte_rows && row_bytes >= kPullMinRowBytes && positions <= kForwardMaxPositionsPerRow * rows;
  // Pull and scatter start two parallel regions (the last writers, then the copy); push one.
  // Where one thread goes forward, two threads on the pull path pay for a third: forward
  // moves a byte for less (no winner table, sequential reads). Measured, 256-byte rows, 1
  // thread forward / 2 threads pull, ratio to memcpy, 3 runs: 5 MiB 0.75-0.79 / 0.61-0.64,
  // 6 MiB 0.72-0.81 / 0.62-0.69, 8 MiB 0.69-0.82 / 0.74-0.79, 10 MiB 0.77-0.86 / 0.82-0.94.
  const int regions = row_bytes >= kPullMinRowBytes ? (forward ? 3 : 2) : 1;
  const bool streams = byte_rows && row_bytes % 16 == 0 && reinterpret_cast<std::uintptr_t>(out) % 16 == 0 &&
                       rows * row_bytes >= row_copy::streaming_min_bytes(options);
  return {row_bytes, forward, streams, thread_policy::threads_for(options, positions * (row_bytes + 4), regions)};
}

// Outputs that go forward on one thread with cached stores, when small or when their rows copy
// in 32-byte moves: the same copies in order and the gaps zeroed from marks of the rows
// written (on the stack up to 256 rows), without the forward path's set-up (the mover's
// dispatch, the thread split, the lookahead), which is about 460 instructions a call, as long
// as a plain loop takes to copy a whole 4 KiB output. Past 32 KiB the lookahead paid for its
// set-up (64 KiB: 1274-1350 ns here, 1243-1256 forward), but rows of 256 and 512 bytes in
// 32-byte moves (row_copy.h's wide moves, where the CPU has them) beat it up to the streaming
// threshold: 256-byte rows, 3 rounds, forward / here / plain loop, ns: 64 KiB 1288-1300 /
// 1218-1243 / 1207-1254, 256 KiB 5035-5115 / 4844-4907 / 4907-5329, 4 MiB 120050-135985 /
// 115461-120246 / 127874-136180.
constexpr std::int64_t kSmallForwardMaxBytes = 32 * 1024;
constexpr std::int64_t kSmallForwardMaxWords = (kSmallForwardMaxBytes / kPullMinRowBytes + 63) / 64;
// Forward rows (160 bytes or more) in 32-byte moves: 256 and 512 bytes (row_copy's wide movers).
bool copies_wide(std::int64_t row_bytes) { return row_copy::has_wide_row_mover(row_bytes) && row_copy::wide_moves(); }
bool goes_small_forward(const Route& route, std::int64_t rows) {
  return route.forward && !route.streams && route.threads == 1 &&
         (rows * route.row_bytes <= kSmallForwardMaxBytes || copies_wide(route.row_bytes));
}
// The copies of stitch_small_forward, each row by the byte mover m (row_copy::AnyBytes, or a
// WideFixedBytes inside small_forward_rows_wide only).
template <class Mover>
[[gnu::always_inline]] inline void small_forward_rows(std::span<const StitchList> lists, const Mover m,
                                                      std::byte* out) {
  for (const StitchList& list : lists) {
    const std::int32_t* index = list.index;  // locals: the copies may alias any memory
    const auto* from = static_cast<const std::byte*>(list.rows);
    for (std::int64_t i = 0, n = list.size; i < n; ++i) m.copy(out, index[i], from, i);
  }
}
template <class Mover>
OPCONFORM_WIDE_TARGET void small_forward_rows_wide(std::span<const StitchList> lists, const Mover m, std::byte* out) {
  small_forward_rows(lists, m, out);
}
void stitch_small_forward(std::span<const StitchList> lists, std::int64_t rows, std::int64_t row_bytes,
                          std::byte* out) {
  const std::int64_t words = (rows + 63) / 64;
  std::uint64_t small[kSmallForwardMaxWords * 8];
  std::vector<std::uint64_t> large(words > kSmallForwardMaxWords ? words * 8 : 0);
  std::uint64_t* marks = words > kSmallForwardMaxWords ? large.data() : small;
  if (words <= kSmallForwardMaxWords) std::memset(small, 0, static_cast<std::size_t>(words * 64));
  mark_rows(lists, marks, words);
  // Past the L1 too: there the 32-byte copies still beat a memcpy call per row (256-byte rows,
  // 20 / 24 / 32 KiB, 3 rounds: 386-437 / 469-473 / 637-658 ns against 420-426 / 505-529 /
  // 657-690), unlike SpaceToBatchND's, which replace inline 16-byte moves.
  if (copies_wide(row_bytes))
    row_copy::with_wide_row_mover(row_bytes, [&](const auto& m) { small_forward_rows_wide(lists, m, out); });
  else
    small_forward_rows(lists, row_copy::AnyBytes{row_bytes}, out);
  zero_unwritten(marks, 0, rows, out, row_bytes);
}

template <class Mover>
void stitch_rows(std::span<const StitchList> lists, std::int64_t rows, typename Mover::Element* out, const Mover& mover,
                 const Route& route, const ExecOptions& options) {
  const std::int64_t row_bytes = route.row_bytes;
  const int threads = route.threads;
  if constexpr (std::is_same_v<typename Mover::Element, std::byte>) {
    if (route.forward) {
      // With streaming stores, on any thread count: one region and, with two threads, two
      // barriers, each about as costly as a region (an injected thread count with an injected
      // tile runs as asked, even past the processors). With cached stores, on one thread: two
      // threads writing rows all over one output in cache were measured at 0.35 of memcpy at
      // 4 MiB (256-byte rows), where pull's two threads reach 0.80.
      if (route.streams) {
        const int forward_threads = options.num_threads > 0 && options.tile_bytes > 0 ? options.num_threads : threads;
        return row_copy::with_streamed_mover(
            row_bytes, [&](const auto& streamed) { stitch_forward(lists, rows, out, streamed, forward_threads); });
      }
      // Rows of 256 bytes or more by a memcpy call each: glibc's picks the widest vector moves
      // at run time, the fixed-size movers compile to the baseline's 16-byte ones (256-byte
      // rows, ratio to memcpy, medians of 4 interleaved runs: 64 KiB 0.52 both, 4 MiB 0.71 ->
      // 0.78, 6 MiB 0.66 -> 0.72).
      if (threads == 1 && row_bytes >= kForwardMemcpyMinRowBytes)
        return stitch_forward(lists, rows, out, row_copy::AnyBytes{row_bytes}, 1);
      if (threads == 1) return stitch_forward(lists, rows, out, mover, 1);
    }
    if (row_bytes >= kPullMinRowBytes && route.streams)
      return row_copy::with_streamed_mover(
          row_bytes, [&](const auto& streamed) { stitch_scatter(lists, rows, out, streamed, threads); });
  }
  if (row_bytes >= kPullMinRowBytes)
    stitch_pull(lists, rows, out, mover, options, threads);
  else
    stitch_push(lists, rows, out, mover, options, threads);
}

Status stitch(std::string_view op, std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
              const ExecOptions& options) {
  std::int64_t max_index = -1;
  std::int64_t index_bytes = 0;
  for (const Tensor& t : indices) index_bytes += t.num_elements() * 4;
  OPCONFORM_RETURN_IF_ERROR(
      validate_inputs(op, indices, data, thread_policy::threads_for(options, index_bytes), &max_index));

  // Check 3: output shape [max + 1] + C, then its memory request.
  const DType dtype = data[0].dtype();
  const int trailing_from = indices[0].rank();
  ShapeBuilder shape(static_cast<std::size_t>(1 + std::max(0, data[0].rank() - trailing_from)));
  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(max_index + 1));
  for (int d = trailing_from; d < data[0].rank(); ++d) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(data[0].dim(d)));
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape.dims()));

  // The allocator refusing what the limit allowed (the output, or the merge's scratch) is
  // reported like an over-limit request.
  const auto refused = [&](const Shape& dims) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(dims), " and type ",
                              dtype_name(dtype));
  };
  std::optional<Tensor> result;
  try {
    result.emplace(Tensor::uninitialized_taking(dtype, &shape.mutable_dims()));
  } catch (const std::bad_alloc&) {
    return refused(shape.dims());
  }
  try {
    dynamic_stitch::merge(indices, data, *result, options);
  } catch (const std::bad_alloc&) {
    return refused(result->shape());
  }
  *merged = std::move(*result);
  return Status();
}

}  // namespace

namespace dynamic_stitch {

void merge(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor& merged, const ExecOptions& options) {
  const std::int64_t rows = merged.dim(0);
  const std::int64_t row_elems = rows > 0 ? merged.num_elements() / rows : 0;
  if (row_elems > 0) {
    // The lists on the stack when there are few (no allocation), else on the heap.
    constexpr std::size_t kFewLists = 16;
    StitchList few[kFewLists];
    std::vector<StitchList> many(indices.size() > kFewLists ? indices.size() : 0);
    const std::span<StitchList> lists(indices.size() > kFewLists ? many.data() : few, indices.size());
    for (std::size_t m = 0; m < indices.size(); ++m)
      lists[m] = {indices[m].data<std::int32_t>(), indices[m].num_elements(), data[m].raw_data()};
    auto* out = merged.raw_data();
    Route route = route_of(lists, rows, row_elems * static_cast<std::int64_t>(dtype_storage_size(merged.dtype())),
                           merged.dtype() != DType::kString, out, options);
    // Where the rule gives several threads, learnt per route (thread_policy::ThreadLearner).
    // The learnt single thread takes the rule's single-thread path, small forward included.
    static constinit thread_policy::ThreadLearner learners[2][2][2];
    const thread_policy::ThreadLearner::Choice choice =
        learners[route.forward][route.streams][route.row_bytes >= kPullMinRowBytes].choose(
            options, rows * route.row_bytes, route.threads);
    route.threads = choice.threads;
    if (goes_small_forward(route, rows)) {
      stitch_small_forward(lists, rows, route.row_bytes, static_cast<std::byte*>(out));
    } else {
      visit_dtype(merged.dtype(), [&](auto tag) {
        using T = typename decltype(tag)::type;
        with_row_mover<T>(row_elems, [&](const auto& mover) {
          using Element = typename std::decay_t<decltype(mover)>::Element;
          stitch_rows(lists, rows, static_cast<Element*>(out), mover, route, options);
        });
      });
    }
    choice.done();
  }
}

}  // namespace dynamic_stitch

Status DynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                     const ExecOptions& options) {
  return stitch("DynamicStitch", indices, data, merged, options);
}

Status ParallelDynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                             const ExecOptions& options) {
  return stitch("ParallelDynamicStitch", indices, data, merged, options);
}

}  // namespace opconform::optimized
