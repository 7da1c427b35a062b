// SPDX-License-Identifier: Apache-2.0
// Optimized DepthToSpace (docs/contract/space_to_depth.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "opconform/ops.h"

namespace opconform::optimized {

// input [N, H, W, C] (NHWC only on CPU), block_size b >= 2 with b*b dividing C ->
// output [N, H*b, W*b, C/(b*b)]: the inverse of SpaceToDepth (DCR order).
Status DepthToSpace(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options = {});

}  // namespace opconform::optimized
