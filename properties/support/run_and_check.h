// What every property shares: the two layers, running a case through the shared comparison
// routine (conformance/compare.h), saving a failing case as a conformance vector, and counting
// which spec checks (generators/checks.h) the run exercised.
//
//   conformance::Case c = expect_reference_outcome(g.c);   // expected = the reference's outcome
//   expect_conforms(optimized::op_table(), c, {}, "optimized vs reference");
//
// On a mismatch the case (with its expected outcome) is written to
// $OPCONFORM_COUNTEREXAMPLES/<Suite>.<Test>.json (default: <build dir>/counterexamples); the
// file is rewritten on every failing shrink step, so what is left is the shrunk counterexample.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/run.h"
#include "opconform/ops.h"

namespace opconform::properties {

// The implementations under test, reference first.
const std::vector<const OpTable*>& layers();
const OpTable& reference_layer();
const OpTable& optimized_layer();

// Runs c through `table` (conformance::run_case) and counts the check its error belongs to.
// A failure whose code and message match no check of the spec fails the property.
conformance::Outcome run(const OpTable& table, const conformance::Case& c, ExecOptions options = {});
// The counting and checking half of run(), for an outcome obtained by conformance::run_case.
void classify_outcome(const OpTable& table, const conformance::Case& c, const conformance::Outcome& outcome);

// c with c.expected set to `outcome` and widened by the spec's unspecified outcomes
// (conformance/unspecified.h) when it succeeded.
conformance::Case expect_outcome(conformance::Case c, const conformance::Outcome& outcome);
// run(), and fails (saving c with the reference's outcome) unless the op succeeded.
conformance::Outcome run_valid(const OpTable& table, const conformance::Case& c, std::string_view what);

// c with the reference's outcome as its expectation.
conformance::Case expect_reference_outcome(const conformance::Case& c);
// c with these outputs as its expectation (no unspecified rule).
conformance::Case expect_outputs(conformance::Case c, conformance::Values outputs);

// Runs `expected_case` through `table` and compares with the shared routine (strict: code and
// message); a mismatch saves the counterexample and fails with `what` and the difference.
conformance::Outcome expect_conforms(const OpTable& table, const conformance::Case& expected_case, ExecOptions options,
                                     std::string_view what);

// Saves `c` (inputs and expectation) as this test's counterexample and fails the property.
[[noreturn]] void fail_with_counterexample(const conformance::Case& c, const std::string& why);

// Fails (saving `c`) when `ok` is false.
void require(bool ok, const conformance::Case& c, const std::string& why);
// Fails (saving the case `counterexample()` returns) when `ok` is false. The case is built only
// on failure: most counterexamples rerun the reference, and doing that for every check that
// passes (once per output of every case) made the run quadratic in the number of outputs.
template <class MakeCase>
requires std::is_invocable_r_v<conformance::Case, MakeCase&>
void require(bool ok, MakeCase&& counterexample, const std::string& why) {
  if (!ok) fail_with_counterexample(counterexample(), why);
}

std::filesystem::path counterexample_dir();

// Check hits of the current test: check id -> count, per op. Written by the property main after
// each test to $OPCONFORM_CHECK_COVERAGE_DIR/<Op>/<Suite>.<Test>.counts (one "check count" per
// line), read by the check-coverage test.
void record_check_hit(Op op, std::string_view check);
void write_check_hits(const std::string& test_id);
std::filesystem::path check_coverage_dir();

// The property main's defaults: max_success = 1000 * $OPCONFORM_PROPERTY_SCALE unless
// RC_PARAMS sets it. Call before RapidCheck reads its configuration.
void set_default_rapidcheck_params();

}  // namespace opconform::properties
