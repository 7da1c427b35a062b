// SPDX-License-Identifier: Apache-2.0
// Case generators of SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md).
//
// Valid cases are built by construction: NHWC inputs whose spatial dims (SpaceToDepth) or depth
// (DepthToSpace) the block divides, block 2..4, any registered dtype, zero-size dims anywhere;
// one case in eight is "huge but empty" (a zero dim, huge dims around it, a block up to
// 2^31 - 1, every checked product in range). Before those, one case in eight is a
// width-boundary case (index_boundaries.h): block_size at B - 1, B or B + 1 for B in 2^8, 2^16
// (each of the 6 in at least 1 case of 48) on an empty input; 2^31 and 2^32 are excluded.
//
// Invalid cases: one generator per check of the op, each failing exactly that check first
// (block_size at 1, 0, int64 min, 2^31 and beyond; near-miss data_format strings; NCHW and
// NCHW_VECT_C; ranks 0-3, 5, 6; spatial dims off a multiple of b, a depth off a multiple of b*b
// (multiples of b among them), also with a huge block on an empty input; output dims and
// output element counts past 2^63 on empty inputs; a memory limit below the request).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

rc::Gen<GeneratedCase> valid_depth_space(Op op);
rc::Gen<GeneratedCase> invalid_depth_space(Op op, std::string_view check);

std::optional<std::vector<PredictedOutput>> depth_space_outputs(const conformance::Case& c);

}  // namespace opconform::generators
