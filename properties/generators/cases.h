// One entry point per kind of case, for any op: what properties, fuzzers and the validator
// draw from. Also the execution options the optimized layer takes (threads, tile size).
//
//   GeneratedCase x = *any_invalid_case(Op::kSparseConcat);   // x.rule names the check
#pragma once

#include <ostream>
#include <string_view>

#include "properties/generators/common.h"

namespace opconform::generators {

rc::Gen<GeneratedCase> valid_case(Op op);                              // the op's full valid mix
rc::Gen<GeneratedCase> invalid_case(Op op, std::string_view rule);     // fails `rule` first
rc::Gen<GeneratedCase> any_invalid_case(Op op);                        // a rule drawn uniformly
rc::Gen<GeneratedCase> any_case(Op op);                                // valid or invalid, 1:1

// ExecOptions for the optimized layer: 1-8 threads (0: the hardware's count) and tile sizes
// from 1 byte up (0: the kernel's default), with the small values that put tile edges inside
// small tensors.
struct ExecChoice {
  ExecOptions options;
};
void showValue(const ExecChoice& e, std::ostream& os);
rc::Gen<ExecChoice> gen_exec_choice();

}  // namespace opconform::generators
