// Private header of the optimized SparseConcat, shared by its files:
//   sparse_concat.cc           the op: validation, memory, allocation, then merge or sort
//   sparse_concat_validate.cc  the checks, and the plan they leave (below)
//   sparse_concat_merge.cc     the linear merge of inputs that are already sorted
//   sparse_concat_sort.cc      the radix sort of all entries, for when the merge is refused
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>
#include <type_traits>
#include <vector>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::optimized::sparse_concat {

inline constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
inline constexpr std::int64_t kMaxChunks = 4096;
// Sequential passes prefetch this many bytes ahead (the hardware prefetcher alone lags).
inline constexpr std::int64_t kPrefetchBytes = 16384;
inline constexpr std::int64_t kPrefetchAhead = kPrefetchBytes / 8;  // in int64

// One input after validation.
struct Input {
  const std::int64_t* index;  // [nnz, rank], row-major
  std::int64_t nnz;
  const void* values;
  std::int64_t offset;        // added to the concat-dim coordinate
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
  std::int64_t begin(std::int64_t c) const { return n / chunks * c + std::min<std::int64_t>(c, n % chunks); }
};

inline Chunking chunking(std::int64_t n, std::int64_t bytes_per_item, int threads, const ExecOptions& options) {
  std::int64_t chunks = threads;
  if (options.tile_bytes > 0) {
    const std::int64_t per_chunk = std::max<std::int64_t>(1, options.tile_bytes / bytes_per_item);
    chunks = std::min<std::int64_t>(kMaxChunks, n / per_chunk + (n % per_chunk != 0));
  }
  return {n, std::clamp<std::int64_t>(chunks, 1, std::max<std::int64_t>(n, 1))};
}

// Calls f(std::integral_constant<int, rank>) for ranks 1-4 (a compile-time stride), else with 0.
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

// README pre-checks and the page's checks 2-10, except check 10's offset-overflow scan: a
// failure of check 10's row or column check at input i is returned in *deferred, with
// plan->inputs holding inputs 0..i-1, since the scan of those comes first.
Status validate(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                std::int64_t concat_dim, Plan* plan, Status* deferred);

// Check 10's offset-overflow scan over plan.inputs (the inputs whose row and column checks
// passed), in input order: the first failure's error, or OK.
Status check_offsets(const Plan& plan, int threads, const ExecOptions& options);

// Writes the plan.total offset entries, sorted, to out_index ([total, rank]) and out_values
// ([total], plan's dtype) when every input is sorted row-major with its concat-dim coordinates
// inside its shape; returns false (the outputs partly written) when some input is not.
// Precondition: check_offsets() passed.
bool merge_entries(const Plan& plan, std::int64_t* out_index, Tensor& out_values, int threads,
                   const ExecOptions& options);

// Writes the stable row-major sort of the plan.total offset entries to out_index and
// out_values, whatever the inputs' order. Precondition: check_offsets() passed.
void sort_entries(const Plan& plan, std::int64_t* out_index, Tensor& out_values, int threads,
                  const ExecOptions& options);

}  // namespace opconform::optimized::sparse_concat
