// The optimized SparseConcat's general path (sparse_concat_plan.h), for when some input is not
// mergeable: a stable LSD radix sort of all entries on packed keys (coordinates minus their
// lower bound, then the value's bits or the entry's input and position), decoded back into
// coordinates. The keys are built against the output shape; an entry outside it sends the
// sort to exact column ranges. std::stable_sort when the key does not fit in 64 bits.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

#include "radix_sort.h"
#include "sparse_concat_plan.h"

namespace opconform::optimized::sparse_concat {
namespace {

// Column ranges [lo[j], hi[j]] of the offset coordinates over all entries. Precondition: no
// offset overflows (check_offsets passed).
void column_ranges(const Plan& plan, int threads, std::vector<std::int64_t>* lo, std::vector<std::int64_t>* hi) {
  const std::int64_t rank = plan.rank, cd = plan.cd;
  lo->assign(static_cast<std::size_t>(rank), kInt64Max);
  hi->assign(static_cast<std::size_t>(rank), std::numeric_limits<std::int64_t>::min());
  for (const Input& in : plan.inputs) {
    if (in.nnz == 0) continue;
    std::vector<std::int64_t> part_lo(static_cast<std::size_t>(threads * rank), kInt64Max);
    std::vector<std::int64_t> part_hi(static_cast<std::size_t>(threads * rank),
                                      std::numeric_limits<std::int64_t>::min());
#pragma omp parallel for num_threads(threads) if (threads > 1) schedule(static)
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

// Whether a value of type T can be the key's payload, and its width there.
template <class T>
inline constexpr bool kValueInKey = std::is_trivially_copyable_v<T> && sizeof(T) <= 8;
template <class T>
inline constexpr int kValueBits = kValueInKey<T> ? static_cast<int>(8 * sizeof(T)) : 64;

// The bits that name an entry in a key without its value: its input, then its position there.
struct EntryBits {
  int position_bits;
  int entry_bits;
  std::uint64_t position_mask;
};

EntryBits entry_bits_of(const Plan& plan) {
  const auto n = static_cast<std::int64_t>(plan.inputs.size());
  std::int64_t max_nnz = 1;
  for (const Input& in : plan.inputs) max_nnz = std::max(max_nnz, in.nnz);
  const int position_bits = std::bit_width(static_cast<std::uint64_t>(max_nnz - 1));
  const int entry_bits = position_bits + std::bit_width(static_cast<std::uint64_t>(n - 1));
  return {position_bits, entry_bits, (std::uint64_t{1} << position_bits) - 1};
}

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

// The key layout for column j ranging over [lo[j], hi[j]]: the coordinate fields from the top
// (column 0 most significant), then the payload: the value when it fits, else the entry.
template <class T>
Layout layout_for(const std::vector<std::int64_t>& lo, const std::vector<std::int64_t>& hi, std::int64_t rank,
                  int entry_bits) {
  Layout l;
  std::vector<int> width(static_cast<std::size_t>(rank));
  for (std::int64_t j = 0; j < rank; ++j) {
    width[j] = std::bit_width(static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]));
    l.coordinate_bits += width[j];
  }
  l.value_payload = kValueInKey<T> && l.coordinate_bits + kValueBits<T> <= 64;
  l.payload_bits = l.value_payload ? kValueBits<T> : entry_bits;
  for (std::int64_t j = rank, shift = l.payload_bits; j-- > 0; shift += width[j])
    l.fields.push_back({static_cast<std::uint64_t>(lo[j]),
                        static_cast<std::uint64_t>(hi[j]) - static_cast<std::uint64_t>(lo[j]),
                        width[j] == 0 ? 0 : ~std::uint64_t{0} >> (64 - width[j]),
                        static_cast<int>(std::min<std::int64_t>(shift, 63))});
  std::reverse(l.fields.begin(), l.fields.end());
  return l;
}

// The layout's fields by value; column cd's lower bound is less `cd_offset`, so that a raw
// input coordinate packs.
template <int kRank>
KeyFields<kRank> key_fields(const Layout& layout, std::int64_t rank, std::int64_t cd, std::uint64_t cd_offset) {
  KeyFields<kRank> f{};
  f.rank = kRank > 0 ? kRank : rank;
  for (std::int64_t j = 0; j < f.rank; ++j) {
    const Field& field = layout.fields[static_cast<std::size_t>(j)];
    f.lo[j] = field.lo - (j == cd ? cd_offset : 0);
    f.span[j] = field.span;
    f.mask[j] = field.mask;
    f.shift[j] = field.shift;
  }
  return f;
}

// Calls f(std::true_type) when the layout's keys carry the values, else f(std::false_type).
template <class T, class F>
void with_payload(const Layout& layout, F&& f) {
  if (layout.value_payload) {
    if constexpr (kValueInKey<T>) f(std::true_type{});
  } else {
    f(std::false_type{});
  }
}

// The two buffers of `total` keys the radix sort runs between; the sorted keys end in `low`.
// For rank >= 2 they are the output indices' buffer (2 * total <= rank * total words), which
// holds the keys until they are decoded.
struct KeyBuffers {
  KeyBuffers(const Plan& plan, std::int64_t* out_index) {
    if (plan.rank >= 2) {
      low = reinterpret_cast<std::uint64_t*>(out_index);
    } else {
      own.resize(static_cast<std::size_t>(2 * plan.total));
      low = own.data();
    }
    high = low + plan.total;
  }
  KeyBuffers(const KeyBuffers&) = delete;
  KeyBuffers& operator=(const KeyBuffers&) = delete;
  // Where the keys are built for the layout, so that its sort ends in `low`.
  std::uint64_t* unsorted(const Layout& layout) const {
    return radix_sort::ends_in_scratch(layout.coordinate_bits) ? high : low;
  }

  std::vector<std::uint64_t> own;
  std::uint64_t* low = nullptr;
  std::uint64_t* high = nullptr;
};

// Builds the keys of all offset entries into `keys` by layout; false when some entry lies
// outside the fields.
template <int kRank, class T>
bool build_keys(const Plan& plan, const Layout& layout, const std::vector<const T*>& sources, const EntryBits& ids,
                std::uint64_t* keys, int threads) {
  using Fields = KeyFields<kRank>;
  const std::int64_t rank = plan.rank, cd = plan.cd;
  const int position_bits = ids.position_bits;
  std::uint64_t outside = 0;
  std::int64_t start = plan.total;
  for (std::int64_t k = static_cast<std::int64_t>(plan.inputs.size());
       k-- > 0;) {  // the last first: check_offsets() read its start last
    const Input& in = plan.inputs[k];
    start -= in.nnz;
    const Fields shared = key_fields<kRank>(layout, rank, cd, static_cast<std::uint64_t>(in.offset));
    with_payload<T>(layout, [&](auto kValuePayload) {
#pragma omp parallel num_threads(threads) if (threads > 1) reduction(| : outside)
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
}

// Sorts the keys built at buffers.unsorted(layout) on their coordinate fields, into `low`.
void sort_keys(const Layout& layout, const KeyBuffers& buffers, std::int64_t total, int threads,
               const ExecOptions& options) {
  const bool flip = radix_sort::ends_in_scratch(layout.coordinate_bits);
  const Chunking ch = chunking(total, 8, threads, options);
  radix_sort::radix_sort_bits(flip ? buffers.high : buffers.low, flip ? buffers.low : buffers.high, total,
                              layout.payload_bits, layout.payload_bits + layout.coordinate_bits,
                              std::min<std::int64_t>(ch.chunks, 64), threads);  // into `low`
}

// Decodes the sorted keys into the output entries. For rank >= 2 entry e's row overwrites
// words [e * rank, (e + 1) * rank) of `keys`, so entries go in stages [a, b) with
// a * rank >= b, from the top: a stage only overwrites keys already decoded, and its entries
// are independent (threads share it).
template <int kRank, class T>
void decode_keys(const Plan& plan, const Layout& layout, const std::vector<const T*>& sources, const EntryBits& ids,
                 const std::uint64_t* keys_in, std::int64_t* out_index, T* out_values, int threads) {
  using Fields = KeyFields<kRank>;
  const std::int64_t rank = plan.rank;
  const std::uint64_t payload_mask =
      layout.payload_bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << layout.payload_bits) - 1;
  const Fields shared = key_fields<kRank>(layout, rank, plan.cd, 0);
  auto decode_stage = [&](std::int64_t a, std::int64_t b) {
    with_payload<T>(layout, [&](auto kValuePayload) {
#pragma omp parallel num_threads(threads) if (threads > 1)
      {
        const Fields f = shared;
        const std::uint64_t* const keys = keys_in;
        std::int64_t* const index = out_index;
        T* const values = out_values;
        const T* const* const source = sources.data();
        const std::uint64_t mask = payload_mask;
        const int position_shift = ids.position_bits;
        const std::uint64_t position = ids.position_mask;
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
  std::int64_t b = plan.total;
  while (b > 1) {
    const std::int64_t a = rank >= 2 ? (b + rank - 1) / rank : 0;
    decode_stage(a, b);
    b = a;
  }
  if (b == 1) decode_stage(0, 1);
}

// Rare: coordinates spanning too many bits for a key. std::stable_sort of (input, position)
// pairs on the offset coordinates (no offset overflows: checked before).
template <class T>
void sort_by_comparison(const Plan& plan, std::int64_t* out_index, T* out_values) {
  const std::int64_t rank = plan.rank, cd = plan.cd, total = plan.total;
  const auto n = static_cast<std::int64_t>(plan.inputs.size());
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

// The stable row-major sort of all offset entries. Keys pack, from the top: each column's
// coordinate minus its lower bound (column 0 most significant), then a payload: the value's
// bits when they fit, else the entry's input and position. Sorting on the coordinate fields
// alone, LSD radix keeps equal coordinates in input order. For rank >= 2 the keys live in the
// output indices' buffer until decoded. Precondition: check 10's offset-overflow scan passed.
template <class T>
void sort_inputs(const Plan& plan, std::int64_t* out_index, T* out_values, int threads, const ExecOptions& options) {
  const std::int64_t rank = plan.rank;
  const EntryBits ids = entry_bits_of(plan);
  // First the output shape's bounds, which hold every offset coordinate unless some entry
  // lies outside them (an empty dim holds none); then the exact column ranges.
  std::vector<std::int64_t> lo(static_cast<std::size_t>(rank), 0),
      hi(plan.output_shape.begin(), plan.output_shape.end());
  for (std::int64_t& h : hi) h -= 1;
  Layout layout = layout_for<T>(lo, hi, rank, ids.entry_bits);

  const KeyBuffers buffers(plan, out_index);
  std::vector<const T*> sources;
  for (const Input& in : plan.inputs) sources.push_back(static_cast<const T*>(in.values));
  with_rank(rank, [&](auto kRank) {
    const bool in_shape =
        layout.fits() && build_keys<kRank>(plan, layout, sources, ids, buffers.unsorted(layout), threads);
    if (!in_shape) {
      column_ranges(plan, threads, &lo, &hi);
      layout = layout_for<T>(lo, hi, rank, ids.entry_bits);
      if (!layout.fits()) return;  // sort_by_comparison below
      build_keys<kRank>(plan, layout, sources, ids, buffers.unsorted(layout), threads);
    }
    sort_keys(layout, buffers, plan.total, threads, options);
    decode_keys<kRank>(plan, layout, sources, ids, buffers.low, out_index, out_values, threads);
  });
  if (!layout.fits()) sort_by_comparison(plan, out_index, out_values);
}

}  // namespace

void sort_entries(const Plan& plan, std::int64_t* out_index, Tensor& out_values, int threads,
                  const ExecOptions& options) {
  visit_dtype(out_values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    sort_inputs(plan, out_index, out_values.data<T>(), threads, options);
  });
}

}  // namespace opconform::optimized::sparse_concat
