// SPDX-License-Identifier: Apache-2.0
// The conformance suite inside your own GoogleTest run, against kernels linked into your test
// binary (an OpTable: opconform/ops.h, the same signatures as the bundled ops).
//
//   #include <gtest/gtest.h>
//   #include "opconform/gtest/suite.h"
//
//   int main(int argc, char** argv) {
//     testing::InitGoogleTest(&argc, argv);
//     opconform::gtest::register_suite("MyKernels", mykernels::op_table());
//     return RUN_ALL_TESTS();
//   }
//
// For every op whose table entry is set (a null entry leaves the op out), it registers
//   MyKernels/Vectors.<op>/<vector>   each bundled conformance vector of the op, subfolders too
//                                     (<op>/tf-tests/<name>); the vectors of tf-cpu and of
//                                     SuiteOptions::profile are judged, the others are skipped
//                                     with the reason; stable names
//   MyKernels/Properties.<Op>_valid   generated valid cases (RapidCheck, opconform::generators)
//   MyKernels/Properties.<Op>_invalid generated invalid cases, one validation check broken each
//   MyKernels/Properties.<Op>_check_pairs  one case per feasible pair of checks, both broken
//                                     (opconform/generators/check_pairs.h): the earlier check
//                                     must answer; prints the pairs hit / feasible
// Every case is judged against the reference kernels with the contract's comparison: outputs
// bit for bit widened by the unspecified-behaviour rules, errors by code (and message with
// strict_messages); a vector's alternatives for the profile are accepted too (compare_allowed),
// and under xla or tflite so is a difference the profile documents (docs/contract/profiles.md),
// as `opconform validate --profile` judges. Cases whose T is outside SuiteOptions::dtypes may be
// declined with an error.
// The generated cases come from SuiteOptions::seed (1 unless $OPCONFORM_SEED says otherwise), so
// a run repeats; the seed and profile are printed when the tests start. A failure prints the
// shrunk case and an RC_PARAMS="reproduce=..." line that replays it. Kernels run in-process: a
// crash ends the test binary (use `opconform validate` for crash isolation).
//
// Expected failures (SuiteOptions::expected_failures, the list `opconform validate --xfail`
// reads) apply to the vector tests: a listed vector that fails is skipped (GTEST_SKIP) with
// "xfail: <reason>", so the run passes and the JUnit XML marks it skipped; one that passes
// prints "XPASS: <reason>" and passes, or fails under strict_xfail. With a list, the test
//   MyKernels/ExpectedFailures.entries  (registered last, so it runs after the vectors)
// prints each entry's status and reports the entries that match no registered vector (a
// failure under strict_xfail), and under strict_xfail fails on a signature entry whose failure
// did not occur when all its vectors ran in this process. Selection (SuiteOptions::select)
// registers only the vectors selected; a tag or folder selector registers no properties.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/ops.h"

namespace opconform::gtest {

// OPCONFORM_GTEST_VECTORS is set by the opconform::gtest target: the vectors installed with it
// (the source tree's, in opconform's own build).
#ifndef OPCONFORM_GTEST_VECTORS
#error "opconform/gtest/suite.h needs the opconform::gtest target (it sets OPCONFORM_GTEST_VECTORS)"
#endif

// Where register_suite looks for vectors by default: $OPCONFORM_VECTORS, else the installed ones.
inline std::string default_vectors_dir() {
  const char* env = std::getenv("OPCONFORM_VECTORS");
  return env && *env ? env : OPCONFORM_GTEST_VECTORS;
}

struct SuiteOptions {
  std::string vectors_dir = default_vectors_dir();
  bool vectors = true;
  bool properties = true;
  int property_cases = 200;      // per property (RC_PARAMS="max_success=N" overrides)
  bool strict_messages = false;  // compare error messages too, not only codes
  // The seed of the generated cases (the properties and the check pairs): the same seed draws
  // the same cases, so CI runs repeat; 1, as `opconform validate`. $OPCONFORM_SEED, when set,
  // replaces it (to explore other cases without a rebuild); RC_PARAMS="seed=..." replaces it for
  // the properties only.
  std::uint64_t seed = 1;
  // The profile the kernels are judged under: "tf-cpu", "xla" or "tflite" (as
  // `opconform validate --profile`).
  std::string profile = "tf-cpu";
  // The element dtypes (T: the data or values) the implementation supports, as a plug-in's
  // manifest declares them; empty: all. On a case of another T an error passes (the vector is
  // reported skipped); a result is still judged.
  std::vector<DType> dtypes;
  // An expected-failure list (JSON Lines, as `opconform validate --xfail`; "": none). A list
  // that cannot be read registers the failing test MyKernels/Options.expected_failures.
  std::string expected_failures;
  bool strict_xfail = false;  // an xpass, or an entry that matches no vector, fails
  // Which vectors to register: "name:GLOB" (the vector's name), "tag:TAG", "folder:PATH" (as
  // `opconform validate --select`). A tag or folder selector registers no properties.
  std::vector<std::string> select;
};

// Registers the suite's tests under `name` (a GoogleTest suite-name prefix). Call after
// testing::InitGoogleTest and before RUN_ALL_TESTS. The table must outlive the run.
void register_suite(const std::string& name, const OpTable& table, const SuiteOptions& options = {});

}  // namespace opconform::gtest
