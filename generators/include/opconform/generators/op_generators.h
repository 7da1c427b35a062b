// SPDX-License-Identifier: Apache-2.0
// One entry point per kind of case, for any op: what properties, fuzzers and the validator
// draw from. Also the execution options the optimized layer takes (threads, tile size).
//
//   GeneratedCase x = *any_invalid_case(Op::kSparseConcat);   // x.check names the check
#pragma once

#include <ostream>
#include <string_view>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

rc::Gen<GeneratedCase> valid_case(Op op);  // the op's full valid mix
// Fails `check` (a check id of checks_of(op)) first; throws std::logic_error for an id the op has
// no check of.
rc::Gen<GeneratedCase> invalid_case(Op op, std::string_view check);
rc::Gen<GeneratedCase> any_invalid_case(Op op);  // a check drawn uniformly
rc::Gen<GeneratedCase> any_case(Op op);          // valid or invalid, 1:1

// Bytes of data a case must move for the optimized kernels to use more than one thread (they
// stay on the calling thread below optimized/row_copy.h's kMinParallelBytes, 256 KiB, and
// valid_case keeps cases far smaller).
inline constexpr std::int64_t kParallelWorkBytes = std::int64_t{1} << 18;
// A valid case moving at least kParallelWorkBytes, for the determinism property: a
// valid_case(op) with one trailing dim appended to its data (SpaceToBatchND, BatchToSpaceND:
// the input; the stitches: every data member; DynamicPartition: data), or for the stitches and
// DynamicPartition as often a leading dim prepended to data and index inputs alike (the
// indices repeated), or for SparseConcat every input's entries repeated (in blocks, which
// unsorts them, or row by row, which keeps sorted inputs sorted); the data get a fresh payload
// of distinct values. A case with no data bytes to scale is returned as drawn.
rc::Gen<GeneratedCase> large_valid_case(Op op);

// A valid case of its op grown about `times` (>= 1) over, still valid: the validator's case mix
// (validator/case_mix.h) sizes its cases with it. Each op's own way (its OpGenerators::grow):
// more rows, wider rows or a larger batch or spatial dim, with a fresh payload. Use inside
// rc::gen::exec.
void grow_valid_case(conformance::Case& c, std::int64_t times);

// ExecOptions for the optimized layer: 1-8 threads (0: the hardware's count) and tile sizes
// from 1 byte up (0: the kernel's default), with the small values that put tile edges inside
// small tensors.
struct ExecChoice {
  ExecOptions options;
};
void showValue(const ExecChoice& e, std::ostream& os);
rc::Gen<ExecChoice> gen_exec_choice();

}  // namespace opconform::generators
