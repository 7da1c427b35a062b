// SPDX-License-Identifier: Apache-2.0
// Conformance vectors (corpus/README.md is the format's contract): the Case model, the
// per-op signature, the reader and the canonical writer.
//
//   Case c;
//   Status s = load_case_file("corpus/vectors/dynamic_stitch/golden_1.json", &c);
//   if (!s.ok()) std::cerr << s.message();   // "<file>: <field path>: <problem>"
//   std::string text = to_json(c);             // canonical form, bit-exact
//
// Nothing here throws: failures come back as a Status (INVALID_ARGUMENT for bad vectors).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "opconform/exec.h"
#include "opconform/op_registry.h"
#include "opconform/ops.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::conformance {

inline constexpr std::string_view kFormatName = "opconform-vector/1";

// One named input or output (op_registry.h).
using opconform::Value;
using opconform::Values;

// {"rule": "one_of_rows"}: row r (dim 0) of `output` may equal the expected row or any
// alternative; an alternative has the row's shape (the output's shape without dim 0).
struct OneOfRows {
  std::string output;
  std::map<std::int64_t, std::vector<Tensor>> rows;
};
// {"rule": "permutation_within_equal_keys"}: `keys` compares exactly; inside each maximal run
// of equal key rows the rows of `values` compare as multisets.
struct PermutationWithinEqualKeys {
  std::string keys;
  std::string values;
};
using UnspecifiedRule = std::variant<OneOfRows, PermutationWithinEqualKeys>;

struct Expected {
  std::optional<Status> error;               // set: the op must fail with this code (and message)
  Values outputs;                            // otherwise: these outputs, bit for bit,
  std::vector<UnspecifiedRule> unspecified;  // widened by these rules
};

// {"profiles": [...], "outcome": {...}, "why": "..."}: an outcome the contract allows besides
// `expected` when judging under one of `profiles` (TensorFlow's documented result where the
// contract deviates from it); `why` cites the contract.
struct Alternative {
  std::vector<std::string> profiles;
  Expected outcome;
  std::string why;

  bool allows(std::string_view profile) const;
};

struct Case {
  Op op = Op::kSpaceToBatchND;
  std::map<std::string, std::int64_t> attrs;        // integer attrs
  std::map<std::string, std::string> string_attrs;  // string attrs (SpaceToDepth's data_format)
  Values inputs;
  Expected expected;
  std::vector<Alternative> alternatives;            // only on vectors tagged "deviation" or "quirk"
  std::int64_t memory_limit = kDefaultMemoryLimit;  // the only home of a case's limit (run_case)
  std::string profile = "tf-cpu";                   // "tf-cpu", "xla" or "tflite"
  std::vector<std::string> tags;
  std::string provenance;
  std::string name;    // the "name" field; empty when absent
  std::string source;  // the file (or label) it was read from; not written

  bool has_tag(std::string_view tag) const;
  // `name`, or the source's file name without ".json" when the name is absent.
  std::string display_name() const;
};

// What each op takes and returns, in corpus/README.md's order: op_registry.h's
// op_signature(op); op_from_name(name) takes the op's name.

// The registry's ops and their signatures as JSON (corpus/ops.json, for readers of the vectors
// in other languages): {"format": "opconform-ops/1", "ops": [{"number", "name", "snake_name",
// "inputs": [{"name", "list", "dtype"[, "length"]}], "attrs": [{"name", "type"}], "outputs"}]}.
inline constexpr std::string_view kRegistryFormatName = "opconform-ops/1";
std::string registry_json();

// What a reader allocates at most for one vector: "fill" tensors are bounded in elements
// (each) and bytes (all of a vector's together, string payloads included); files in size.
// Fuzzers may pass smaller limits.
struct ReadLimits {
  std::int64_t max_fill_elements = std::int64_t{1} << 28;
  std::int64_t max_fill_bytes = std::int64_t{1} << 31;
  std::int64_t max_file_bytes = std::int64_t{64} << 20;
};

// Readers. Errors name the source and the JSON field path:
//   "corpus/x.json: inputs.block_shape.data: 3 elements for shape [2,2] (needs 4)".
Status load_case_file(const std::filesystem::path& path, Case* out, const ReadLimits& limits = {});
Status parse_case(std::string_view json_text, std::string_view source, Case* out, const ReadLimits& limits = {});

// The canonical form: fields in corpus/README.md's order, defaults omitted, elements bit-exact
// (shortest round-tripping decimals, "inf"/"-inf"/"nan"/"0x…", big integers as strings,
// {"hex": …} for strings that are not UTF-8), tensors of more than 64 equal elements as
// "fill", small arrays on one line. Precondition for a readable result: the case is well formed
// (what parse_case accepts).
std::string to_json(const Case& c);
Status save_case_file(const Case& c, const std::filesystem::path& path);

}  // namespace opconform::conformance
