// The harnesses' oracle: run a case through the reference and the optimized kernels and judge
// the optimized outcome with THE comparison routine (conformance/compare.h), the expectation
// being the reference outcome widened exactly by what the spec leaves unspecified.
//
//   Verdict v = run_differential(fc.c, fc.options);
//   if (!v.agree) report_and_abort(fc.c, fc.options, v);   // a finding: libFuzzer saves the input
#pragma once

#include <string>
#include <vector>

#include "conformance/compare.h"
#include "conformance/run.h"
#include "conformance/vector.h"
#include "opconform/exec.h"

namespace opconform::fuzz {

struct Verdict {
  bool agree = true;
  std::string why;  // the finding, when !agree
  conformance::Outcome reference;
  conformance::Outcome optimized;
};

// Runs both layers (the optimized one with `options`' threads and tile size, both with
// c.memory_limit) and reports a finding when: the outcomes differ beyond the spec's freedom
// (values, error code or message), a kernel threw, a kernel replaced its outputs on error, or a
// buffer guard was damaged (BufferChecks, enabled by enable_buffer_checks()).
Verdict run_differential(const conformance::Case& c, const ExecOptions& options);

// The spec's freedom for the case, given the reference's successful outcome:
// ParallelDynamicStitch's winner across lists (one_of_rows: for each row named by several
// lists, the last writer of each such list) and SparseConcat's order of equal coordinates
// (permutation_within_equal_keys). Empty for the other ops and for errors.
std::vector<conformance::UnspecifiedRule> unspecified_rules(const conformance::Case& c,
                                                            const conformance::Outcome& reference);

// expected_from(reference) plus unspecified_rules(c, reference).
conformance::Expected reference_expectation(const conformance::Case& c,
                                            const conformance::Outcome& reference);

// Turns on BufferChecks (poison + guards) for the whole process; harnesses call it once.
void enable_buffer_checks();

// Prints the case, the options, the reason and both outcomes side by side, then aborts.
[[noreturn]] void report_and_abort(const conformance::Case& c, const ExecOptions& options,
                                   const Verdict& verdict);

}  // namespace opconform::fuzz
