// SPDX-License-Identifier: Apache-2.0
// Optimized BatchToSpaceND (docs/contract/space_to_batch_nd.md).
#pragma once

#include "opconform/ops.h"

namespace opconform::optimized {

// input [B_in] + S + R, block_shape int32/int64 [M], crops int32/int64 [M, 2] ->
// output [B_in/prod(block)] + [s_i*b_i - crop_start_i - crop_end_i] + R.
Status BatchToSpaceND(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
                      const ExecOptions& options = {});

}  // namespace opconform::optimized
