// SPDX-License-Identifier: Apache-2.0
// The harnesses' oracle: run a case through the reference and the optimized kernels and judge
// the optimized outcome with THE comparison routine (conformance/compare.h), the expectation
// being the reference outcome widened exactly by what the contract leaves unspecified
// (conformance/unspecified.h).
//
//   Verdict v = run_differential(fc.c, fc.knobs);
//   if (!v.agree) report_and_abort(fc.c, fc.knobs, v);   // a finding: libFuzzer saves the input
#pragma once

#include <string>
#include <vector>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/vector.h"
#include "opconform/exec.h"

namespace opconform::fuzz {

struct Verdict {
  bool agree = true;
  std::string why;  // the finding, when !agree
  conformance::Outcome reference;
  conformance::Outcome optimized;
};

// Runs both layers (the optimized one with `knobs`, both with
// c.memory_limit) and reports a finding when: the outcomes differ beyond the spec's freedom
// (values, error code or message), a kernel threw, a kernel replaced its outputs on error, or a
// buffer guard was damaged (BufferChecks, enabled by enable_buffer_checks()).
Verdict run_differential(const conformance::Case& c, const Knobs& knobs);

// Turns on BufferChecks (poison + guards) for the whole process; harnesses call it once.
void enable_buffer_checks();

// Prints the case, the knobs, the reason and both outcomes side by side, then aborts.
[[noreturn]] void report_and_abort(const conformance::Case& c, const Knobs& knobs, const Verdict& verdict);

}  // namespace opconform::fuzz
