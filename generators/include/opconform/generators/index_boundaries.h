// SPDX-License-Identifier: Apache-2.0
// The width boundaries of index-like values (op_registry.h's IndexLike: stitch indices,
// partition ids and num_partitions, block shapes, paddings and crops, block_size, sparse
// coordinates): which of kIndexWidthBoundaries (2^8, 2^16, 2^31, 2^32) each value reaches, and
// the boundary draws every op's valid mix makes.
//
// The rate: 1 valid case in boundary_case_one_in(op) (8; DynamicPartition 64, whose 2^16 cases
// have up to 2^16 + 3 outputs each, a second or more of the properties' poison and round-trip
// checks) is a boundary case. It puts one of the op's
// index-like values (each equally likely) at B - 1, B or B + 1 (each equally likely) for one of
// that value's reachable boundaries B (each equally likely), and builds the rest of the case
// around it so that it stays valid (zero-size dims where the value would otherwise take memory).
// So each index-like value sits at a boundary in at least 1 valid case of 16 (1 of 8 for an op
// with one such value; DynamicPartition 1 of 128), and each of B - 1, B, B + 1 of each reachable
// boundary comes up in at least 1 of 8 * 2 * 4 * 3 = 192 (DynamicPartition 64 * 2 * 2 * 3 = 768).
//
//   if (auto target = draw_boundary_target(op)) return build(draw_at_boundary(*target));
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/op_registry.h"

namespace opconform::generators {

inline constexpr int kBoundaryCaseOneIn = 8;
// The op's rate (its generator hooks' boundary_case_one_in): kBoundaryCaseOneIn unless stated.
int boundary_case_one_in(Op op);

// The largest value the dtype of `v` holds: 2^31 - 1 for an int32 input, else 2^63 - 1 (int64
// inputs, inputs of an int32-or-int64 dtype role, integer attrs).
std::int64_t index_dtype_max(const OpInfo& info, const IndexLike& v);

// One of kIndexWidthBoundaries for one index-like value: reachable by valid cases, or not,
// and why not (beyond the dtype, or the value's stated exclusion).
struct BoundaryStatus {
  std::int64_t boundary;
  bool reachable;
  std::string why;  // empty when reachable
};
std::vector<BoundaryStatus> boundary_statuses(const OpInfo& info, const IndexLike& v);
std::vector<std::int64_t> reachable_boundaries(const OpInfo& info, const IndexLike& v);

// Every value of `v` in a case of its op: all elements of the input (every member of a list
// input), or the attr; none when the case lacks it.
std::vector<std::int64_t> index_like_values(const conformance::Case& c, const IndexLike& v);

// A boundary draw: the index-like value `name` of the op is to hold `value`.
struct BoundaryTarget {
  std::string_view name;
  std::int64_t value;
};
// Inside rc::gen::exec: nullopt in all draws but 1 of boundary_case_one_in(op), else
// the target of a boundary case as above. nullopt always for an op without index-like values.
std::optional<BoundaryTarget> draw_boundary_target(Op op);

}  // namespace opconform::generators
