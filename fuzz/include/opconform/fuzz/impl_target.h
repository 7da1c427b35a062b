// SPDX-License-Identifier: Apache-2.0
// The differential fuzz target for an implementation under test (FUZZING.md, "Fuzzing your
// own kernels"): the harness bytes decode into a case of one op (case_codec.h), the reference
// gives the expected outcome widened by the unspecified-behaviour rules, the implementation
// runs, and the validator's judge decides (validator/judge.h), exactly as `opconform validate`
// judges. A failing verdict prints its signature on a line starting "ERROR: opconform finding:"
// and aborts, so libFuzzer keeps the input as a crash artifact; crashes, sanitizer reports and
// timeouts of the implementation are libFuzzer's own findings.
//
// Two ways in:
//  - a C-ABI plug-in, loaded in LLVMFuzzerInitialize from $OPCONFORM_FUZZ_IMPL
//    (opconform-fuzz-driver, driven by `opconform fuzz`);
//  - an OpTable linked into the binary (opconform_add_fuzz_target in the CMake package).
//
//   ImplUnderTest impl;
//   Status s = load_plugin("libmine.so", &impl);          // or in_process(table, "mine")
//   if (s.ok()) s = select_op(&impl, Op::kDynamicStitch);
//   run_input(impl, data, size);                          // from LLVMFuzzerTestOneInput
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

#include "opconform/conformance/vector.h"
#include "opconform/ops.h"
#include "opconform/validator/protocol.h"

namespace opconform::fuzz {

struct ImplUnderTest {
  std::string name;              // for messages: the manifest's name and the path
  validator::Manifest manifest;  // what it declares (an OpTable: every op it has, any dtype)
  std::string profile;           // judged under this profile (default: the manifest's)
  Op op = Op::kSpaceToBatchND;   // the op being fuzzed (select_op)
  bool poison_outputs = false;   // outputs start filled with the poison byte (a plug-in)
  std::function<validator::ImplAnswer(const conformance::Case&)> run;
};

// Loads a plug-in (validator/plugin_host.h); the host lives as long as the process.
Status load_plugin(const std::string& path, ImplUnderTest* out);

// An OpTable in this process. Its outcome is an answer as a plug-in's would be: outputs, an
// error, or a fault when the op replaced an output or allocated one before a non-memory error.
ImplUnderTest in_process(const OpTable& table, std::string name);

// Chooses the op; INVALID_ARGUMENT when the implementation does not provide it.
Status select_op(ImplUnderTest* impl, Op op);

// Whether the shared library at `path` carries SanitizerCoverage counters (was compiled with
// -fsanitize=fuzzer-no-link or -fsanitize-coverage=inline-8bit-counters): its ELF file has a
// __sancov_cntrs section. libFuzzer sees only instrumented code's branches.
bool has_coverage_counters(const std::string& path);

// Sets up the target from the environment: $OPCONFORM_FUZZ_OP (required: "DynamicStitch" or
// "dynamic_stitch"), $OPCONFORM_FUZZ_PROFILE (optional), and $OPCONFORM_FUZZ_IMPL (a plug-in;
// ignored when `table` is given). For a table, `dtypes` lists the data dtypes T it supports
// ("float32,int32"; null or empty: all): cases of other T are skipped, as validate skips cases
// outside a plug-in's manifest. Prints what is fuzzed, and whether libFuzzer sees the
// implementation's coverage, on stderr. Exits with status 2 and a message on a bad setting.
void initialize_from_environment(const OpTable* table, const char* table_name, const char* dtypes = nullptr);

// One fuzz input through the implementation set up above. Returns -1 (libFuzzer: do not add
// to the corpus) when the bytes do not decode or the case lies outside the manifest.
int run_input(const std::uint8_t* data, std::size_t size);

// The same, with an explicit implementation (tests).
int run_input(const ImplUnderTest& impl, const std::uint8_t* data, std::size_t size);

}  // namespace opconform::fuzz
