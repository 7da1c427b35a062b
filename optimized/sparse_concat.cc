// Optimized SparseConcat (../shared/spec/sparse_concat.md).
//
// The validation pass over each input's entries (the offset-overflow check) also notes whether
// the input is sorted row-major and whether its concat-dim coordinates lie inside its shape.
// Then:
// - every input sorted and in range: a linear merge. Entries are ordered by the coordinates
//   before the concat dim (the prefix), then by input (inputs own disjoint ranges of the concat
//   dim), then by their order inside the input. For concat dim 0 that is the inputs appended
//   with the offset; otherwise a k-way merge of prefix runs, split across threads at prefixes
//   sampled from the largest input.
// - otherwise: a stable LSD radix sort of all entries on packed keys (coordinates minus their
//   column minimum, then the entry's input and position), decoded back into coordinates, and a
//   gather of the values; std::stable_sort when the key does not fit in 64 bits.
// Both orders are the stable row-major sort of the concatenation (equal coordinates keep input
// order), one of the allowed outcomes, whatever the thread count or tile size.
#include "optimized/sparse_concat.h"

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <string>
#include <type_traits>
#include <vector>

#include "optimized/radix_sort.h"
#include "optimized/row_copy.h"

namespace opconform::optimized {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMaxChunks = 4096;
// Sequential passes prefetch this many int64 ahead (the hardware prefetcher alone lags).
constexpr std::int64_t kPrefetchAhead = 256;

bool is_quantized(DType dtype) {
  return dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32;
}

// One input after validation.
struct Input {
  const std::int64_t* index;  // [nnz, rank], row-major
  std::int64_t nnz;
  const void* values;
  std::int64_t offset;    // added to the concat-dim coordinate
  bool sorted = true;     // rows non-decreasing row-major
  bool in_range = true;   // every concat-dim coordinate in [0, shape[cd])
  bool in_box = true;     // every coordinate j in [0, shape[j])
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

struct ScanFlags {
  bool overflow = false;  // some concat coordinate above the limit
  bool down = false;      // some row below the one before it
  bool outside = false;   // some concat coordinate outside [0, extent)
  bool off_box = false;   // some coordinate j outside [0, shape[j])
};

// The flags of entries [begin, end) of an input. Tuned for the common case, entries inside
// the shape: there row-major order is the order of the linear index sum_j c_j * stride_j,
// which fits in int64 (the shape's element count does), so one branch-free pass compares
// linear indices. When some entry lies outside the shape, the exact row comparison and the
// concat-dim range are worked out in a second pass.
template <int kRank>
ScanFlags scan_chunk(const std::int64_t* index, std::int64_t begin, std::int64_t end,
                     std::int64_t rank, std::int64_t cd, const std::int64_t* shape,
                     std::int64_t limit) {
  const std::int64_t r = kRank > 0 ? kRank : rank;
  std::vector<std::uint64_t> stride(static_cast<std::size_t>(r));
  std::uint64_t step = 1;
  for (std::int64_t j = r; j-- > 0;) {
    stride[j] = step;
    step *= static_cast<std::uint64_t>(shape[j]);  // wraps only when a later check fails
  }
  auto linear = [&](const std::int64_t* row) {
    std::uint64_t sum = 0;
    for (std::int64_t j = 0; j < r; ++j) sum += static_cast<std::uint64_t>(row[j]) * stride[j];
    return sum;
  };
  bool overflow = false, off_box = false, down = false;
  std::uint64_t previous = begin > 0 ? linear(index + (begin - 1) * r) : 0;
  // The pair across the chunk boundary needs the exact comparison too when the row before the
  // chunk lies outside the shape (its linear index wraps).
  if (begin > 0)
    for (std::int64_t j = 0; j < r; ++j)
      off_box |= static_cast<std::uint64_t>(index[(begin - 1) * r + j]) >= static_cast<std::uint64_t>(shape[j]);
  for (std::int64_t e = begin; e < end; ++e) {
    const std::int64_t* row = index + e * r;
    __builtin_prefetch(row + kPrefetchAhead);
    overflow |= row[cd] > limit;
    for (std::int64_t j = 0; j < r; ++j)
      off_box |= static_cast<std::uint64_t>(row[j]) >= static_cast<std::uint64_t>(shape[j]);
    const std::uint64_t current = linear(row);
    down |= current < previous;
    previous = current;
  }
  ScanFlags flags{overflow, down, false, off_box};
  if (off_box) {
    flags.down = false;
    for (std::int64_t e = std::max<std::int64_t>(begin, 1); e < end && !flags.down; ++e)
      flags.down = row_less(index + e * r, index + (e - 1) * r, r);
    for (std::int64_t e = begin; e < end; ++e)
      flags.outside |= static_cast<std::uint64_t>(index[e * r + cd]) >= static_cast<std::uint64_t>(shape[cd]);
  }
  return flags;
}

// Check 10's offset-overflow scan of one input of shape `shape`, noting Input::sorted,
// Input::in_range and Input::in_box. Returns the first entry whose concat coordinate overflows
// when offset, or nnz.
std::int64_t scan_input(Input& in, std::int64_t rank, std::int64_t cd, const std::int64_t* shape,
                        int threads, const ExecOptions& options) {
  const std::int64_t limit = kInt64Max - in.offset;  // coordinates above overflow
  const Chunking ch = chunking(in.nnz, rank * 8, threads, options);
  std::int64_t first_overflow = in.nnz;
  bool descends = false, out_of_range = false, out_of_box = false;
  with_rank(rank, [&](auto kRank) {
#pragma omp parallel for num_threads(threads) schedule(static) \
    reduction(min : first_overflow) reduction(|| : descends, out_of_range, out_of_box)
    for (std::int64_t c = 0; c < ch.chunks; ++c) {
      const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
      const ScanFlags flags = scan_chunk<kRank>(in.index, begin, end, rank, cd, shape, limit);
      if (flags.overflow) {
        for (std::int64_t e = begin; e < end; ++e)
          if (in.index[e * rank + cd] > limit) {
            first_overflow = std::min(first_overflow, e);
            break;
          }
      }
      descends = descends || flags.down;
      out_of_range = out_of_range || flags.outside;
      out_of_box = out_of_box || flags.off_box;
    }
  });
  in.sorted = !descends;
  in.in_range = !out_of_range;
  in.in_box = !out_of_box;
  return first_overflow;
}

// README pre-checks and the page's checks 2-10.
Status validate(std::span<const Tensor> indices, std::span<const Tensor> values,
                std::span<const Tensor> shapes, std::int64_t concat_dim, int threads,
                const ExecOptions& options, Plan* plan) {
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

  // Check 10, input by input: rows, columns, then the offset-overflow scan.
  std::int64_t offset = 0;
  plan->inputs.clear();
  for (std::int64_t i = 0; i < n; ++i) {
    const Tensor& index = indices[i];
    if (index.dim(0) != values[i].dim(0))
      return invalid_argument("indices and values rows (indexing dimension) must match. (indices = ",
                              index.dim(0), ", values = ", values[i].dim(0), ")");
    if (index.dim(1) != rank) return invalid_argument("Order length must be SparseTensor rank.");
    Input in{index.data<std::int64_t>(), index.dim(0), values[i].raw_data(), offset};
    const std::int64_t* shape = shapes[i].data<std::int64_t>();
    const std::int64_t bad = scan_input(in, rank, cd, shape, threads, options);
    if (bad < in.nnz)
      return invalid_argument("Index ", in.index[bad * rank + cd], " at position ", i,
                              " overflows int64 when offset by ", offset);
    plan->inputs.push_back(in);
    offset += shape[cd];  // <= the output's concat dim, which fits
  }
  return Status();
}

// Copies `count` index rows adding `offset` to column cd. kRank > 0: the rank at compile
// time, 8 rows at a time with a repeating addend (vectorizes). Otherwise blocks of rows are
// copied, then fixed while in cache.
template <int kRank>
void copy_rows(std::int64_t* __restrict dst, const std::int64_t* __restrict src, std::int64_t count,
               std::int64_t rank, std::int64_t cd, std::int64_t offset) {
  if constexpr (kRank > 0) {
    constexpr int kBlock = 8 * kRank;
    std::int64_t add[kBlock] = {};
    for (int e = 0; e < 8; ++e) add[e * kRank + cd] = offset;
    const std::int64_t n = count * kRank;
    std::int64_t t = 0;
    for (; t + kBlock <= n; t += kBlock) {
      __builtin_prefetch(src + t + kPrefetchAhead);
      __builtin_prefetch(src + t + kPrefetchAhead + kBlock / 2);
      for (int u = 0; u < kBlock; ++u) dst[t + u] = src[t + u] + add[u];
    }
    for (int u = 0; t < n; ++t, ++u) dst[t] = src[t] + add[u];
  } else {
    constexpr std::int64_t kRowsPerBlock = 1024;
    for (std::int64_t e = 0; e < count; e += kRowsPerBlock) {
      const std::int64_t rows = std::min(kRowsPerBlock, count - e);
      std::memcpy(dst + e * rank, src + e * rank, static_cast<std::size_t>(rows * rank) * sizeof(std::int64_t));
      for (std::int64_t k = 0; k < rows; ++k) dst[(e + k) * rank + cd] += offset;
    }
  }
}

// Copies `count` values from position `from` of `src` to position `to` of `dst`.
template <class T>
void copy_values(T* dst, std::int64_t to, const T* src, std::int64_t from, std::int64_t count) {
  std::copy_n(src + from, count, dst + to);
}

// Every input sorted and in range, concat dim 0: the inputs appended, offset on column 0.
template <class T>
void append_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
                   const ExecOptions& options) {
  const std::int64_t rank = plan.rank;
  std::vector<std::int64_t> starts{0};  // output position of each input
  for (const Input& in : plan.inputs) starts.push_back(starts.back() + in.nnz);
  const Chunking ch = chunking(plan.total, rank * 8 + sizeof(T), threads, options);
  with_rank(rank, [&](auto kRank) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t c = 0; c < ch.chunks; ++c) {
      const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
      for (std::size_t k = 0; k < plan.inputs.size(); ++k) {
        const std::int64_t lo = std::max(begin, starts[k]), hi = std::min(end, starts[k + 1]);
        if (lo >= hi) continue;
        const Input& in = plan.inputs[k];
        const std::int64_t from = lo - starts[k];
        copy_rows<kRank>(out_index + lo * rank, in.index + from * rank, hi - lo, rank, 0, in.offset);
        copy_values(out_values, lo, static_cast<const T*>(in.values), from, hi - lo);
      }
    }
  });
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

// Every input sorted and in range, concat dim > 0: runs of equal prefix (coordinates before
// cd) merged in prefix order, input order within a prefix. Threads take prefix ranges split at
// prefixes sampled from the largest input.
template <class T>
void merge_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
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
  with_rank(rank, [&](auto kRank) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::int64_t c = 0; c < ch.chunks; ++c) {
      std::vector<std::int64_t> head(bounds.begin() + c * n, bounds.begin() + (c + 1) * n);
      const std::int64_t* stop = bounds.data() + (c + 1) * n;
      std::int64_t out = 0;
      for (std::int64_t k = 0; k < n; ++k) out += head[k];
      for (;;) {
        const std::int64_t* prefix = nullptr;  // the smallest prefix at a head
        for (std::int64_t k = 0; k < n; ++k) {
          if (head[k] == stop[k]) continue;
          const std::int64_t* row = plan.inputs[k].index + head[k] * rank;
          if (prefix == nullptr || row_less(row, prefix, cd)) prefix = row;
        }
        if (prefix == nullptr) break;
        for (std::int64_t k = 0; k < n; ++k) {
          const Input& in = plan.inputs[k];
          if (head[k] == stop[k] || !std::equal(prefix, prefix + cd, in.index + head[k] * rank))
            continue;
          const std::int64_t end = run_end(in, head[k], stop[k], prefix, rank, cd);
          const std::int64_t count = end - head[k];
          copy_rows<kRank>(out_index + out * rank, in.index + head[k] * rank, count, rank, cd,
                           in.offset);
          copy_values(out_values, out, static_cast<const T*>(in.values), head[k], count);
          out += count;
          head[k] = end;
        }
      }
    }
  });
}

// Column ranges [lo[j], hi[j]] of the offset coordinates over all entries. Inputs inside
// their shapes need no pass: the output shape bounds them.
void column_ranges(const Plan& plan, bool all_in_box, int threads, std::vector<std::int64_t>* lo,
                   std::vector<std::int64_t>* hi) {
  const std::int64_t rank = plan.rank, cd = plan.cd;
  lo->assign(static_cast<std::size_t>(rank), kInt64Max);
  hi->assign(static_cast<std::size_t>(rank), std::numeric_limits<std::int64_t>::min());
  if (all_in_box) {
    for (std::int64_t j = 0; j < rank; ++j) {
      (*lo)[j] = 0;
      (*hi)[j] = plan.output_shape[j] - 1;
    }
    return;
  }
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
        const std::int64_t add = j == cd ? in.offset : 0;  // validated: no overflow
        (*lo)[j] = std::min((*lo)[j], part_lo[t * rank + j] + (part_lo[t * rank + j] == kInt64Max ? 0 : add));
        (*hi)[j] = std::max((*hi)[j], part_hi[t * rank + j] == std::numeric_limits<std::int64_t>::min() ? part_hi[t * rank + j] : part_hi[t * rank + j] + add);
      }
  }
}

// Some input unsorted or out of range: the stable row-major sort of all offset entries.
// Keys pack, from the top: each column's coordinate minus its minimum (column 0 most
// significant), then a payload: the value's bits when they fit, else the entry's input and
// position. Sorting on the coordinate fields alone, LSD radix keeps equal coordinates in input
// order. For rank >= 2 the keys live in the output indices' buffer until decoded.
template <class T>
void sort_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads,
                 const ExecOptions& options) {
  const std::int64_t rank = plan.rank, cd = plan.cd, total = plan.total;
  const auto n = static_cast<std::int64_t>(plan.inputs.size());
  bool all_in_box = true;
  for (const Input& in : plan.inputs) all_in_box = all_in_box && in.in_box;
  std::vector<std::int64_t> lo, hi;
  column_ranges(plan, all_in_box, threads, &lo, &hi);

  std::int64_t max_nnz = 1;
  for (const Input& in : plan.inputs) max_nnz = std::max(max_nnz, in.nnz);
  const int position_bits = std::bit_width(static_cast<std::uint64_t>(max_nnz - 1));
  constexpr bool kValueInKey = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;
  int coordinate_bits = 0;
  for (std::int64_t j = 0; j < rank; ++j)
    coordinate_bits += std::bit_width(static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]));
  const int value_bits = kValueInKey ? static_cast<int>(8 * sizeof(T)) : 64;
  const bool value_payload = kValueInKey && coordinate_bits + value_bits <= 64;
  const int payload_bits = value_payload
                               ? value_bits
                               : position_bits + std::bit_width(static_cast<std::uint64_t>(n - 1));
  auto coordinate = [&](std::int64_t k, std::int64_t e, std::int64_t j) {
    const Input& in = plan.inputs[k];
    return in.index[e * rank + j] + (j == cd ? in.offset : 0);
  };

  if (coordinate_bits + payload_bits > 64) {  // rare: coordinates spanning too many bits
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
    return;
  }

  std::vector<int> shift(static_cast<std::size_t>(rank) + 1);  // field j: bits [shift[j+1], shift[j])
  shift[rank] = payload_bits;
  for (std::int64_t j = rank; j-- > 0;)
    shift[j] = shift[j + 1] + std::bit_width(static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]));
  // The sorted keys must end in the low buffer for the in-place decode.

  std::vector<std::uint64_t> own;
  std::uint64_t* low = nullptr;
  std::uint64_t* high = nullptr;
  if (rank >= 2) {
    low = reinterpret_cast<std::uint64_t*>(out_index);
    high = low + total;
  } else {
    own.resize(static_cast<std::size_t>(2 * total));
    low = own.data();
    high = low + total;
  }
  const bool flip = radix_sort::ends_in_scratch(coordinate_bits);
  std::uint64_t* keys = flip ? high : low;
  std::uint64_t* scratch = flip ? low : high;

  // Column j's field: bits [shift, shift + width) hold c_j - lo_j (mask: width ones; a
  // constant column has width 0 and mask 0).
  struct Field {
    std::uint64_t lo;
    std::uint64_t mask;
    int shift;
  };
  std::vector<Field> fields(static_cast<std::size_t>(rank));
  for (std::int64_t j = 0; j < rank; ++j) {
    const int width = shift[j] - shift[j + 1];
    fields[j] = {static_cast<std::uint64_t>(lo[j]), width == 0 ? 0 : ~std::uint64_t{0} >> (64 - width),
                 std::min(shift[j + 1], 63)};
  }
  const std::uint64_t position_mask = (std::uint64_t{1} << position_bits) - 1;
  const std::uint64_t payload_mask =
      payload_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << payload_bits) - 1;

  with_rank(rank, [&](auto kRank) {
    const std::int64_t r = kRank > 0 ? kRank : rank;
    Field f[kRank > 0 ? kRank : kMaxDims];  // local: no aliasing with the keys
    std::copy(fields.begin(), fields.end(), f);

    std::int64_t start = 0;
    for (std::int64_t k = 0; k < n; ++k) {
      const Input& in = plan.inputs[k];
      const T* values = static_cast<const T*>(in.values);
      const std::uint64_t id_high = static_cast<std::uint64_t>(k) << position_bits;
      const std::uint64_t cd_offset = static_cast<std::uint64_t>(in.offset);
      std::uint64_t* dst = keys + start;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::int64_t e = 0; e < in.nnz; ++e) {
        const std::int64_t* row = in.index + e * r;
        __builtin_prefetch(row + kPrefetchAhead);
        std::uint64_t key = id_high | static_cast<std::uint64_t>(e);
        if constexpr (kValueInKey) {
          if (value_payload) {
            key = 0;
            std::memcpy(&key, &values[e], sizeof(T));
          }
        }
        for (std::int64_t j = 0; j < r; ++j) {
          const std::uint64_t c = static_cast<std::uint64_t>(row[j]) + (j == cd ? cd_offset : 0);
          key |= ((c - f[j].lo) & f[j].mask) << f[j].shift;
        }
        dst[e] = key;
      }
      start += in.nnz;
    }

    const Chunking ch = chunking(total, 8, threads, options);
    radix_sort::radix_sort_bits(keys, scratch, total, payload_bits, payload_bits + coordinate_bits,
                                std::min<std::int64_t>(ch.chunks, 64), threads);  // into `low`

    // Decode. For rank >= 2 entry e's row overwrites words [e * rank, (e + 1) * rank) of
    // `low`, so entries go in stages [a, b) with a * rank >= b, from the top: a stage only
    // overwrites keys already decoded, and its entries are independent (threads share it).
    auto decode = [&](std::int64_t out) {
      const std::uint64_t key = low[out];
      const std::uint64_t payload = key & payload_mask;
      bool from_key = false;
      if constexpr (kValueInKey) from_key = value_payload;
      if (from_key) {
        std::memcpy(static_cast<void*>(&out_values[out]), &payload, sizeof(T));
      } else {
        out_values[out] = static_cast<const T*>(
            plan.inputs[payload >> position_bits].values)[payload & position_mask];
      }
      for (std::int64_t j = 0; j < r; ++j)
        out_index[out * r + j] = static_cast<std::int64_t>(f[j].lo + ((key >> f[j].shift) & f[j].mask));
    };
    std::int64_t b = total;
    while (b > 1) {
      const std::int64_t a = rank >= 2 ? (b + rank - 1) / rank : 0;
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::int64_t out = a; out < b; ++out) decode(out);
      b = a;
    }
    if (b == 1) decode(0);
  });
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
  OPCONFORM_RETURN_IF_ERROR(validate(indices, values, shapes, concat_dim, threads, options, &plan));

  // Check 11: the outputs' memory, in output order.
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
      bool mergeable = true;
      for (const Input& in : plan.inputs) mergeable = mergeable && in.sorted && in.in_range;
      std::int64_t* out_index = result.indices.data<std::int64_t>();
      visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        T* out_values = result.values.data<T>();
        if (!mergeable) sort_inputs(plan, out_index, out_values, threads, options);
        else if (plan.cd == 0) append_inputs(plan, out_index, out_values, threads, options);
        else merge_inputs(plan, out_index, out_values, threads, options);
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
