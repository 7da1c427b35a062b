// Private helper of optimized SpaceToBatchND and BatchToSpaceND (nothing else includes it,
// except their tests): the checks both ops share, and the blocked data-movement kernel.
//
// After validation and collapsing (docs/contract/space_to_batch_nd.md, "Collapsing") both
// ops move data between two views of the same K internal block dims:
//   space side  [batch] + space_0..space_{K-1} + [depth]
//   batch side  [P * batch] + blocked_0..blocked_{K-1} + [depth],   P = prod(block_i)
// with blocked_i * block_i = start_i + space_i + end_i (end_i >= 0). The batch-side element
// (k*batch + n, p, d), k unravelled row-major into o_0..o_{K-1}, is the space-side element
// (n, p_i*block_i + o_i - start_i, d) when every coordinate lies inside the space side:
// SpaceToBatchND writes the batch side (zero outside; start = pad_start) and BatchToSpaceND
// writes the space side (start = crop_start, cropped positions are never read).
#pragma once

#include <cstdint>
#include <vector>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::optimized::space_batch {

// README "Checks that come before every op's own checks": the index attrs (block_shape and
// paddings/crops must be int32 or int64), then kernel registration of the input's dtype.
// `offsets_attr` is "Tpaddings" or "Tcrops".
Status check_signature(const char* op_name, const char* offsets_attr, const Tensor& input,
                       const Tensor& block_shape, const Tensor& offsets);

// The values of an int32/int64 tensor, widened to int64, in row-major order.
std::vector<std::int64_t> index_values(const Tensor& t);

// Leading and trailing block dims with block 1 and both offsets 0 (they merge into the batch
// and into the depth). offsets holds [start_0, end_0, start_1, ...]. leading + trailing <= M.
struct Collapse {
  int leading = 0;
  int trailing = 0;
};
Collapse collapse_trivial_dims(const std::vector<std::int64_t>& block,
                               const std::vector<std::int64_t>& offsets);

// The collapsed problem. Preconditions (established by the ops' validation): K >= 1,
// block_i >= 1, start_i >= 0, blocked_i * block_i >= start_i + space_i, all sizes >= 0 and
// both sides' element counts fit in int64.
struct Plan {
  std::int64_t batch = 1;
  std::vector<std::int64_t> space;
  std::vector<std::int64_t> block;
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> blocked;
  std::int64_t depth = 1;
};

// The kernels, for every dtype (trivially copyable ones by bytes, string by assignment).
// `space` / `batch` hold the side's element count of one dtype, and the destination is fully
// written: every element exactly once. Results do not depend on options.num_threads
// (0: omp_get_max_threads()), options.tile_bytes (0: the default tile) or
// options.streaming_min_bytes (streaming stores for large destinations, as memcpy uses them for
// large copies; tests force each path).
void space_to_batch(const Plan& plan, const Tensor& space, Tensor& batch, const ExecOptions& options);
void batch_to_space(const Plan& plan, const Tensor& batch, Tensor& space, const ExecOptions& options);

}  // namespace opconform::optimized::space_batch
