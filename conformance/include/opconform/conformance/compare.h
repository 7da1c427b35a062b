// SPDX-License-Identifier: Apache-2.0
// THE comparison of an outcome against a case (corpus/README.md, "Expected outcomes"); every
// runner, property, fuzzer and the validator uses it.
//
//   Judgement result = compare(c, run_case(table, c));
//   if (!result.pass) std::cerr << result.detail;
#pragma once

#include <string>
#include <string_view>

#include "opconform/conformance/run.h"
#include "opconform/conformance/vector.h"

namespace opconform::conformance {

enum class Strictness {
  kStrict,    // error code and message (the message only when not tagged message:code-only)
  kCodeOnly,  // error code only
};

// What comparing an outcome with the expected outcome concluded (validator::Judgement refines it
// with a verdict and a grouping key).
struct Judgement {
  bool pass = true;
  std::string detail;  // why it failed (empty on a pass)
};

// Outputs bit for bit (dtype, shape, every element's bits), widened exactly by the case's
// `unspecified` rules; errors by code and, when strict, message. An outcome that replaced
// outputs while returning an error fails.
Judgement compare(const Case& c, const Outcome& actual, Strictness strictness = Strictness::kStrict);

// What every entry point judges a case by: its expected outcome, else an alternative it allows
// under `profile` (corpus/README.md, "Alternatives"). `alternative` names the alternative that
// matched (pass and not the expected outcome); `judgement` fails with the expected outcome's
// detail when neither matched.
struct Allowed {
  Judgement judgement;
  const Alternative* alternative = nullptr;
};
Allowed compare_allowed(const Case& c, const Outcome& actual, std::string_view profile,
                        Strictness strictness = Strictness::kStrict);

// Bit for bit; a failure names `label`, the first differing coordinate ("[i,j,k]") and both
// values.
Judgement compare_tensors(const Tensor& expected, const Tensor& actual, std::string_view label);

// The expectation that `outcome` sets: its error, or its outputs (no unspecified rules).
// With run_case and compare, one implementation can be checked against another.
Expected expected_from(const Outcome& outcome);

}  // namespace opconform::conformance
