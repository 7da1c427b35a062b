// SPDX-License-Identifier: Apache-2.0
// Case generators of SparseConcat (docs/contract/sparse_concat.md).
//
// Valid cases are built by construction: N in [2, 4] inputs of rank r in [1, 4] sharing every
// dim but the concat dim cd, concat_dim given as cd or cd - r; each input's entries sorted,
// unsorted or with duplicate coordinates, mostly inside the shape but also negative, out of
// range or near the int64 limits (coordinates are not checked); empty inputs and an all-empty
// concat; values of any registered dtype, distinct across inputs. In kAny mode one case in eight
// is "huge but empty": dense shapes with a zero in any dim and huge dims around it
// (generated_case.h, draw_empty_huge_dims; the concat dim's sizes split the output's), and a few
// in-range entries or none. Before those, one case in eight is a width-boundary case
// (index_boundaries.h): a coordinate or a dense dim (each in 1 case of 16) at B - 1, B or
// B + 1 for B in 2^8, 2^16, 2^31, 2^32 (each of the 12 in at least 1 case of 192).
//
// Invalid cases: one generator per check of checks_of(Op::kSparseConcat), each failing exactly
// that check first (shapes whose checked product overflows only at the last dim or holds a
// negative dim after a zero, concat sizes and entry counts past int64, coordinates that
// overflow only when offset).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

enum class SparseMode {
  kAny,    // everything above
  kDense,  // unique coordinates inside each input's shape (the dense-concatenation law)
};

// At least `min_inputs` (2 to 4) inputs.
rc::Gen<GeneratedCase> valid_sparse_concat(SparseMode mode = SparseMode::kAny, int min_inputs = 2);
rc::Gen<GeneratedCase> invalid_sparse_concat(std::string_view check);

std::optional<std::vector<PredictedOutput>> sparse_concat_outputs(const conformance::Case& c);

}  // namespace opconform::generators
