// The optimized SparseConcat's fast path (sparse_concat_plan.h): assuming every input is
// sorted row-major with its concat-dim coordinates inside its shape, a linear merge copies
// the entries and checks that assumption on the way. Entries are ordered by the coordinates
// before the concat dim (the prefix), then by input (inputs own disjoint ranges of the concat
// dim), then by their order inside the input. For concat dim 0 that is the inputs appended
// with the offset; otherwise a k-way merge of prefix runs, split across threads at prefixes
// sampled from the largest input.
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>
#include <vector>

#include "sparse_concat_plan.h"
#include "thread_policy.h"

namespace opconform::optimized::sparse_concat {
namespace {

// a < b row-major over `count` coordinates.
inline bool row_less(const std::int64_t* a, const std::int64_t* b, std::int64_t count) {
  for (std::int64_t j = 0; j < count; ++j)
    if (a[j] != b[j]) return a[j] < b[j];
  return false;
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
Check stream_rows(std::int64_t* dst, const std::int64_t* src, std::int64_t rows, std::int64_t rank, std::int64_t cd,
                  std::int64_t offset, Check check = Check{}) {
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
        for (std::int64_t v = 0; v < r; ++v) _mm_stream_si128(to + v, _mm_add_epi64(_mm_loadu_si128(from + v), add[v]));
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
bool copy_entries(const Input& in, std::int64_t from, std::int64_t to, std::int64_t* out_index, T* out_values,
                  std::int64_t out, std::int64_t rank, std::int64_t cd, std::atomic<bool>& stop) {
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
      const std::optional<bool> verdict =
          stream_rows<kRank>(dst, in.index + e * r, end - e, r, cd, in.offset, order).verdict();
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
bool append_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads, const ExecOptions& options) {
  const std::int64_t rank = plan.rank;
  std::vector<std::int64_t> starts{0};  // output position of each input
  for (const Input& in : plan.inputs) starts.push_back(starts.back() + in.nnz);
  const Chunking ch = chunking(plan.total, rank * 8 + sizeof(T), threads, options);
  std::atomic<bool> stop{false};
  with_rank(rank, [&](auto rank_tag) {
    constexpr int kRank = decltype(rank_tag)::value;
    thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t count) {
      const std::int64_t last_chunk = thread_policy::share_begin(ch.chunks, count, t + 1);
      for (std::int64_t c = thread_policy::share_begin(ch.chunks, count, t); c < last_chunk; ++c) {
        const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
        for (std::size_t k = plan.inputs.size(); k-- > 0;) {  // the last first: check_offsets() read its start last
          const std::int64_t lo = std::max(begin, starts[k]), hi = std::min(end, starts[k + 1]);
          if (lo < hi && !copy_entries<kRank>(plan.inputs[k], lo - starts[k], hi - starts[k], out_index, out_values, lo,
                                              rank, 0, stop))
            break;
        }
        store_fence();
      }
    });
  });
  return !stop.load();
}

// The end of the run of entries from `from` (whose prefix, the first cd coordinates, equals
// `prefix`) to `stop` with that prefix: galloping, then a binary search (the input is sorted).
std::int64_t run_end(const Input& in, std::int64_t from, std::int64_t stop, const std::int64_t* prefix,
                     std::int64_t rank, std::int64_t cd) {
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
    if (same(mid))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Every input mergeable, concat dim > 0: runs of equal prefix (coordinates before cd) merged
// in prefix order, input order within a prefix. Threads take prefix ranges split at prefixes
// sampled from the largest input. Returns false (the outputs partly written) when some input
// is not mergeable: each input's entries are still visited at most once, in order, since the
// split points are checked to be non-decreasing.
template <class T>
bool merge_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads, const ExecOptions& options) {
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
        if (row_less(in.index + mid * rank, split, cd))
          lo = mid + 1;
        else
          hi = mid;
      }
      bounds[c * n + k] = lo;
    }
  }
  for (std::int64_t t = n; t < (ch.chunks + 1) * n; ++t)
    if (bounds[t] < bounds[t - n]) return false;  // an unsorted input
  std::atomic<bool> stop{false};
  with_rank(rank, [&](auto rank_tag) {
    constexpr int kRank = decltype(rank_tag)::value;
    thread_policy::run_threads(threads, [&](std::int64_t t, std::int64_t count) {
      const std::int64_t last_chunk = thread_policy::share_begin(ch.chunks, count, t + 1);
      for (std::int64_t c = thread_policy::share_begin(ch.chunks, count, t); c < last_chunk; ++c) {
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
            if (head[k] == stop_at[k] || !std::equal(prefix, prefix + cd, in.index + head[k] * rank)) continue;
            const std::int64_t end = run_end(in, head[k], stop_at[k], prefix, rank, cd);
            more = copy_entries<kRank>(in, head[k], end, out_index, out_values, out, rank, cd, stop);
            out += end - head[k];
            head[k] = end;
          }
        }
        store_fence();
      }
    });
  });
  return !stop.load();
}

}  // namespace

bool merge_entries(const Plan& plan, std::int64_t* out_index, Tensor& out_values, int threads,
                   const ExecOptions& options) {
  bool merged = false;
  visit_dtype(out_values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* values = out_values.data<T>();
    merged = plan.cd == 0 ? append_inputs(plan, out_index, values, threads, options)
                          : merge_inputs(plan, out_index, values, threads, options);
  });
  return merged;
}

}  // namespace opconform::optimized::sparse_concat
