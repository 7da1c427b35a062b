#include "opconform/fuzz/convert.h"

#include <algorithm>

#include "opconform/conformance/format.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/fuzz/differential.h"
#include "opconform/fuzz/harness_bodies.h"
#include "opconform/reference/op_table.h"

namespace opconform::fuzz {

namespace {

// The case and knobs the harness runs for these bytes.
Status harness_case(Harness harness, std::span<const std::uint8_t> bytes, FuzzCase* out) {
  if (const std::optional<Op> op = op_of(harness)) {
    std::optional<FuzzCase> fc = decode_case(*op, bytes.data(), bytes.size());
    if (!fc)
      return invalid_argument("the input is over the ", harness_name(harness), " harness's bounds (it skips it)");
    *out = std::move(*fc);
    return Status();
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  if (!fills_within_bounds(text)) return invalid_argument("the vector's fill tensors are over the harness's bounds");
  FuzzCase fc;
  OPCONFORM_RETURN_IF_ERROR(conformance::parse_case(text, "fuzz-input", &fc.c));
  fc.c.memory_limit = capped_memory_limit(fc.c.memory_limit);
  *out = std::move(fc);
  return Status();
}

}  // namespace

Status vector_to_fuzz(const conformance::Case& c, const Knobs& knobs, std::vector<std::uint8_t>* bytes) {
  return encode_case(c, knobs, bytes);
}

Status fuzz_to_vector(Harness harness, std::span<const std::uint8_t> bytes, std::string_view input_name,
                      conformance::Case* out) {
  FuzzCase fc;
  OPCONFORM_RETURN_IF_ERROR(harness_case(harness, bytes, &fc));
  conformance::Case c = std::move(fc.c);
  const conformance::Outcome reference = conformance::run_case(reference::op_table(), c);
  c.expected = conformance::oracle_expectation(c, reference);
  c.tags = {"fuzz"};
  if (!c.expected.unspecified.empty()) c.tags.push_back("unspecified");
  c.provenance = str_cat("fuzz/", harness_name(harness), " input ", input_name,
                         "; expected = the reference outcome; optimized knobs ", knobs_string(fc.knobs));
  c.name = std::string(input_name);
  c.source.clear();
  *out = std::move(c);
  return Status();
}

Status describe_input(Harness harness, std::span<const std::uint8_t> bytes, std::string* text, bool* agree) {
  FuzzCase fc;
  OPCONFORM_RETURN_IF_ERROR(harness_case(harness, bytes, &fc));
  const Verdict v = run_differential(fc.c, fc.knobs);
  conformance::Case shown = fc.c;
  shown.expected = conformance::oracle_expectation(fc.c, v.reference);
  *agree = v.agree;
  *text = str_cat(conformance::format_case(shown), "\noptimized knobs: ", knobs_string(fc.knobs),
                  " memory_limit=", fc.c.memory_limit, "\nreference:\n", conformance::format_outcome(v.reference, "  "),
                  "\noptimized:\n", conformance::format_outcome(v.optimized, "  "),
                  "\nverdict: ", v.agree ? "agree" : "FINDING: " + v.why, "\n");
  return Status();
}

}  // namespace opconform::fuzz
