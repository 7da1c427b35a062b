// Optimized SparseConcat (docs/contract/sparse_concat.md).
//
// Validation reads the entries once, for check 10's offset-overflow scan (the concat-dim column
// of every input with a nonzero offset), before anything is allocated. Then:
// - first, assuming every input is sorted row-major with its concat-dim coordinates inside its
//   shape, a linear merge copies the entries and checks that assumption on the way. Entries are ordered by the coordinates before the concat dim (the
//   prefix), then by input (inputs own disjoint ranges of the concat dim), then by their order
//   inside the input. For concat dim 0 that is the inputs appended with the offset; otherwise
//   a k-way merge of prefix runs, split across threads at prefixes sampled from the largest
//   input.
// - when the check fails: a stable LSD radix sort of all entries on packed keys (coordinates
//   minus their lower bound, then the value's bits or the entry's input and position),
//   decoded back into coordinates. The keys are built against the output shape; an entry
//   outside it sends the sort to exact column ranges. std::stable_sort when the key does not
//   fit in 64 bits.
// Both orders are the stable row-major sort of the concatenation (equal coordinates keep input
// order), one of the allowed outcomes, whatever the thread count or tile size.
#include "opconform/optimized/sparse_concat.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "radix_sort.h"
#include "row_copy.h"

namespace opconform::optimized {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxChunks = 4096;
// Sequential passes prefetch this many bytes ahead (the hardware prefetcher alone lags).
constexpr std::int64_t kPrefetchBytes = 16384;
constexpr std::int64_t kPrefetchAhead = kPrefetchBytes / 8;  // in int64

bool is_quantized(DType dtype) {
  return dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32;
}

// One input after validation.
struct Input {
  const std::int64_t* index;  // [nnz, rank], row-major
  std::int64_t nnz;
  const void* values;
  std::int64_t offset;  // added to the concat-dim coordinate
  const std::int64_t* shape;  // the input's shape (rank values)
};

struct Plan {
  std::int64_t rank = 0;
  std::int64_t cd = 0;
  Shape output_shape;
  std::int64_t total = 0;
  std::vector<Input> inputs;
};

// Chunks of [0, n) for the parallel loops: one per thread, or per `tile_bytes` of
// `bytes_per_item` when a tile is injected (capped at kMaxChunks).
struct Chunking {
  std::int64_t n;
  std::int64_t chunks;
  std::int64_t begin(std::int64_t c) const {
    return n / chunks * c + std::min<std::int64_t>(c, n % chunks);
  }
};

Chunking chunking(std::int64_t n, std::int64_t bytes_per_item, int threads,
                  const ExecOptions& options) {
  std::int64_t chunks = threads;
  if (options.tile_bytes > 0) {
    const std::int64_t per_chunk = std::max<std::int64_t>(1, options.tile_bytes / bytes_per_item);
    chunks = std::min<std::int64_t>(kMaxChunks, n / per_chunk + (n % per_chunk != 0));
  }
  return {n, std::clamp<std::int64_t>(chunks, 1, std::max<std::int64_t>(n, 1))};
}

// a < b row-major over `count` coordinates.
inline bool row_less(const std::int64_t* a, const std::int64_t* b, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j)
    if (a[j] != b[j]) return a[j] < b[j];
  return false;
}

template <class F>
void with_rank(std::int64_t rank, F&& f) {
  switch (rank) {
    case 1: f(std::integral_constant<int, 1>{}); return;
    case 2: f(std::integral_constant<int, 2>{}); return;
    case 3: f(std::integral_constant<int, 3>{}); return;
    case 4: f(std::integral_constant<int, 4>{}); return;
    default: f(std::integral_constant<int, 0>{}); return;
  }
}

// The first entry of `in` whose concat coordinate overflows int64 when offset, or in.nnz.
// The scan runs backwards, so that it ends at the input's first entries, which a pass that
// follows it at once may still find in cache.
std::int64_t first_overflow(const Input& in, std::int64_t rank, std::int64_t cd, int threads,
                            const ExecOptions& options) {
  if (in.offset == 0) return in.nnz;
  const std::int64_t limit = kInt64Max - in.offset;  // coordinates above overflow
  const Chunking ch = chunking(in.nnz, rank * 8, threads, options);
  std::int64_t first = in.nnz;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < ch.chunks; ++i) {
    const std::int64_t c = ch.chunks - 1 - i;
    const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
    bool any = false;
    with_rank(rank, [&](auto kRank) {  // a compile-time stride, four independent ORs
      const std::int64_t r = kRank > 0 ? kRank : rank;
      const std::int64_t* column = in.index + cd;
      bool a0 = false, a1 = false, a2 = false, a3 = false;
      std::int64_t e = end;
      for (; e - 4 >= begin; e -= 4) {
        a0 |= column[(e - 1) * r] > limit;
        a1 |= column[(e - 2) * r] > limit;
        a2 |= column[(e - 3) * r] > limit;
        a3 |= column[(e - 4) * r] > limit;
      }
      for (; e > begin; --e) a0 |= column[(e - 1) * r] > limit;
      any = a0 | a1 | a2 | a3;
    });
    for (std::int64_t e = begin; any && e < end; ++e)
      if (in.index[e * rank + cd] > limit) {
        first = std::min(first, e);
        break;
      }
  }
  return first;
}

// Check 10's offset-overflow scan over plan.inputs (the inputs whose row and column checks
// passed), in input order: the first failure's error, or OK.
Status check_offsets(const Plan& plan, int threads, const ExecOptions& options) {
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    const Input& in = plan.inputs[i];
    const std::int64_t bad = first_overflow(in, plan.rank, plan.cd, threads, options);
    if (bad < in.nnz)
      return invalid_argument("Index ", in.index[bad * plan.rank + plan.cd], " at position ", i,
                              " overflows int64 when offset by ", in.offset);
  }
  return Status();
}

// README pre-checks and the page's checks 2-10, except check 10's offset-overflow scan: a
// failure of check 10's row or column check at input i is returned in *deferred, with
// plan->inputs holding inputs 0..i-1, since the scan of those comes first.
Status validate(std::span<const Tensor> indices, std::span<const Tensor> values,
                std::span<const Tensor> shapes, std::int64_t concat_dim, Plan* plan,
                Status* deferred) {
  // Pre-check 1: argument types.
  for (const Tensor& t : indices)
    if (t.dtype() != DType::kInt64)
      return invalid_argument("Input 'indices' of 'SparseConcat' Op has type ",
                              dtype_name(t.dtype()), " that does not match expected type of int64.");
  for (const Tensor& t : values)
    if (t.dtype() != values[0].dtype())
      return invalid_argument("Input 'values' of 'SparseConcat' Op has type ",
                              dtype_name(t.dtype()), " that does not match type ",
                              dtype_name(values[0].dtype()), " of argument 'values'.");
  for (const Tensor& t : shapes)
    if (t.dtype() != DType::kInt64)
      return invalid_argument("Input 'shapes' of 'SparseConcat' Op has type ",
                              dtype_name(t.dtype()), " that does not match expected type of int64.");
  // Pre-check 2 (check 1): N >= 2, list lengths, concat_dim an int32.
  const auto n = static_cast<std::int64_t>(indices.size());
  if (n < 2) return invalid_argument("Value for attr 'N' of ", n, " must be at least minimum 2");
  if (static_cast<std::int64_t>(values.size()) != n)
    return invalid_argument("List argument 'values' to 'SparseConcat' Op with length ",
                            static_cast<std::int64_t>(values.size()), " must match length ", n,
                            " of argument 'indices'.");
  if (static_cast<std::int64_t>(shapes.size()) != n)
    return invalid_argument("List argument 'shapes' to 'SparseConcat' Op with length ",
                            static_cast<std::int64_t>(shapes.size()), " must match length ", n,
                            " of argument 'indices'.");
  if (concat_dim < std::numeric_limits<std::int32_t>::min() ||
      concat_dim > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr concat_dim has value ", concat_dim, " out of range for an int32");
  // Pre-check 3: registration.
  if (is_quantized(values[0].dtype()))
    return unimplemented("No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=",
                         dtype_name(values[0].dtype()));

  // Checks 2 and 4: indices are matrices, values are vectors.
  for (std::int64_t i = 0; i < n; ++i)
    if (indices[i].rank() != 2)
      return invalid_argument("Input indices should be a matrix but received shape ",
                              shape_string(indices[i].shape()), " at position ", i);
  for (std::int64_t i = 0; i < n; ++i)
    if (values[i].rank() != 1)
      return invalid_argument("Input values should be a vector but received shape ",
                              shape_string(values[i].shape()), " at position ", i);
  // Check 5: shapes are vectors whose checked element count is >= 0.
  for (std::int64_t i = 0; i < n; ++i) {
    if (shapes[i].rank() != 1)
      return invalid_argument("Input shapes should be a vector but received shape ",
                              shape_string(shapes[i].shape()), " at position ", i);
    std::int64_t elements = 1;
    for (const std::int64_t dim : shapes[i].values<std::int64_t>())
      elements = multiply_without_overflow(elements, dim);
    if (elements < 0) return internal_error("Encountered overflow from large input shape.");
  }
  // Checks 6 and 7: rank and concat dim.
  const std::span<const std::int64_t> shape0 = shapes[0].values<std::int64_t>();
  const auto rank = static_cast<std::int64_t>(shape0.size());
  if (rank > kMaxDims) return invalid_argument("Too many dimensions in tensor");
  const std::int64_t cd = concat_dim < 0 ? rank + concat_dim : concat_dim;
  if (cd < 0 || cd >= rank)
    return invalid_argument("Concat dimension must be in range [", -rank, ", ", rank, "), got ",
                            concat_dim);
  // Check 8: the other shapes match shape0 except on cd, whose sum (and the output's element
  // count) must fit.
  Shape output_shape(shape0.begin(), shape0.end());
  for (std::int64_t i = 1; i < n; ++i) {
    const std::span<const std::int64_t> shape = shapes[i].values<std::int64_t>();
    const auto rank_i = static_cast<std::int64_t>(shape.size());
    if (rank_i > kMaxDims) return invalid_argument("Too many dimensions in tensor");
    if (rank_i != rank)
      return invalid_argument("Ranks of all input tensors must match: expected ", rank,
                              " but got ", rank_i, " at position ", i);
    for (std::int64_t j = 0; j < rank; ++j) {
      if (j != cd) {
        if (shape[j] != shape0[j])
          return invalid_argument("Input shapes must match: expected ", shape0[j],
                                  " for dimension ", j, " but got ", shape[j], " at position ", i);
        continue;
      }
      if (__builtin_add_overflow(output_shape[cd], shape[cd], &output_shape[cd]))
        return invalid_argument("Concat dimension size overflows int64 at position ", i);
      std::int64_t elements = 1;
      for (const std::int64_t dim : output_shape) {
        const std::int64_t product = multiply_without_overflow(elements, dim);
        if (product < 0)
          return invalid_argument("Encountered overflow when multiplying ", elements, " with ",
                                  dim, ", result: ", product);
        elements = product;
      }
    }
  }
  // Check 9: the total entry count.
  std::int64_t total = 0;
  for (std::int64_t i = 0; i < n; ++i)
    if (__builtin_add_overflow(total, indices[i].dim(0), &total))
      return invalid_argument("Total number of entries overflows int64");
  plan->rank = rank;
  plan->cd = cd;
  plan->output_shape = std::move(output_shape);
  plan->total = total;
  if (total == 0) return Status();

  // Check 10's row and column checks, input by input.
  std::int64_t offset = 0;
  plan->inputs.clear();
  for (std::int64_t i = 0; i < n; ++i) {
    const Tensor& index = indices[i];
    if (index.dim(0) != values[i].dim(0)) {
      *deferred = invalid_argument("indices and values rows (indexing dimension) must match. (indices = ",
                                   index.dim(0), ", values = ", values[i].dim(0), ")");
      return Status();
    }
    if (index.dim(1) != rank) {
      *deferred = invalid_argument("Order length must be SparseTensor rank.");
      return Status();
    }
    const std::int64_t extent = shapes[i].data<std::int64_t>()[cd];
    plan->inputs.push_back({index.data<std::int64_t>(), index.dim(0), values[i].raw_data(), offset,
                            shapes[i].data<std::int64_t>()});
    offset += extent;  // <= the output's concat dim, which fits
  }
  return Status();
}

// Streaming (non-temporal) stores for the output: it is written once and not read back soon,
// so bypassing the cache saves reading every output line before writing it. Whoever streams
// calls store_fence() before another thread may read what it wrote.
inline void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

// Copies `bytes` bytes from src to dst, streaming where the target can.
inline void stream_bytes(void* dst, const void* src, std::size_t bytes) {
  auto* d = static_cast<char*>(dst);
  const auto* s = static_cast<const char*>(src);
#if defined(__SSE2__)
  if (bytes >= 256) {
    const std::size_t head = (16 - reinterpret_cast<std::uintptr_t>(d) % 16) % 16;
    std::memcpy(d, s, head);
    d += head, s += head, bytes -= head;
    for (; bytes >= 64; d += 64, s += 64, bytes -= 64) {
      __builtin_prefetch(s + kPrefetchBytes);
      const __m128i* from = reinterpret_cast<const __m128i*>(s);
      __m128i* to = reinterpret_cast<__m128i*>(d);
      _mm_stream_si128(to, _mm_loadu_si128(from));
      _mm_stream_si128(to + 1, _mm_loadu_si128(from + 1));
      _mm_stream_si128(to + 2, _mm_loadu_si128(from + 2));
      _mm_stream_si128(to + 3, _mm_loadu_si128(from + 3));
    }
  }
#endif
  std::memcpy(d, s, bytes);
}

// Copies values [from, from + count) of src to dst[0, count).
template <class T>
void stream_values(T* dst, const T* src, std::int64_t from, std::int64_t count) {
  if constexpr (std::is_trivially_copyable_v<T>)
    stream_bytes(dst, src + from, static_cast<std::size_t>(count) * sizeof(T));
  else
    std::copy_n(src + from, count, dst);
}

// No test of the rows stream_rows() copies (and, for copy_entries() at a runtime rank, no
// packed test: the exact one decides).
struct NoCheck {
  NoCheck() = default;
  NoCheck(const Input&, std::int64_t) {}
  bool packable() const { return false; }
  void start(const std::int64_t*) {}
  void add(const std::int64_t*) {}
  void add_pair(const std::int64_t*) {}
  std::optional<bool> verdict() const { return std::nullopt; }
};

// Copies `rows` index rows from src to dst adding `offset` to column cd, and returns `check`
// after handing it each source row as it goes (check.add(row), or check.add_pair(row) for that
// row and the next): the test reads the rows while they are loaded for the copy, and the
// copy's stores overlap the next rows' loads. Streams two rows (rank 16-byte words) at a time
// once dst is 16-byte aligned, for ranks up to kMaxStreamRank.
constexpr std::int64_t kMaxStreamRank = 8;
template <int kRank, class Check = NoCheck>
Check stream_rows(std::int64_t* dst, const std::int64_t* src, std::int64_t rows, std::int64_t rank,
                  std::int64_t cd, std::int64_t offset, Check check = Check{}) {
  const std::int64_t r = kRank > 0 ? kRank : rank;
  auto copy_row = [&](std::int64_t e) {
    check.add(src + e * r);
    for (std::int64_t j = 0; j < r; ++j) dst[e * r + j] = src[e * r + j] + (j == cd ? offset : 0);
  };
  std::int64_t e = 0;
#if defined(__SSE2__)
  if (r <= kMaxStreamRank) {
    if (rows > 0 && reinterpret_cast<std::uintptr_t>(dst) % 16 != 0) copy_row(e++);
    if (reinterpret_cast<std::uintptr_t>(dst + e * r) % 16 == 0) {
      __m128i add[kMaxStreamRank];  // word pair v of a two-row group
      for (std::int64_t v = 0; v < r; ++v)
        add[v] = _mm_set_epi64x((2 * v + 1) % r == cd ? offset : 0, (2 * v) % r == cd ? offset : 0);
      for (; e + 2 <= rows; e += 2) {
        const __m128i* from = reinterpret_cast<const __m128i*>(src + e * r);
        __m128i* to = reinterpret_cast<__m128i*>(dst + e * r);
        __builtin_prefetch(src + e * r + kPrefetchAhead);
        for (std::int64_t v = 0; v < r; ++v)
          _mm_stream_si128(to + v, _mm_add_epi64(_mm_loadu_si128(from + v), add[v]));
        check.add_pair(src + e * r);
      }
    }
  }
#endif
  for (; e < rows; ++e) copy_row(e);
  return check;  // by value, in and out: its state can stay in registers
}

// Whether row b lies below row a row-major (branch-free).
template <int kRank>
inline bool row_below(const std::int64_t* b, const std::int64_t* a, std::int64_t rank) {
  const std::int64_t r = kRank > 0 ? kRank : rank;
  bool below = false;
  for (std::int64_t j = r; j-- > 0;) below = (b[j] < a[j]) | ((b[j] == a[j]) & below);
  return below;
}

// Whether entries [from, to) of `in` (entry from - 1 too, when there is one) are in row-major
// order with their concat coordinates in [0, in.shape[cd]): the merge's assumption. The exact
// test compares rows coordinate by coordinate.
template <int kRank>
bool mergeable_exact(const Input& in, std::int64_t from, std::int64_t to, std::int64_t rank, std::int64_t cd) {
  const std::int64_t r = kRank > 0 ? kRank : rank;
  const auto extent = static_cast<std::uint64_t>(in.shape[cd]);
  bool bad = false;
  std::int64_t e = from;
  if (e == 0 && e < to) bad = static_cast<std::uint64_t>(in.index[cd]) >= extent, ++e;
  for (; e < to; ++e) {
    const std::int64_t* row = in.index + e * r;
    __builtin_prefetch(row + kPrefetchAhead);
    bad |= (static_cast<std::uint64_t>(row[cd]) >= extent) | row_below<kRank>(row, row - r, r);
  }
  return !bad;
}

// The fast test of mergeable_exact()'s condition, fed consecutive rows: where every row lies
// inside the input's shape and the shape's dims fit in 63 bits together, each row packs into
// a key of per-dim bit fields, whose order is row-major order. The fields are checked once at
// the end (an OR of each column), the concat column's range by sign bits, the order by the
// sign of key differences: a few instructions per row, no branches. When some row left its
// fields the verdict is unknown and the exact test decides (a row outside the shape is
// allowed, except on the concat dim).
template <int kRank>
class PackedOrder {
 public:
  PackedOrder(const Input& in, std::int64_t cd) : cd_(cd), extent_(static_cast<std::uint64_t>(in.shape[cd])) {
    int bits = 0;
    for (int j = kRank; j-- > 0;) {
      packable_ &= in.shape[j] > 0;
      shift_[j] = std::min(bits, 63);
      bits += std::bit_width(static_cast<std::uint64_t>(in.shape[j]) - 1);
    }
    packable_ &= bits <= 63;
    bits_ = bits;
  }
  bool packable() const { return packable_; }

  // Starts a run at `row` (the row before the first one tested, or the first itself).
  void start(const std::int64_t* row) {
    for (std::uint64_t& c : columns_) c = 0;
    below_extent_ = ~std::uint64_t{0};
    down_ = 0;
#if defined(__SSE2__)
    for (int j = 0; j < kRank; ++j) {
      column_or_[j] = _mm_setzero_si128();
      shift_by_[j] = _mm_cvtsi32_si128(shift_[j]);
    }
    extent_v_ = _mm_set1_epi64x(static_cast<std::int64_t>(extent_));
    below_v_ = _mm_set1_epi64x(-1);
    down_v_ = _mm_setzero_si128();
    previous_v_ = _mm_set1_epi64x(static_cast<std::int64_t>(key_of(row)));
#else
    previous_ = key_of(row);
#endif
  }
  void add(const std::int64_t* row) {
    const std::uint64_t key = key_of(row);
#if defined(__SSE2__)
    down_ |= key - static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(previous_v_, previous_v_)));
    previous_v_ = _mm_set1_epi64x(static_cast<std::int64_t>(key));
#else
    down_ |= key - previous_;
    previous_ = key;
#endif
  }
  // Rows `row` and `row + kRank`.
  void add_pair(const std::int64_t* row) {
#if defined(__SSE2__)
    // The same arithmetic in two 64-bit lanes; lane 1 of previous_v_ is the last key.
    __m128i key = _mm_setzero_si128();
    for (int j = 0; j < kRank; ++j) {
      const __m128i c = _mm_set_epi64x(row[kRank + j], row[j]);
      column_or_[j] = _mm_or_si128(column_or_[j], c);
      key = _mm_or_si128(key, _mm_sll_epi64(c, shift_by_[j]));
    }
    const __m128i c = _mm_set_epi64x(row[kRank + cd_], row[cd_]);
    below_v_ = _mm_and_si128(below_v_, _mm_sub_epi64(c, extent_v_));
    // Each row's predecessor: (the last key, lane 0 of this pair).
    const __m128i before = _mm_castpd_si128(_mm_shuffle_pd(_mm_castsi128_pd(previous_v_), _mm_castsi128_pd(key), 1));
    down_v_ = _mm_or_si128(down_v_, _mm_sub_epi64(key, before));
    previous_v_ = key;
#else
    add(row);
    add(row + kRank);
#endif
  }
  // The verdict on the rows since start(): in order with concat coordinates below the extent;
  // nullopt when some row left its fields.
  std::optional<bool> verdict() const {
    std::uint64_t below = below_extent_, down = down_;
    std::uint64_t columns[kRank];
    for (int j = 0; j < kRank; ++j) columns[j] = columns_[j];
#if defined(__SSE2__)
    auto lane1 = [](__m128i v) { return static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(v, v))); };
    auto lane0 = [](__m128i v) { return static_cast<std::uint64_t>(_mm_cvtsi128_si64(v)); };
    for (int j = 0; j < kRank; ++j) columns[j] |= lane0(column_or_[j]) | lane1(column_or_[j]);
    below &= lane0(below_v_) & lane1(below_v_);
    down |= lane0(down_v_) | lane1(down_v_);
#endif
    bool fields = below >> 63 != 0;
    int top = bits_;
    for (int j = 0; j < kRank; ++j) {  // field j spans [shift[j], top)
      fields &= columns[j] >> (top - shift_[j]) == 0;
      top = shift_[j];
    }
    if (!fields) return std::nullopt;
    return down >> 63 == 0;
  }

 private:
  std::uint64_t key_of(const std::int64_t* row) {
    std::uint64_t key = 0;
    for (int j = 0; j < kRank; ++j) {
      const auto c = static_cast<std::uint64_t>(row[j]);
      columns_[j] |= c;
      key |= c << shift_[j];
    }
    below_extent_ &= static_cast<std::uint64_t>(row[cd_]) - extent_;  // top bit: below the extent
    return key;
  }

  std::int64_t cd_;
  std::uint64_t extent_;
  int shift_[kRank];
  int bits_ = 0;
  bool packable_ = true;
  std::uint64_t columns_[kRank] = {};  // OR of each column
  std::uint64_t below_extent_ = 0;
  std::uint64_t down_ = 0;  // top bit: some key below its predecessor
#if defined(__SSE2__)
  __m128i column_or_[kRank], shift_by_[kRank], extent_v_, below_v_, down_v_, previous_v_;
#else
  std::uint64_t previous_ = 0;
#endif
};

// Copies entries [from, to) of `in` to output entries starting at `out`, offset on column cd,
// testing mergeable_exact()'s condition block by block (PackedOrder during the copy where it
// applies). Returns false, having copied only a part, when the test fails or `stop` is set;
// sets `stop` on a failed test.
template <int kRank, class T>
bool copy_entries(const Input& in, std::int64_t from, std::int64_t to, std::int64_t* out_index,
                  T* out_values, std::int64_t out, std::int64_t rank, std::int64_t cd,
                  std::atomic<bool>& stop) {
  constexpr std::int64_t kBlock = 512;  // rows per verdict: an unknown one re-reads them from cache
  const std::int64_t r = kRank > 0 ? kRank : rank;
  using Order = std::conditional_t<(kRank > 0), PackedOrder<kRank>, NoCheck>;
  Order order(in, cd);
  for (std::int64_t e = from; e < to; e += kBlock) {
    const std::int64_t end = std::min(e + kBlock, to);
    if (stop.load(std::memory_order_relaxed)) return false;
    std::int64_t* dst = out_index + (out + e - from) * r;
    // The packed test during the copy where it applies, else the exact test before it.
    bool ok = false;
    if (order.packable()) {
      order.start(in.index + std::max<std::int64_t>(e - 1, 0) * r);
      const std::optional<bool> verdict = stream_rows<kRank>(dst, in.index + e * r, end - e, r, cd, in.offset, order).verdict();
      ok = verdict ? *verdict : mergeable_exact<kRank>(in, e, end, r, cd);
    } else if ((ok = mergeable_exact<kRank>(in, e, end, r, cd))) {
      stream_rows<kRank>(dst, in.index + e * r, end - e, r, cd, in.offset);
    }
    if (!ok) {
      stop.store(true, std::memory_order_relaxed);
      return false;
    }
  }
  stream_values(out_values + out, static_cast<const T*>(in.values), from, to - from);
  return true;
}

// Every input mergeable, concat dim 0: the inputs appended, offset on column 0. Returns false
// (the outputs partly written) when some input is not mergeable.
template <class T>
bool append_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
                   const ExecOptions& options) {
  const std::int64_t rank = plan.rank;
  std::vector<std::int64_t> starts{0};  // output position of each input
  for (const Input& in : plan.inputs) starts.push_back(starts.back() + in.nnz);
  const Chunking ch = chunking(plan.total, rank * 8 + sizeof(T), threads, options);
  std::atomic<bool> stop{false};
  with_rank(rank, [&](auto kRank) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t c = 0; c < ch.chunks; ++c) {
      const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
      for (std::size_t k = plan.inputs.size(); k-- > 0;) {  // the last first: check_offsets() read its start last
        const std::int64_t lo = std::max(begin, starts[k]), hi = std::min(end, starts[k + 1]);
        if (lo < hi && !copy_entries<kRank>(plan.inputs[k], lo - starts[k], hi - starts[k], out_index,
                                            out_values, lo, rank, 0, stop))
          break;
      }
      store_fence();
    }
  });
  return !stop.load();
}

// The end of the run of entries from `from` (whose prefix, the first cd coordinates, equals
// `prefix`) to `stop` with that prefix: galloping, then a binary search (the input is sorted).
std::int64_t run_end(const Input& in, std::int64_t from, std::int64_t stop,
                     const std::int64_t* prefix, std::int64_t rank, std::int64_t cd) {
  auto same = [&](std::int64_t e) { return std::equal(prefix, prefix + cd, in.index + e * rank); };
  std::int64_t known = from, probe = from + 1, step = 1;
  while (probe < stop && same(probe)) {
    known = probe;
    step *= 2;
    probe = from + step;
  }
  std::int64_t lo = known + 1, hi = std::min(probe, stop);
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (same(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// Every input mergeable, concat dim > 0: runs of equal prefix (coordinates before cd) merged
// in prefix order, input order within a prefix. Threads take prefix ranges split at prefixes
// sampled from the largest input. Returns false (the outputs partly written) when some input
// is not mergeable: each input's entries are still visited at most once, in order, since the
// split points are checked to be non-decreasing.
template <class T>
bool merge_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
                  const ExecOptions& options) {
  const std::int64_t rank = plan.rank, cd = plan.cd;
  const auto n = static_cast<std::int64_t>(plan.inputs.size());
  const Input* largest = &plan.inputs[0];
  for (const Input& in : plan.inputs)
    if (in.nnz > largest->nnz) largest = &in;
  const Chunking ch = chunking(plan.total, rank * 8 + sizeof(T), threads, options);
  // bounds[c * n + k]: first entry of input k at or after the c-th split prefix.
  std::vector<std::int64_t> bounds(static_cast<std::size_t>((ch.chunks + 1) * n));
  for (std::int64_t k = 0; k < n; ++k) {
    bounds[k] = 0;
    bounds[ch.chunks * n + k] = plan.inputs[k].nnz;
  }
  for (std::int64_t c = 1; c < ch.chunks; ++c) {
    const std::int64_t* split = largest->index + (largest->nnz / ch.chunks * c) * rank;
    for (std::int64_t k = 0; k < n; ++k) {
      const Input& in = plan.inputs[k];
      std::int64_t lo = 0, hi = in.nnz;  // first entry whose prefix is not below split's
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (row_less(in.index + mid * rank, split, cd)) lo = mid + 1;
        else hi = mid;
      }
      bounds[c * n + k] = lo;
    }
  }
  for (std::int64_t t = n; t < (ch.chunks + 1) * n; ++t)
    if (bounds[t] < bounds[t - n]) return false;  // an unsorted input
  std::atomic<bool> stop{false};
  with_rank(rank, [&](auto kRank) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t c = 0; c < ch.chunks; ++c) {
      std::vector<std::int64_t> head(bounds.begin() + c * n, bounds.begin() + (c + 1) * n);
      const std::int64_t* stop_at = bounds.data() + (c + 1) * n;
      std::int64_t out = 0;
      for (std::int64_t k = 0; k < n; ++k) out += head[k];
      for (bool more = true; more;) {
        const std::int64_t* prefix = nullptr;  // the smallest prefix at a head
        for (std::int64_t k = 0; k < n; ++k) {
          if (head[k] == stop_at[k]) continue;
          const std::int64_t* row = plan.inputs[k].index + head[k] * rank;
          if (prefix == nullptr || row_less(row, prefix, cd)) prefix = row;
        }
        more = prefix != nullptr;
        for (std::int64_t k = 0; more && k < n; ++k) {
          const Input& in = plan.inputs[k];
          if (head[k] == stop_at[k] || !std::equal(prefix, prefix + cd, in.index + head[k] * rank))
            continue;
          const std::int64_t end = run_end(in, head[k], stop_at[k], prefix, rank, cd);
          more = copy_entries<kRank>(in, head[k], end, out_index, out_values, out, rank, cd, stop);
          out += end - head[k];
          head[k] = end;
        }
      }
      store_fence();
    }
  });
  return !stop.load();
}

// Column ranges [lo[j], hi[j]] of the offset coordinates over all entries. Precondition: no
// offset overflows (check_offsets passed).
void column_ranges(const Plan& plan, int threads, std::vector<std::int64_t>* lo,
                   std::vector<std::int64_t>* hi) {
  const std::int64_t rank = plan.rank, cd = plan.cd;
  lo->assign(static_cast<std::size_t>(rank), kInt64Max);
  hi->assign(static_cast<std::size_t>(rank), std::numeric_limits<std::int64_t>::min());
  for (const Input& in : plan.inputs) {
    if (in.nnz == 0) continue;
    std::vector<std::int64_t> part_lo(static_cast<std::size_t>(threads * rank), kInt64Max);
    std::vector<std::int64_t> part_hi(static_cast<std::size_t>(threads * rank),
                                      std::numeric_limits<std::int64_t>::min());
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; ++t) {
      const std::int64_t begin = in.nnz / threads * t + std::min<std::int64_t>(t, in.nnz % threads);
      const std::int64_t end = in.nnz / threads * (t + 1) + std::min<std::int64_t>(t + 1, in.nnz % threads);
      std::int64_t* l = part_lo.data() + t * rank;
      std::int64_t* h = part_hi.data() + t * rank;
      for (std::int64_t e = begin; e < end; ++e)
        for (std::int64_t j = 0; j < rank; ++j) {
          l[j] = std::min(l[j], in.index[e * rank + j]);
          h[j] = std::max(h[j], in.index[e * rank + j]);
        }
    }
    for (int t = 0; t < threads; ++t)
      for (std::int64_t j = 0; j < rank; ++j) {
        if (part_lo[t * rank + j] > part_hi[t * rank + j]) continue;  // a thread without entries
        const std::int64_t add = j == cd ? in.offset : 0;
        (*lo)[j] = std::min((*lo)[j], part_lo[t * rank + j] + add);
        (*hi)[j] = std::max((*hi)[j], part_hi[t * rank + j] + add);
      }
  }
}

// The packed key's coordinate fields by value: column j holds c_j - lo[j] (at most span[j],
// mask[j] = its width in ones) at bit shift[j]. Each thread's loop takes a copy, which stays in
// registers: stores through the keys or the outputs may alias anything reached by a pointer,
// and GCC reloads such members after each store.
template <int kRank>
struct KeyFields {
  static constexpr int kSlots = kRank > 0 ? kRank : kMaxDims;
  std::int64_t rank;
  std::uint64_t lo[kSlots], span[kSlots], mask[kSlots];
  int shift[kSlots];
};

// The stable row-major sort of all offset entries (some input not mergeable). Keys pack, from
// the top: each column's coordinate minus its lower bound (column 0 most significant), then a
// payload: the value's bits when they fit, else the entry's input and position. Sorting on
// the coordinate fields alone, LSD radix keeps equal coordinates in input order. For rank >= 2
// the keys live in the output indices' buffer until decoded. Precondition: check 10's
// offset-overflow scan passed.
template <class T>
void sort_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
                   const ExecOptions& options) {
  const std::int64_t rank = plan.rank, cd = plan.cd, total = plan.total;
  const auto n = static_cast<std::int64_t>(plan.inputs.size());
  std::int64_t max_nnz = 1;
  for (const Input& in : plan.inputs) max_nnz = std::max(max_nnz, in.nnz);
  const int position_bits = std::bit_width(static_cast<std::uint64_t>(max_nnz - 1));
  const int entry_bits = position_bits + std::bit_width(static_cast<std::uint64_t>(n - 1));
  constexpr bool kValueInKey = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;
  constexpr int kValueBits = kValueInKey ? static_cast<int>(8 * sizeof(T)) : 64;
  const std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;

  // Column j's field: bits [shift, shift + width) hold c_j - lo, at most span (mask: width
  // ones; a constant column has width 0).
  struct Field {
    std::uint64_t lo;
    std::uint64_t span;
    std::uint64_t mask;
    int shift;
  };
  struct Layout {
    int coordinate_bits = 0;
    int payload_bits = 0;
    bool value_payload = false;
    std::vector<Field> fields;
    bool fits() const { return coordinate_bits + payload_bits <= 64; }
  };
  auto layout_for = [&](const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi) {
    Layout l;
    std::vector<int> width(static_cast<std::size_t>(rank));
    for (std::int64_t j = 0; j < rank; ++j) {
      width[j] = std::bit_width(static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]));
      l.coordinate_bits += width[j];
    }
    l.value_payload = kValueInKey && l.coordinate_bits + kValueBits <= 64;
    l.payload_bits = l.value_payload ? kValueBits : entry_bits;
    for (std::int64_t j = rank, shift = l.payload_bits; j-- > 0; shift += width[j])
      l.fields.push_back({static_cast<std::uint64_t>(lo[j]),
                          static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]),
                          width[j] == 0 ? 0 : ~std::uint64_t{0} >> (64 - width[j]),
                          static_cast<int>(std::min<std::int64_t>(shift, 63))});
    std::reverse(l.fields.begin(), l.fields.end());
    return l;
  };
  // First the output shape's bounds, which hold every offset coordinate unless some entry
  // lies outside them (an empty dim holds none); then the exact column ranges.
  std::vector<std::int64_t> lo(static_cast<std::size_t>(rank), 0), hi(plan.output_shape.begin(), plan.output_shape.end());
  for (std::int64_t& h : hi) h -= 1;
  Layout layout = layout_for(lo, hi);

  std::vector<std::uint64_t> own;
  std::uint64_t* low = nullptr;  // the sorted keys end here
  std::uint64_t* high = nullptr;
  if (rank >= 2) {
    low = reinterpret_cast<std::uint64_t*>(out_index);
    high = low + total;
  } else {
    own.resize(static_cast<std::size_t>(2 * total));
    low = own.data();
    high = low + total;
  }
  std::vector<const T*> sources;
  for (const Input& in : plan.inputs) sources.push_back(static_cast<const T*>(in.values));
  with_rank(rank, [&](auto kRank) {
    using Fields = KeyFields<kRank>;
    // Calls f(std::true_type) when the keys carry the values, else f(std::false_type).
    auto with_payload = [&](auto&& f) {
      if (layout.value_payload) {
        if constexpr (kValueInKey) f(std::true_type{});
      } else {
        f(std::false_type{});
      }
    };
    // Column cd's lower bound is less `cd_offset`, so that a raw input coordinate packs.
    auto fields_of = [&](std::uint64_t cd_offset) {
      Fields f{};
      f.rank = kRank > 0 ? kRank : rank;
      for (std::int64_t j = 0; j < f.rank; ++j) {
        const Field& field = layout.fields[static_cast<std::size_t>(j)];
        f.lo[j] = field.lo - (j == cd ? cd_offset : 0);
        f.span[j] = field.span;
        f.mask[j] = field.mask;
        f.shift[j] = field.shift;
      }
      return f;
    };

    // Builds the keys into `keys` by layout; false when some entry lies outside the fields.
    auto build_keys = [&](std::uint64_t* keys) {
      std::uint64_t outside = 0;
      std::int64_t start = total;
      for (std::int64_t k = n; k-- > 0;) {  // the last first: check_offsets() read its start last
        const Input& in = plan.inputs[k];
        start -= in.nnz;
        const Fields shared = fields_of(static_cast<std::uint64_t>(in.offset));
        with_payload([&](auto kValuePayload) {
#pragma omp parallel num_threads(threads) reduction(| : outside)
          {
            const Fields f = shared;
            const std::int64_t* const index = in.index;
            const T* const values = sources[static_cast<std::size_t>(k)];
            std::uint64_t* const dst = keys + start;
            const std::uint64_t id_high = static_cast<std::uint64_t>(k) << position_bits;
            const std::int64_t nnz = in.nnz;
            const std::int64_t r = kRank > 0 ? kRank : f.rank;
#pragma omp for schedule(static)
            for (std::int64_t e = 0; e < nnz; ++e) {
              const std::int64_t* row = index + e * r;
              __builtin_prefetch(row + kPrefetchAhead);
              std::uint64_t key = id_high | static_cast<std::uint64_t>(e);
              if constexpr (kValuePayload) {
                key = 0;
                std::memcpy(&key, &values[e], sizeof(T));
              }
              for (std::int64_t j = 0; j < r; ++j) {
                const std::uint64_t c = static_cast<std::uint64_t>(row[j]) - f.lo[j];
                outside |= static_cast<std::uint64_t>(c > f.span[j]);
                key |= c << f.shift[j];
              }
              dst[e] = key;
            }
          }
        });
      }
      return outside == 0;
    };

    const bool in_shape = layout.fits() && build_keys(radix_sort::ends_in_scratch(layout.coordinate_bits) ? high : low);
    if (!in_shape) {
      column_ranges(plan, threads, &lo, &hi);
      layout = layout_for(lo, hi);
      if (!layout.fits()) return;  // std::stable_sort below
      build_keys(radix_sort::ends_in_scratch(layout.coordinate_bits) ? high : low);
    }
    const bool flip = radix_sort::ends_in_scratch(layout.coordinate_bits);
    const Chunking ch = chunking(total, 8, threads, options);
    radix_sort::radix_sort_bits(flip ? high : low, flip ? low : high, total, layout.payload_bits,
                                layout.payload_bits + layout.coordinate_bits,
                                std::min<std::int64_t>(ch.chunks, 64), threads);  // into `low`

    // Decode. For rank >= 2 entry e's row overwrites words [e * rank, (e + 1) * rank) of
    // `low`, so entries go in stages [a, b) with a * rank >= b, from the top: a stage only
    // overwrites keys already decoded, and its entries are independent (threads share it).
    const std::uint64_t payload_mask =
        layout.payload_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << layout.payload_bits) - 1;
    const Fields shared = fields_of(0);
    auto decode_stage = [&](std::int64_t a, std::int64_t b) {
      with_payload([&](auto kValuePayload) {
#pragma omp parallel num_threads(threads)
        {
          const Fields f = shared;
          const std::uint64_t* const keys = low;
          std::int64_t* const index = out_index;
          T* const values = out_values;
          const T* const* const source = sources.data();
          const std::uint64_t mask = payload_mask;
          const int position_shift = position_bits;
          const std::uint64_t position = position_mask;
          const std::int64_t r = kRank > 0 ? kRank : f.rank;
#pragma omp for schedule(static)
          for (std::int64_t out = a; out < b; ++out) {
            const std::uint64_t key = keys[out];
            const std::uint64_t payload = key & mask;
            if constexpr (kValuePayload) {
              std::memcpy(static_cast<void*>(&values[out]), &payload, sizeof(T));
            } else {
              values[out] = source[payload >> position_shift][payload & position];
            }
            for (std::int64_t j = 0; j < r; ++j)
              index[out * r + j] = static_cast<std::int64_t>(f.lo[j] + ((key >> f.shift[j]) & f.mask[j]));
          }
        }
      });
    };
    std::int64_t b = total;
    while (b > 1) {
      const std::int64_t a = rank >= 2 ? (b + rank - 1) / rank : 0;
      decode_stage(a, b);
      b = a;
    }
    if (b == 1) decode_stage(0, 1);
  });
  if (layout.fits()) return;

  // Rare: coordinates spanning too many bits for a key (no offset overflows: checked above).
  auto coordinate = [&](std::int64_t k, std::int64_t e, std::int64_t j) {
    const Input& in = plan.inputs[k];
    return in.index[e * rank + j] + (j == cd ? in.offset : 0);
  };
  std::vector<std::pair<std::int64_t, std::int64_t>> entries;
  entries.reserve(static_cast<std::size_t>(total));
  for (std::int64_t k = 0; k < n; ++k)
    for (std::int64_t e = 0; e < plan.inputs[k].nnz; ++e) entries.emplace_back(k, e);
  std::stable_sort(entries.begin(), entries.end(), [&](const auto& a, const auto& b) {
    for (std::int64_t j = 0; j < rank; ++j) {
      const std::int64_t x = coordinate(a.first, a.second, j), y = coordinate(b.first, b.second, j);
      if (x != y) return x < y;
    }
    return false;
  });
  for (std::int64_t out = 0; out < total; ++out) {
    const auto [k, e] = entries[out];
    for (std::int64_t j = 0; j < rank; ++j) out_index[out * rank + j] = coordinate(k, e, j);
    out_values[out] = static_cast<const T*>(plan.inputs[k].values)[e];
  }
}

}  // namespace

Status SparseConcat(std::span<const Tensor> indices, std::span<const Tensor> values,
                    std::span<const Tensor> shapes, std::int64_t concat_dim, SparseTensor* output,
                    const ExecOptions& options) {
  std::int64_t coordinates = 0;  // the size of the work, before validation (saturating)
  for (const Tensor& t : indices)
    coordinates = t.num_elements() > kInt64Max / 8 - coordinates ? kInt64Max / 8
                                                                 : coordinates + t.num_elements();
  const int threads = row_copy::resolve_threads(options.num_threads, coordinates * 8);
  Plan plan;
  Status deferred;
  OPCONFORM_RETURN_IF_ERROR(validate(indices, values, shapes, concat_dim, &plan, &deferred));
  if (!deferred.ok()) {  // check 10 failed at input i: the overflow scan of inputs < i first
    OPCONFORM_RETURN_IF_ERROR(check_offsets(plan, threads, options));
    return deferred;
  }

  // Check 10's offset-overflow scan, then check 11: the outputs' memory, in output order.
  // Nothing is allocated before both passed.
  OPCONFORM_RETURN_IF_ERROR(check_offsets(plan, threads, options));
  const DType dtype = values[0].dtype();
  const Shape index_shape{plan.total, plan.rank}, values_shape{plan.total}, shape_shape{plan.rank};
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, index_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, values_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, shape_shape));

  const Shape* allocating = &index_shape;
  try {
    SparseTensor result{Tensor::uninitialized(DType::kInt64, index_shape), Tensor(dtype, {0}),
                        Tensor(DType::kInt64, {0})};
    allocating = &values_shape;
    result.values = Tensor::uninitialized(dtype, values_shape);
    allocating = &shape_shape;
    result.shape = Tensor(DType::kInt64, shape_shape);
    std::copy(plan.output_shape.begin(), plan.output_shape.end(), result.shape.data<std::int64_t>());
    if (plan.total > 0) {
      std::int64_t* out_index = result.indices.data<std::int64_t>();
      visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* out_values = result.values.data<T>();
        const bool merged = plan.cd == 0 ? append_inputs(plan, out_index, out_values, threads, options)
                                         : merge_inputs(plan, out_index, out_values, threads, options);
        if (!merged) sort_inputs(plan, out_index, out_values, threads, options);
      });
    }
    *output = std::move(result);
  } catch (const std::bad_alloc&) {
    // The allocator refused what the limit allowed: reported like an over-limit request.
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(*allocating),
                              " and type ",
                              dtype_name(allocating == &values_shape ? dtype : DType::kInt64));
  }
  return Status();
}

}  // namespace opconform::optimized
