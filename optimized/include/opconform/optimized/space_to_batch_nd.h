// SPDX-License-Identifier: Apache-2.0
// Optimized SpaceToBatchND (docs/contract/space_to_batch_nd.md).
#pragma once

#include "opconform/ops.h"

namespace opconform::optimized {

// input [B] + S + R, block_shape int32/int64 [M], paddings int32/int64 [M, 2] ->
// output [B*prod(block)] + [padded_i / b_i] + R.
Status SpaceToBatchND(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                      const ExecOptions& options = {});

}  // namespace opconform::optimized
