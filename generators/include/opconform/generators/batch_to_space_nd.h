// SPDX-License-Identifier: Apache-2.0
// Case generators of BatchToSpaceND (docs/contract/space_to_batch_nd.md).
//
// Valid cases are built by construction: block shape, input spatial sizes and the output
// batch are drawn, the input batch is output batch * P and the crops are drawn inside
// s_i * b_i. The same layouts as SpaceToBatchND (M from 0 to 6, trivial leading, middle and
// trailing block dims, at most four internal dims, zero-size dims anywhere, int32/int64
// block_shape and crops), plus the spec's quirk: two negative block values on internal dims of
// size 0 with zero crops (TensorFlow succeeds with an empty output). One case in eight is a
// width-boundary case (index_boundaries.h): block_shape or crops (each in 1 case of 16) at
// B - 1, B or B + 1 for B in 2^8, 2^16, 2^31, 2^32 (each of the 12 in at least 1 case of 192),
// int64 where the value needs it, on an empty batch or remaining dim where input or output
// would pass 512 elements.
//
// Invalid cases: one generator per check of checks_of(Op::kBatchToSpaceND), each failing
// exactly that check first (exact products just past int64, exactly -2^63, zero factors next
// to huge ones, s_i * b_i - crops past either end of int64).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"
#include "opconform/generators/space_to_batch_nd.h"

namespace opconform::generators {

// kSquareNHWC: rank 4 [N*b*b, H, W, C], block [b, b], zero crops (the depth_to_space law).
rc::Gen<GeneratedCase> valid_batch_to_space_nd(SpaceBatchMode mode = SpaceBatchMode::kAny);
rc::Gen<GeneratedCase> invalid_batch_to_space_nd(std::string_view check);

std::optional<std::vector<PredictedOutput>> batch_to_space_nd_outputs(const conformance::Case& c);

}  // namespace opconform::generators
