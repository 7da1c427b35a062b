// SPDX-License-Identifier: Apache-2.0
// Case generators of DynamicStitch and ParallelDynamicStitch (docs/contract/
// dynamic_stitch.md); both ops take the same inputs and run the same checks, so every function
// takes the op.
//
// Valid cases are built by construction: the trailing shape C, then N in [1, 4] index tensors
// (scalars included) whose values are drawn from [0, rows) (duplicates inside and across lists,
// rows nobody names), and data[m] = indices[m].shape + C for any dtype (strings included).
// Variants: unique indices (a permutation spread over the lists), every list empty, and "huge
// but empty" (indices up to 2^31 - 1; the zero in the rows (every list empty) or in any dim of
// C, with huge dims around it as generated_case.h's draw_empty_huge_dims draws them). In
// kAny mode one case in eight is a width-boundary case (index_boundaries.h): one index at
// B - 1, B or B + 1 for B in 2^8, 2^16 (each of the 6 in at least 1 case of 48; int32 holds no
// more), with rows of no element where [index + 1] + C would pass 512 elements.
//
// Invalid cases: one generator per check of checks_of(op), each failing exactly that check first
// (negative indices down to -2^31, output shapes whose element count reaches 2^63 only at the
// last dim before a zero, requests past the memory limit).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

enum class StitchMode {
  kAny,     // everything above
  kSmall,   // no huge-but-empty variant (laws that materialise the rows)
  kUnique,  // every index named once (small)
};

// op: kDynamicStitch or kParallelDynamicStitch.
rc::Gen<GeneratedCase> valid_dynamic_stitch(Op op, StitchMode mode = StitchMode::kAny);
rc::Gen<GeneratedCase> invalid_dynamic_stitch(Op op, std::string_view check);

std::optional<std::vector<PredictedOutput>> dynamic_stitch_outputs(const conformance::Case& c);

}  // namespace opconform::generators
