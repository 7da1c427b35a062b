// SPDX-License-Identifier: Apache-2.0
// Case generators of DynamicPartition (docs/contract/dynamic_stitch.md).
//
// Valid cases are built by construction: partitions of rank 0..3 (a scalar too), data =
// partitions.shape + a slice shape of rank 0..2, num_partitions mostly in [1, 6] (sometimes up
// to 300, so most outputs are empty), partition values drawn from [0, num_partitions), any
// registered dtype (strings included), zero-size dims anywhere. One case in eight is "huge but
// empty": a zero in any dim of data (in the partitions' shape: no entry; or in the slice after
// a few entries), huge dims around it (generated_case.h, draw_empty_huge_dims),
// num_partitions <= 6. Before those, one case in 64 is a width-boundary case
// (index_boundaries.h): a partition id or num_partitions (each in 1 case of 128) at B - 1, B
// or B + 1 for B in 2^8, 2^16 (each of the 6 in at least 1 case of 768), so up to 2^16 + 3
// outputs (rarer than other ops' boundary cases: each costs the properties a second or more);
// 2^31 and 2^32 are excluded (the registry says why).
//
// Invalid cases: one generator per check of checks_of(Op::kDynamicPartition), each failing
// exactly that check first (num_partitions at 0, int64 min, 2^31 and beyond; out-of-range
// values at any flat position of any rank; num_partitions whose 64-byte headers alone pass
// the memory limit).
#pragma once

#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

rc::Gen<GeneratedCase> valid_dynamic_partition();
rc::Gen<GeneratedCase> invalid_dynamic_partition(std::string_view check);

std::optional<std::vector<PredictedOutput>> dynamic_partition_outputs(const conformance::Case& c);

}  // namespace opconform::generators
