// SPDX-License-Identifier: Apache-2.0
// The bodies of the seven harnesses; fuzz/fuzz_<name>.cc only forward LLVMFuzzerTestOneInput.
// A return of -1 tells libFuzzer not to keep the input (over the bounds); 0 otherwise. A finding
// aborts (differential.h), which libFuzzer and the replay main both report as a crash.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "opconform/ops.h"

namespace opconform::fuzz {

// Decodes the bytes into a case of `op` (case_codec.h) and runs the differential check.
int run_op_harness(Op op, const std::uint8_t* data, std::size_t size);

// Parses the bytes as a conformance vector. Findings: a crash or sanitizer report in the
// reader, a canonical text (to_json) that does not parse back to the same text, and a
// reference/optimized disagreement on the parsed case (memory limit capped at
// kMaxFuzzMemoryLimit).
int run_vector_reader_harness(const std::uint8_t* data, std::size_t size);

// Whether every "fill" tensor of a vector text (inputs and outputs) stays, in total, within
// kMaxCaseElements, so the reader never allocates more than the harness bounds allow. Texts
// that are not JSON pass (the reader rejects them before allocating).
bool fills_within_bounds(std::string_view json_text);

}  // namespace opconform::fuzz
