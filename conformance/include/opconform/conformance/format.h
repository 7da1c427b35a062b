// SPDX-License-Identifier: Apache-2.0
// Readable text for elements, tensors, outcomes and cases, used by `opconform show` and by
// comparison failures. Floats print as their shortest round-tripping decimal; a NaN other than
// the canonical one shows its bits ("nan(0x7fc00001)"); large tensors are abbreviated ("...").
//
//   format_tensor(t)   // "int32 [2,2] [[1, 2], [3, 4]]"
#pragma once

#include <cstdint>
#include <string>

#include "opconform/conformance/run.h"
#include "opconform/conformance/vector.h"

namespace opconform::conformance {

inline constexpr std::int64_t kDefaultMaxElements = 32;

// Element `index` (row-major) of t: "1.5", "-0.0", "inf", "nan(0xffc00000)", "(1, -2)",
// "\"a\\x00\"", "true", "-7".
std::string format_element(const Tensor& t, std::int64_t index);

// The coordinate of row-major `index` in `shape`: "[1,0,2]" ("[]" for a scalar).
std::string format_coordinate(const Shape& shape, std::int64_t index);

// "<dtype> <shape> <nested elements>", at most max_elements of them.
std::string format_tensor(const Tensor& t, std::int64_t max_elements = kDefaultMaxElements);

// One line per tensor, each starting with `indent`, in the signatures' order:
// "merged: int32 [2] [1, 2]", "outputs[1]: ..." for list members.
std::string format_values(const Values& values, const std::string& indent,
                          std::int64_t max_elements = kDefaultMaxElements);

// "error INVALID_ARGUMENT: <message>", or the outputs as format_values lays them out.
std::string format_outcome(const Outcome& outcome, const std::string& indent,
                           std::int64_t max_elements = kDefaultMaxElements);
std::string format_expected(const Case& c, const std::string& indent, std::int64_t max_elements = kDefaultMaxElements);

// Everything in the case, one field per line (`opconform show`).
std::string format_case(const Case& c, std::int64_t max_elements = kDefaultMaxElements);

}  // namespace opconform::conformance
