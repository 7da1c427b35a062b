// Private helper of optimized SpaceToBatchND and BatchToSpaceND (nothing else includes it,
// except their tests): the blocked data-movement kernel that runs a space_batch::Plan
// (space_batch_plan.h describes the two views it moves between).
#pragma once

#include "opconform/exec.h"
#include "opconform/tensor.h"
#include "space_batch_plan.h"

namespace opconform::optimized::space_batch {

// The kernels, for every dtype (trivially copyable ones by bytes, string by assignment).
// `space` / `batch` hold the side's element count of one dtype, and the destination is fully
// written: every element exactly once. Results do not depend on options.num_threads
// (0: omp_get_max_threads()), options.tile_bytes (0: the default tile) or
// options.streaming_min_bytes (streaming stores for large destinations, as memcpy uses them for
// large copies; tests force each path).
void space_to_batch(const Plan& plan, const Tensor& space, Tensor& batch, const ExecOptions& options);
void batch_to_space(const Plan& plan, const Tensor& batch, Tensor& space, const ExecOptions& options);

}  // namespace opconform::optimized::space_batch
