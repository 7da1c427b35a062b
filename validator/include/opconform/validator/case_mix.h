// SPDX-License-Identifier: Apache-2.0
// The generated cases of `opconform validate` (docs/plugin-abi.md, "Generated cases"): the
// property generators' valid and invalid cases (generators/), with the valid ones
// reshaped to find value bugs. A valid case is drawn again while its output would be empty (one
// in ten is drawn until it is empty instead, half of those with a dim of 2^31 or more: huge but
// empty, for 32-bit shape arithmetic), then grown to a target size drawn log-uniformly from 1 to 2^16 elements — more
// rows, wider rows, a larger batch or spatial dim, more sparse entries — so sizes cross the
// optimized kernels' tile (16 KiB) and thread (256 KiB) thresholds, and its data get a fresh
// payload of distinct values (payload.h). Narrow dtypes, whose values repeat, mostly stay at
// sizes where they are still distinct.
//
//   rc::Random random(seed);
//   rc::Shrinkable<GeneratedCase> s = validator_case(Op::kDynamicStitch)(random.split(), kValidatorCaseSize);
#pragma once

#include <cstdint>

#include "opconform/generators/op_generators.h"

namespace opconform::validator {

// The largest RapidCheck size (validate cycles through 0 .. kValidatorCaseSize). The invalid
// cases use it as the generators do (small sizes give the minimal cases at a check's edge); the
// valid ones are always drawn at this size, their own sizes come from the target above.
inline constexpr int kValidatorCaseSize = 100;

// A valid case (reshaped as above) or an invalid case (any check of the op), one to one.
rc::Gen<generators::GeneratedCase> validator_case(Op op);

// A valid case of `op`, reshaped as above, at any RapidCheck size.
rc::Gen<generators::GeneratedCase> sized_valid_case(Op op);

// The elements of a case's data output (SpaceToBatchND/BatchToSpaceND output, merged, every
// DynamicPartition output, output_values), as the spec's shape formulas predict; -1 when the
// case is not valid.
std::int64_t data_output_elements(const conformance::Case& c);

}  // namespace opconform::validator
