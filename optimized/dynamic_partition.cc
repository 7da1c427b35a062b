// Optimized DynamicPartition (docs/contract/dynamic_stitch.md): count, prefix-sum, stable
// scatter.
//
// The positions are split into contiguous chunks (one per thread, or per injected tile); each
// chunk is checked and counted on its own (the first bad position over all chunks is the one
// reported), a prefix sum over (partition, chunk) gives every chunk its first slot in every
// output, and each chunk's rows are copied in order. The result is the stable split whatever
// the thread count or tile size. Rows of whole 16-byte words, 64 bytes and wider, go out
// with streaming stores when the output is large; to at most 4 outputs in cache, with the
// outputs' next destinations held in a register (scatter_chunk_wide_few).
//
// Outputs too large for the memory limit (64 bytes each plus their rows, as the request counts
// them) are answered without any num_partitions-sized bookkeeping: the first output over the
// limit is found by a binary search over partition numbers, counting with passes over the
// partitions.
#include "opconform/optimized/dynamic_partition.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <new>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "row_copy.h"
#include "thread_policy.h"

namespace opconform::optimized {
namespace {

using row_copy::with_row_mover;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kMaxChunks = 4096;
// Rows this wide (whole 16-byte words) go out with streaming stores when the output is large
// (streams()): each fills whole cache lines, which are then not read first.
constexpr std::int64_t kStreamMinRowBytes = 64;

// Whether an output of `output_bytes` goes out with streaming stores, on any thread count (two
// threads stream where one does: with cached stores they could fall below one streaming thread).
// An explicit ExecOptions::streaming_min_bytes is the threshold; by default 3/2 of row_copy's:
// each of the k outputs is written front to back, so cached stores keep up longer than for
// scattered rows. Measured (256-byte rows, 4 partitions, ratio to memcpy, streaming / cached,
// medians of 6 interleaved runs): 1 thread 8 MiB 0.72 / 0.78, 10 MiB 0.86 / 0.85, 12 MiB
// 0.94 / 0.77 (a Zen 5 guest; on a Zen 4 guest, 9 runs, 1.53 / 1.09 at 8 MiB). Two threads
// with cached stores while one streamed lost to it on the Zen 4 guest (20 MiB 1.20 against
// 1.35; streaming 1.52); on the Zen 5 guest they were the faster pair (16 MiB 2.43 against
// 1.83 streaming, one thread 0.90-0.97). Streaming two threads stayed above one on both.
bool streams(std::int64_t output_bytes, const ExecOptions& options) {
  if (options.streaming_min_bytes > 0) return output_bytes >= options.streaming_min_bytes;
  return output_bytes >= row_copy::default_streaming_min_bytes() / 2 * 3;
}

bool is_quantized(DType dtype) { return dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32; }

// "partitions" + "" (scalar), "[i]" (vector) or "[i0,i1,...]" (flat position unflattened).
std::string position_string(const Shape& shape, std::int64_t flat) {
  if (shape.empty()) return "";
  Shape coordinate(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    coordinate[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_string(coordinate);
}

Status out_of_range(const Tensor& partitions, std::int64_t position, std::int64_t num_partitions) {
  return invalid_argument("partitions", position_string(partitions.shape(), position), " = ",
                          std::int64_t{partitions.data<std::int32_t>()[position]}, " is not in [0, ", num_partitions,
                          ")");
}

// Bookkeeping of `size` Ts, each `fill`: on the stack when it is small (no allocation), else on
// the heap (std::bad_alloc when refused). Empty until assigned, so that a buffer declared
// before a try block is not zeroed as a whole (GCC clears a std::optional's storage: 552 bytes
// with `rep stos` for each of DynamicPartition's two).
template <class T, std::size_t kInline>
class SmallBuffer {
 public:
  SmallBuffer() = default;
  explicit SmallBuffer(std::size_t size, T fill = T{}) { assign(size, fill); }
  void assign(std::size_t size, T fill = T{}) {
    if (size > kInline)
      heap_.assign(size, fill);
    else
      std::fill_n(inline_, size, fill);
    size_ = size;
  }
  std::span<T> span() { return {size_ > kInline ? heap_.data() : inline_, size_}; }

 private:
  std::size_t size_ = 0;
  T inline_[kInline];
  std::vector<T> heap_;
};

// Shape of output p: [count] + the data's trailing dims.
Shape output_shape(std::int64_t count, std::span<const std::int64_t> trailing) {
  Shape shape;
  shape.reserve(trailing.size() + 1);
  shape.push_back(count);
  shape.insert(shape.end(), trailing.begin(), trailing.end());
  return shape;
}

std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<std::int64_t>::max() : sum;
}

// Entries of `partitions` (all valid) that are <= p.
std::int64_t count_at_most(const std::int32_t* partitions, std::int64_t n, std::int64_t p) {
  std::int64_t count = 0;
  for (std::int64_t j = 0; j < n; ++j) count += partitions[j] <= p;
  return count;
}

// The memory check when num_partitions outputs of 64 bytes alone exceed the limit: returns
// the RESOURCE_EXHAUSTED of the first output whose running total exceeds the limit, i.e. the
// smallest p with 64 (p + 1) + row_bytes * count(partitions <= p) > limit (increasing in p).
Status first_output_over_limit(const Tensor& partitions, std::int64_t limit, DType dtype,
                               std::span<const std::int64_t> trailing, std::int64_t row_bytes) {
  const std::int32_t* part = partitions.data<std::int32_t>();
  const std::int64_t n = partitions.num_elements();
  auto over = [&](std::int64_t p) {
    const std::int64_t payload = multiply_without_overflow(count_at_most(part, n, p), row_bytes);
    const std::int64_t total =
        saturating_add(payload < 0 ? std::numeric_limits<std::int64_t>::max() : payload, 64 * (p + 1));
    return total > limit;
  };
  std::int64_t lo = 0, hi = std::max<std::int64_t>(limit, 0) / 64;  // over(hi) holds
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (over(mid))
      hi = mid;
    else
      lo = mid + 1;
  }
  const std::int64_t count = count_at_most(part, n, lo) - (lo > 0 ? count_at_most(part, n, lo - 1) : 0);
  return resource_exhausted("OOM when allocating tensor with shape", shape_string(output_shape(count, trailing)),
                            " and type ", dtype_name(dtype));
}

// README pre-checks (argument type, attribute minimum, kernel registration), then check 0: the
// kernel reads num_partitions as an int32 (after the kernel lookup).
Status check_signature(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions) {
  if (partitions.dtype() != DType::kInt32)
    return invalid_argument("Input 'partitions' of 'DynamicPartition' Op has type ", dtype_name(partitions.dtype()),
                            " that does not match expected type of int32.");
  if (num_partitions < 1)
    return invalid_argument("Value for attr 'num_partitions' of ", num_partitions, " must be at least minimum 1");
  const DType dtype = data.dtype();
  if (is_quantized(dtype))
    return unimplemented("No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible with T=",
                         dtype_name(dtype));
  if (num_partitions > kInt32Max)
    return invalid_argument("Attr num_partitions has value ", num_partitions, " out of range for an int32");
  return Status();
}

// Check 1: data.shape starts with partitions.shape.
Status check_shapes(const Tensor& data, const Tensor& partitions) {
  const Shape& data_shape = data.shape();
  const Shape& part_shape = partitions.shape();
  if (data_shape.size() < part_shape.size() || !std::equal(part_shape.begin(), part_shape.end(), data_shape.begin()))
    return invalid_argument("data.shape must start with partitions.shape, got data.shape = ", shape_string(data_shape),
                            ", partitions.shape = ", shape_string(part_shape));
  return Status();
}

// The problem after checks 0-1: n positions, each a row of the data, going to one of k outputs.
struct Problem {
  DType dtype;
  std::span<const std::int64_t> trailing;  // the data's dims after the partitions' ones
  const std::int32_t* part;                // [n]
  std::int64_t n;
  std::int64_t k;
  std::int64_t row_elems;
  std::int64_t row_bytes;  // accounted bytes of one row
};

Problem problem_of(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions) {
  Problem pr;
  const Shape& data_shape = data.shape();
  pr.dtype = data.dtype();
  pr.trailing = std::span<const std::int64_t>(data_shape).subspan(partitions.shape().size());
  pr.part = partitions.data<std::int32_t>();
  pr.n = partitions.num_elements();
  pr.k = num_partitions;
  // n > 0: the data holds n rows, so a row's element and byte counts fit.
  pr.row_elems = pr.n > 0 ? data.num_elements() / pr.n : 0;
  pr.row_bytes = pr.row_elems * dtype_accounting_width(pr.dtype);
  return pr;
}

// Check 2 alone: the first position whose partition is outside [0, k), or n.
std::int64_t first_out_of_range(const Problem& pr) {
  for (std::int64_t j = 0; j < pr.n; ++j)
    if (pr.part[j] < 0 || pr.part[j] >= pr.k) return j;
  return pr.n;
}

// Chunks of positions: one per thread, or one per injected tile of rows; each chunk has its
// own k counters, all of them kept within ~5% of the output (else one chunk).
struct Chunks {
  std::int64_t n;
  std::int64_t count;
  int threads;                                  // at most count
  std::int64_t stride;                          // counters per chunk: k + 8 spare
  thread_policy::ThreadLearner::Choice choice;  // done() once the call succeeded
  std::int64_t begin(std::int64_t c) const { return thread_policy::share_begin(n, count, c); }
};

Chunks chunks_for(const Problem& pr, std::int64_t output_bytes, const ExecOptions& options) {
  const std::int64_t n = pr.n, k = pr.k;
  // Where the rule gives several threads (counting, then the scatter: two regions), learnt
  // apart for streamed and cached outputs (thread_policy::ThreadLearner); small calls skip it.
  static constinit thread_policy::ThreadLearner learners[2];
  thread_policy::ThreadLearner::Choice choice{thread_policy::threads_for(options, output_bytes + 4 * n, 2)};
  if (choice.threads > 1)
    choice = learners[streams(output_bytes, options)].choose(options, output_bytes, choice.threads);
  int threads = choice.threads;
  std::int64_t chunks = threads;
  if (options.tile_bytes > 0) {
    const std::int64_t rows_per_tile =
        std::max<std::int64_t>(1, options.tile_bytes / std::max<std::int64_t>(pr.row_bytes, 1));
    chunks = std::min<std::int64_t>(kMaxChunks, n / rows_per_tile + (n % rows_per_tile != 0));
  }
  const std::int64_t counter_budget = std::max<std::int64_t>(output_bytes / 20, 64 << 10);
  chunks = std::max<std::int64_t>(1, std::min({chunks, n, counter_budget / 8 / (k + 8)}));
  threads = static_cast<int>(std::min<std::int64_t>(threads, chunks));
  // The 8 spare counters between chunks keep two threads' counters off a shared cache line
  // (they are written once per position).
  return {n, chunks, threads, k + 8, choice};
}

// Chunks of this many positions or more, to up to this many partitions, are counted into four
// tables in turn (count_range); shorter ones would spend more on the tables than they save.
constexpr std::int64_t kInterleavedMaxPartitions = 16;
constexpr std::int64_t kInterleavedMinPositions = 64;

// Check 2 and counting over positions [begin, end): count[p] += the entries == p. Returns the
// first position out of range, or end. With few partitions, consecutive positions often name
// the same one, and each increment of a counter in memory waits for the one before; four
// tables in turn break that chain. Measured (the counting alone, one table / four): 256
// positions to 4 partitions 143 / 95 ns, 1024 to 2 partitions 1080 / 483 ns; whole calls, 256-byte
// rows to 4 partitions, 1 thread, ratio to memcpy: 256 KiB 0.45 -> 0.53, 512 KiB 0.52 -> 0.60.
std::int64_t count_range(const std::int32_t* part, std::int64_t begin, std::int64_t end, std::int64_t k,
                         std::int64_t* count) {
  const auto limit = static_cast<std::uint32_t>(k);  // negative entries wrap to >= limit
  std::int64_t j = begin;
  if (k <= kInterleavedMaxPartitions && end - begin >= kInterleavedMinPositions) {
    std::int64_t table[4][kInterleavedMaxPartitions];
    for (auto& t : table) std::fill_n(t, k, 0);
    for (; j + 4 <= end; j += 4) {
      const auto p0 = static_cast<std::uint32_t>(part[j]), p1 = static_cast<std::uint32_t>(part[j + 1]);
      const auto p2 = static_cast<std::uint32_t>(part[j + 2]), p3 = static_cast<std::uint32_t>(part[j + 3]);
      if ((p0 >= limit) | (p1 >= limit) | (p2 >= limit) | (p3 >= limit)) break;  // the tail finds which
      ++table[0][p0];
      ++table[1][p1];
      ++table[2][p2];
      ++table[3][p3];
    }
    for (std::int64_t p = 0; p < k; ++p) count[p] += table[0][p] + table[1][p] + table[2][p] + table[3][p];
  }
  for (; j < end; ++j) {
    const auto p = static_cast<std::uint32_t>(part[j]);
    if (p >= limit) return j;
    ++count[p];
  }
  return end;
}

// Check 2 and counting, chunk by chunk: counts[c * stride + p] becomes the entries == p in
// chunk c. Returns the first position out of range over all chunks, or n.
std::int64_t count_partitions(const Problem& pr, const Chunks& ch, std::span<std::int64_t> counts) {
  const std::int64_t chunks = ch.count, stride = ch.stride;
  // Chunk c's first bad position, or n (each chunk writes its own entry: no reduction order).
  SmallBuffer<std::int64_t, 16> first_bad_buffer(static_cast<std::size_t>(chunks), pr.n);
  const std::span<std::int64_t> first_bad = first_bad_buffer.span();
  thread_policy::run_threads(ch.threads, [&](std::int64_t t, std::int64_t n) {
    const std::int64_t last = thread_policy::share_begin(chunks, n, t + 1);
    for (std::int64_t c = thread_policy::share_begin(chunks, n, t); c < last; ++c) {
      const std::int64_t end = ch.begin(c + 1);
      const std::int64_t bad = count_range(pr.part, ch.begin(c), end, pr.k, counts.data() + c * stride);
      if (bad < end) first_bad[static_cast<std::size_t>(c)] = bad;
    }
  });
  return *std::min_element(first_bad.begin(), first_bad.end());
}

// Turns each chunk's counts into its first slot in each output (a prefix sum over (partition,
// chunk)) and writes the output sizes to `sizes` (k zeros).
void assign_slots(const Problem& pr, const Chunks& ch, std::span<std::int64_t> counts, std::span<std::int64_t> sizes) {
  for (std::int64_t p = 0; p < pr.k; ++p)
    for (std::int64_t c = 0; c < ch.count; ++c) {
      const std::int64_t count = counts[static_cast<std::size_t>(c * ch.stride + p)];
      counts[static_cast<std::size_t>(c * ch.stride + p)] = sizes[p];
      sizes[p] += count;
    }
}

// The k uninitialised outputs; *allocating counts those allocated (k when all were).
std::vector<Tensor> allocate_outputs(const Problem& pr, std::span<const std::int64_t> sizes, std::int64_t* allocating) {
  std::vector<Tensor> result;
  result.reserve(static_cast<std::size_t>(pr.k));
  for (*allocating = 0; *allocating < pr.k; ++*allocating)
    result.push_back(Tensor::uninitialized(pr.dtype, output_shape(sizes[*allocating], pr.trailing)));
  return result;
}

// Software prefetch of the data rows (scatter_rows): outputs from kPrefetchMinOutputBytes up,
// row_copy::prefetch_ahead_bytes() ahead. Measured on 256-byte rows to 4 partitions, 1 thread,
// 8 KiB ahead on the AMD Zen 4 guest: 1 GiB 0.68 -> 0.83 of memcpy, 256 MiB 0.63 -> 0.76 (two
// rounds each).
constexpr std::int64_t kPrefetchMinOutputBytes = std::int64_t{32} << 20;
// Longer rows train the hardware prefetcher; a burst of prefetches for one (4 KiB rows: 64)
// was slower (64 MiB output, 4 partitions: 1.07 against 1.30 of memcpy).
constexpr std::int64_t kPrefetchMaxRowBytes = 2048;

// Destinations are taken kLookahead rows before their copies (scatter_chunk): one loaded from
// the slot counters right before its copy waits behind the previous row's stores. Measured
// (whole call, 1 thread, ratio to memcpy, 256-byte rows to 4 partitions, 64 / 256 KiB): 0.33 /
// 0.38 with the destination taken per row through references, 0.39 / 0.45 by value, 0.43 /
// 0.51 by value four rows ahead, 0.36 / 0.43 eight rows ahead.
constexpr int kLookahead = 4;

// Copies rows [begin, end) of the data, in order, to their outputs; slot[p] is the chunk's next
// slot in output p. Everything arrives by value: the copies' byte stores may alias anything
// reached through a reference, which would be reloaded after every row. Row j < fetch_end
// prefetches the later row at fetch_from + j * row_bytes.
template <class Mover>
[[gnu::always_inline]] inline void scatter_chunk_loop(const Mover m, const std::int32_t* const part,
                                                      typename Mover::Element* const* const out,
                                                      std::int64_t* const slot,
                                                      const typename Mover::Element* const rows,
                                                      const std::int64_t begin, const std::int64_t end,
                                                      const std::byte* const fetch_from, const std::int64_t fetch_end) {
  using Element = typename Mover::Element;
  const std::int64_t row_bytes = m.row_bytes();
  const std::int64_t row_units = row_bytes / static_cast<std::int64_t>(sizeof(Element));
  const auto take = [&](std::int64_t i) -> Element* {
    if (i >= end) return nullptr;
    const std::int32_t p = part[i];
    return out[p] + slot[p]++ * row_units;
  };
  Element* to[kLookahead];
  for (int a = 0; a < kLookahead; ++a) to[a] = take(begin + a);
  for (std::int64_t j = begin; j < end; ++j) {
    if (j < fetch_end) row_copy::prefetch_lines(fetch_from + j * row_bytes, row_bytes);
    Element* const next = take(j + kLookahead);
    m.copy(to[0], 0, rows, j);
    for (int a = 0; a + 1 < kLookahead; ++a) to[a] = to[a + 1];
    to[kLookahead - 1] = next;
  }
}

template <class Mover>
void scatter_chunk(const Mover m, const std::int32_t* const part, typename Mover::Element* const* const out,
                   std::int64_t* const slot, const typename Mover::Element* const rows, const std::int64_t begin,
                   const std::int64_t end, const std::byte* const fetch_from, const std::int64_t fetch_end) {
  scatter_chunk_loop(m, part, out, slot, rows, begin, end, fetch_from, fetch_end);
}
// scatter_chunk compiled for AVX2, for row_copy::WideFixedBytes movers.
template <class Mover>
OPCONFORM_WIDE_TARGET void scatter_chunk_wide(const Mover m, const std::int32_t* const part,
                                              std::byte* const* const out, std::int64_t* const slot,
                                              const std::byte* const rows, const std::int64_t begin,
                                              const std::int64_t end, const std::byte* const fetch_from,
                                              const std::int64_t fetch_end) {
  scatter_chunk_loop(m, part, out, slot, rows, begin, end, fetch_from, fetch_end);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// scatter_chunk_wide for at most 4 outputs: their next destinations held in one 256-bit
// register, the row's own picked by a lane permute and all four advanced by a masked add, so
// that no destination waits on a store (through the slot counters each waits behind the
// previous rows' stores, even four rows ahead). A bare loop of 1024 rows of 64 bytes to 4
// outputs in the L2, the partitions drawn anew for every call (Intel Xeon guest, medians of
// 5, the counting included): 3.14 us through memory, 2.31 us held, memcpy and counting 1.86
// us. Held in scalars and picked by comparisons, GCC compiles the picks to branches, which
// mispredict on random partitions. Rows [begin, end) go to out[p] + slot[p] onwards.
template <class Mover>
OPCONFORM_WIDE_TARGET void scatter_chunk_wide_few(const Mover m, const std::int32_t* const part,
                                                  std::byte* const* const out, const std::int64_t* const slot,
                                                  const std::int64_t k, const std::byte* const rows,
                                                  const std::int64_t begin, const std::int64_t end,
                                                  const std::byte* const fetch_from, const std::int64_t fetch_end) {
  const std::int64_t row_bytes = m.row_bytes();
  alignas(32) std::int64_t first[4] = {};
  for (std::int64_t q = 0; q < k; ++q) first[q] = reinterpret_cast<std::int64_t>(out[q] + slot[q] * row_bytes);
  __m256i next = _mm256_load_si256(reinterpret_cast<const __m256i*>(first));
  const __m256i lanes = _mm256_setr_epi64x(0, 1, 2, 3);
  const __m256i low_pair = _mm256_setr_epi32(0, 1, 0, 0, 0, 0, 0, 0);
  const __m256i step = _mm256_set1_epi64x(row_bytes);
  for (std::int64_t j = begin; j < end; ++j) {
    if (j < fetch_end) row_copy::prefetch_lines(fetch_from + j * row_bytes, row_bytes);
    const std::int32_t p = part[j];
    const __m256i picked = _mm256_permutevar8x32_epi32(next, _mm256_add_epi32(_mm256_set1_epi32(2 * p), low_pair));
    auto* const to = reinterpret_cast<std::byte*>(_mm_cvtsi128_si64(_mm256_castsi256_si128(picked)));
    next = _mm256_add_epi64(next, _mm256_and_si256(_mm256_cmpeq_epi64(_mm256_set1_epi64x(p), lanes), step));
    m.copy(to, 0, rows, j);
  }
}
#endif

// Copies each chunk's rows, in order, to the chunk's slots (counts holds each chunk's first
// slot in each output, from assign_slots()).
void scatter_rows(const Problem& pr, const Chunks& ch, std::span<std::int64_t> counts, const Tensor& data,
                  std::vector<Tensor>& result, std::int64_t output_bytes, const ExecOptions& options) {
  if (pr.row_elems == 0) return;
  const std::int64_t k = pr.k, chunks = ch.count, stride = ch.stride, row_bytes = pr.row_bytes;
  const int threads = ch.threads;
  visit_dtype(pr.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    with_row_mover<T>(pr.row_elems, [&](const auto& mover) {
      using Element = typename std::decay_t<decltype(mover)>::Element;
      SmallBuffer<Element*, 16> out_buffer(static_cast<std::size_t>(k));
      const std::span<Element*> out = out_buffer.span();
      for (std::int64_t p = 0; p < k; ++p) out[p] = static_cast<Element*>(result[p].raw_data());
      const auto* rows = static_cast<const Element*>(data.raw_data());
      // Byte rows of a cache line to 2 KiB, in outputs beyond the last-level cache: each row is
      // prefetched row_copy::prefetch_ahead_bytes() ahead (the hardware prefetcher alone left
      // the scatter at about 0.68 of memcpy at 1 GiB).
      const bool fetch = std::is_same_v<Element, std::byte> && row_bytes >= 64 && row_bytes <= kPrefetchMaxRowBytes &&
                         output_bytes >= kPrefetchMinOutputBytes;
      const std::int64_t fetch_rows =
          fetch ? std::max<std::int64_t>(1, row_copy::prefetch_ahead_bytes() / row_bytes) : 0;
      const std::int64_t fetch_end = fetch ? pr.n - fetch_rows : 0;
      const std::byte* fetch_from = static_cast<const std::byte*>(data.raw_data()) + fetch_rows * row_bytes;
      auto scatter = [&](const auto& m) {
        thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t n) {
          const std::int64_t last = thread_policy::share_begin(chunks, n, t + 1);
          for (std::int64_t c = thread_policy::share_begin(chunks, n, t); c < last; ++c) {
            if constexpr (row_copy::kWideMover<std::decay_t<decltype(m)>>) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
              if (k <= 4) {
                scatter_chunk_wide_few(m, pr.part, out.data(), counts.data() + c * stride, k, rows, ch.begin(c),
                                       ch.begin(c + 1), fetch_from, fetch_end);
                continue;
              }
#endif
              scatter_chunk_wide(m, pr.part, out.data(), counts.data() + c * stride, rows, ch.begin(c), ch.begin(c + 1),
                                 fetch_from, fetch_end);
            } else
              scatter_chunk(m, pr.part, out.data(), counts.data() + c * stride, rows, ch.begin(c), ch.begin(c + 1),
                            fetch_from, fetch_end);
          }
          row_copy::stream_fence();  // orders StreamedBytes stores, harmless after others
        });
      };
      // Rows of whole 16-byte words to 16-byte aligned outputs may stream.
      if constexpr (std::is_same_v<Element, std::byte>) {
        if (row_bytes >= kStreamMinRowBytes && row_bytes % 16 == 0 && streams(output_bytes, options) &&
            std::all_of(out.begin(), out.end(),
                        [](const Element* o) { return reinterpret_cast<std::uintptr_t>(o) % 16 == 0; }))
          return row_copy::with_streamed_mover(row_bytes, scatter);
        // Outputs in the L1 with their source (on Intel up to the L2): rows of 32-512 bytes in
        // 32-byte moves where the CPU has them (row_copy.h). 256-byte rows to 4 partitions,
        // 4 KiB, the whole call's time above allocating the outputs and copying the bytes: 152
        // -> 116 ns (41 interleaved rounds, medians, bench/call_loop.cc).
        if (row_copy::takes_wide_moves(output_bytes) && row_copy::with_wide_row_mover(row_bytes, scatter)) return;
      }
      scatter(mover);
    });
  });
}

}  // namespace

Status DynamicPartition(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                        std::vector<Tensor>* outputs, const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(check_signature(data, partitions, num_partitions));
  OPCONFORM_RETURN_IF_ERROR(check_shapes(data, partitions));
  const Problem pr = problem_of(data, partitions, num_partitions);

  // The outputs' request (64 bytes each plus the rows) exceeds the limit: check 2, then the
  // memory check alone, before any num_partitions-sized bookkeeping exists.
  const std::int64_t limit = options.memory_limit_bytes;
  const std::int64_t rows_bytes = multiply_without_overflow(pr.n, pr.row_bytes);
  if (pr.k > std::max<std::int64_t>(limit, 0) / 64 || rows_bytes < 0 || saturating_add(rows_bytes, 64 * pr.k) > limit) {
    const std::int64_t bad = first_out_of_range(pr);
    if (bad < pr.n) return out_of_range(partitions, bad, pr.k);
    return first_output_over_limit(partitions, limit, pr.dtype, pr.trailing, pr.row_bytes);
  }

  const Chunks ch = chunks_for(pr, rows_bytes, options);
  // The counters and the sizes on the stack for a few partitions, else on the heap.
  SmallBuffer<std::int64_t, 64> counts_buffer, sizes_buffer;
  try {
    counts_buffer.assign(static_cast<std::size_t>(ch.count * ch.stride));
    sizes_buffer.assign(static_cast<std::size_t>(pr.k));
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(Shape{pr.k}), " and type int64");
  }
  const std::span<std::int64_t> counts = counts_buffer.span(), sizes = sizes_buffer.span();
  const std::int64_t bad = count_partitions(pr, ch, counts);
  if (bad < pr.n) return out_of_range(partitions, bad, pr.k);
  assign_slots(pr, ch, counts, sizes);
  // Check 3 (the outputs' memory, in output order) cannot fail here: output p requests
  // 64 + sizes[p] * row_bytes, and all k together rows_bytes + 64 k, within the limit above.

  std::int64_t allocating = 0;
  try {
    std::vector<Tensor> result = allocate_outputs(pr, sizes, &allocating);
    scatter_rows(pr, ch, counts, data, result, rows_bytes, options);
    ch.choice.done();
    *outputs = std::move(result);
  } catch (const std::bad_alloc&) {
    // The allocator refused what the limit allowed: reported like an over-limit request.
    return resource_exhausted("OOM when allocating tensor with shape",
                              shape_string(output_shape(allocating < pr.k ? sizes[allocating] : 0, pr.trailing)),
                              " and type ", dtype_name(pr.dtype));
  }
  return Status();
}

}  // namespace opconform::optimized
