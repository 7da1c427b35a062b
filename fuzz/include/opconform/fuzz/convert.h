// SPDX-License-Identifier: Apache-2.0
// The converter between harness inputs and conformance vectors, both ways.
//
//   std::vector<std::uint8_t> seed;
//   Status s = vector_to_fuzz(c, Knobs{}, &seed);  // a seed for corpus/<harness_for_op(c.op)>/
//   conformance::Case v;
//   s = fuzz_to_vector(Harness::kDynamicStitch, bytes, "crash-1a2b", &v);
//   conformance::save_case_file(v, "corpus/vectors-findings/crash-1a2b.json");
//
// `opconform-fuzz vector-to-fuzz|fuzz-to-vector|show|seed` (fuzz/fuzz_tool.cc) wrap these.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/fuzz/case_codec.h"
#include "opconform/status.h"

namespace opconform::fuzz {

// The input of harness_for_op(c.op) that decodes to c's inputs and attrs, with `knobs`' threads
// (0-4), tile size and streaming (encode_case; a memory limit above kMaxFuzzMemoryLimit becomes
// the harness default, 1 MiB). Fails when the format cannot express c.
Status vector_to_fuzz(const conformance::Case& c, const Knobs& knobs, std::vector<std::uint8_t>* bytes);

// The case a harness input stands for, as a readable vector: the decoded inputs (the vector
// reader's input: the parsed vector, memory limit capped as the harness does), expected = the
// reference outcome with the spec's unspecified rules, tags "fuzz" (and "unspecified"), and a
// provenance naming the harness, `input_name` and the optimized kernel's knobs. Fails when the
// bytes do not decode (over the bounds, or not a vector).
Status fuzz_to_vector(Harness harness, std::span<const std::uint8_t> bytes, std::string_view input_name,
                      conformance::Case* out);

// What the harness does with the input, in words: the decoded case, the knobs, both outcomes
// and the verdict (`opconform-fuzz show`). Sets *agree to the verdict.
Status describe_input(Harness harness, std::span<const std::uint8_t> bytes, std::string* text, bool* agree);

}  // namespace opconform::fuzz
