// SPDX-License-Identifier: Apache-2.0
// Case generators of SpaceToBatchND (docs/contract/space_to_batch_nd.md).
//
// Valid cases are built by construction: the block shape, the output sizes and the paddings
// are drawn first and the input sizes derived from them. M runs from 0 to 6 (input rank up to
// 7) with leading, middle and trailing trivial block dims (b = 1, zero padding) and at most
// four internal dims (the tf-cpu limit); zero-size dims appear in every position; block_shape
// and paddings are int32 or int64 independently; T is any dtype tf-cpu registers. One case in
// eight is "huge but empty" (generated_case.h, draw_empty_huge_dims): a zero in the batch, a
// spatial or a remaining dim, huge dims around it (products before the zero below 2^63, dims
// after it up to 2^63 - 1), blocks below 2^31 with a product below 2^40. Before those, one
// case in eight is a width-boundary case (index_boundaries.h): block_shape or paddings (each
// in 1 case of 16) at B - 1, B or B + 1 for B in 2^8, 2^16, 2^31, 2^32 (each of the 12 in at
// least 1 case of 192), int64 where the value needs it, on an empty batch or remaining dim
// where input or output would pass 512 elements.
//
// Invalid cases: one generator per check of checks_of(Op::kSpaceToBatchND), each failing
// exactly that check first, with the arithmetic edges (products that reach 2^63 only in the
// last factor, sums past 2^63 - 1, dims around 2^31 and 2^62).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

enum class SpaceBatchMode {
  kAny,          // everything above
  kNotIdentity,  // at least one internal block dim (the op requests memory)
  kSmall,        // kAny without the huge-but-empty cases (laws that materialise results)
  kSquareNHWC,   // rank 4 [N, H, W, C], block [b, b], zero paddings (the space_to_depth law)
};

rc::Gen<GeneratedCase> valid_space_to_batch_nd(SpaceBatchMode mode = SpaceBatchMode::kAny);
rc::Gen<GeneratedCase> invalid_space_to_batch_nd(std::string_view check);

// Output dtype and shape of a valid case (generated_case.h, predicted_outputs).
std::optional<std::vector<PredictedOutput>> space_to_batch_nd_outputs(const conformance::Case& c);

}  // namespace opconform::generators
