// SPDX-License-Identifier: Apache-2.0
// Optimized SpaceToDepth (docs/contract/space_to_depth.md).
#pragma once

#include <cstdint>
#include <string_view>

#include "opconform/ops.h"

namespace opconform::optimized {

// input [N, H, W, C] (NHWC only on CPU), block_size b >= 2 dividing H and W ->
// output [N, H/b, W/b, C*b*b]: each b x b spatial block becomes depth, row-major.
Status SpaceToDepth(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options = {});

}  // namespace opconform::optimized
