// Bad vectors: every problem comes back as INVALID_ARGUMENT naming the file and the field
// path, never as a throw, a crash or a huge allocation.
#include <gtest/gtest.h>

#include <filesystem>

#include "opconform/conformance/vector.h"

namespace opconform::conformance {
namespace {

const std::string kBase = R"({"format": "opconform-vector/1", "op": "SpaceToBatchND",
 "inputs": {"input": {"dtype": "float32", "shape": [1, 2, 2, 1], "data": [1, 2, 3, 4]},
            "block_shape": {"dtype": "int32", "shape": [2], "data": [2, 2]},
            "paddings": {"dtype": "int32", "shape": [2, 2], "data": [0, 0, 0, 0]}},
 "expected": {"error": {"code": "INVALID_ARGUMENT", "message": "m"}}})";

const std::string kStitch = R"({"format": "opconform-vector/1", "op": "ParallelDynamicStitch",
 "inputs": {"indices": [{"dtype": "int32", "shape": [2], "data": [0, 0]}],
            "data": [{"dtype": "int32", "shape": [2, 2], "data": [1, 2, 3, 4]}]},
 "expected": {"outputs": {"merged": {"dtype": "int32", "shape": [1, 2], "data": [3, 4]}},
              "unspecified": [RULE]},
 "tags": ["unspecified"]})";

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// The error message of parsing `text` as "x.json" (a test failure if it parses).
std::string error_of(const std::string& text) {
  Case c;
  const Status s = parse_case(text, "x.json", &c);
  EXPECT_FALSE(s.ok()) << text;
  EXPECT_EQ(s.code(), Code::kInvalidArgument);
  return s.message();
}

std::string base_with(const std::string& from, const std::string& to) { return error_of(replaced(kBase, from, to)); }
std::string rule_error(const std::string& rule) { return error_of(replaced(kStitch, "RULE", rule)); }

TEST(VectorErrors, TheBasesAreValid) {
  Case c;
  EXPECT_TRUE(parse_case(kBase, "x.json", &c).ok());
  const Status s =
      parse_case(replaced(kStitch, "RULE", R"({"rule": "one_of_rows", "output": "merged", "rows": {"0": [[1, 2]]}})"),
                 "x.json", &c);
  EXPECT_TRUE(s.ok()) << s;
}

TEST(VectorErrors, UnreadableFiles) {
  Case c;
  Status s = load_case_file("/nonexistent/dir/v.json", &c);
  EXPECT_EQ(s.message(), "/nonexistent/dir/v.json: cannot read: no such file");
  s = load_case_file(OPCONFORM_TEST_DATA_DIR, &c);
  EXPECT_EQ(s.message(), std::string(OPCONFORM_TEST_DATA_DIR) + ": cannot read: is a directory");
  if (std::filesystem::exists("/dev/zero")) {  // endless: the reader stops at its size limit
    s = load_case_file("/dev/zero", &c);
    EXPECT_NE(s.message().find("/dev/zero: cannot read: larger than"), std::string::npos) << s;
  }
}

TEST(VectorErrors, FileErrorsNameTheFileAndField) {
  Case c;
  const std::string dir = OPCONFORM_TEST_DATA_DIR;
  Status s = load_case_file(dir + "/bad_data_length.json", &c);
  EXPECT_EQ(s.message(), dir + "/bad_data_length.json: inputs.block_shape.data: 3 elements for shape [2,2] (needs 4)");
  s = load_case_file(dir + "/invalid_json.json", &c);
  EXPECT_EQ(s.message().rfind(dir + "/invalid_json.json: invalid JSON: parse error at line 2", 0), 0u) << s;
}

TEST(VectorErrors, InvalidJson) {
  EXPECT_EQ(error_of("").rfind("x.json: invalid JSON: parse error at line 1, column 1", 0), 0u);
  EXPECT_EQ(error_of("{\"a\": 1,}").rfind("x.json: invalid JSON: ", 0), 0u);
  EXPECT_EQ(error_of("[1, 2] 3").rfind("x.json: invalid JSON: ", 0), 0u);
  EXPECT_EQ(error_of("{\"s\": \"\xff\"}").rfind("x.json: invalid JSON: ", 0), 0u);   // not UTF-8
  EXPECT_EQ(error_of(R"({"s": "\ud800"})").rfind("x.json: invalid JSON: ", 0), 0u);  // lone surrogate
  EXPECT_EQ(error_of(R"([NaN])").rfind("x.json: invalid JSON: ", 0), 0u);
  EXPECT_EQ(error_of("[1]"), "x.json: expected a JSON object, got [1]");
  // Deep nesting is neither a crash nor a stack overflow.
  EXPECT_EQ(error_of(std::string(100000, '[') + std::string(100000, ']')).rfind("x.json: expected a JSON object", 0),
            0u);
  EXPECT_EQ(error_of(replaced(kBase, "[1, 2, 3, 4]", std::string(100000, '[') + std::string(100000, ']'))),
            "x.json: inputs.input.data: 1 elements for shape [1,2,2,1] (needs 4)");
}

TEST(VectorErrors, TopLevelFields) {
  EXPECT_EQ(base_with(R"("op": "SpaceToBatchND")", R"("op": "SpaceToBatch")"),
            "x.json: op: unknown op \"SpaceToBatch\"");
  EXPECT_EQ(base_with(R"("op": "SpaceToBatchND",)", ""), "x.json: missing field \"op\"");
  EXPECT_EQ(base_with(R"("op": "SpaceToBatchND")", R"("op": 3)"), "x.json: op: expected a string, got 3");
  EXPECT_EQ(base_with("opconform-vector/1", "opconform-vector/2"),
            "x.json: format: expected \"opconform-vector/1\", got \"opconform-vector/2\"");
  EXPECT_EQ(base_with(R"("op":)", R"("comment": 1, "op":)"), "x.json: comment: unknown field");
  EXPECT_EQ(base_with(R"("expected")", R"("tags": "golden", "expected")"),
            "x.json: tags: expected an array of strings, got \"golden\"");
  EXPECT_EQ(base_with(R"("expected")", R"("tags": [1], "expected")"), "x.json: tags[0]: expected a string, got 1");
  EXPECT_EQ(base_with(R"("expected")", R"("profile": "gpu", "expected")"),
            "x.json: profile: unknown profile \"gpu\" (tf-cpu, xla, tflite)");
  EXPECT_EQ(base_with(R"("expected")", R"("memory_limit": -1, "expected")"),
            "x.json: memory_limit: must be >= 0, got -1");
  EXPECT_EQ(base_with(R"("expected")", R"("memory_limit": 1.5, "expected")"),
            "x.json: memory_limit: expected an integer, got 1.5");
  EXPECT_EQ(base_with(R"("expected")", R"("name": null, "expected")"), "x.json: name: expected a string, got null");
}

TEST(VectorErrors, Inputs) {
  EXPECT_EQ(base_with(R"("paddings")", R"("padding")"),
            "x.json: inputs.padding: not an input of this op (expected input, block_shape, paddings)");
  EXPECT_EQ(base_with(R"(,
            "paddings": {"dtype": "int32", "shape": [2, 2], "data": [0, 0, 0, 0]})",
                      ""),
            "x.json: inputs: missing field \"paddings\"");
  EXPECT_EQ(base_with(R"("block_shape": {"dtype": "int32", "shape": [2], "data": [2, 2]})",
                      R"("block_shape": [{"dtype": "int32", "shape": [2], "data": [2, 2]}])"),
            "x.json: inputs.block_shape: expected one tensor, got a list");
  EXPECT_EQ(
      error_of(replaced(replaced(kStitch, "RULE", ""),
                        R"("indices": [{"dtype": "int32", "shape": [2], "data": [0, 0]}])",
                        R"("indices": {"dtype": "int32", "shape": [2], "data": [0, 0]})")),
      "x.json: inputs.indices: expected an array of tensors (a list argument), got {\"data\":[0,0],\"dtype\":\"int32\",\"shape\"...");
  EXPECT_EQ(base_with(R"("inputs": {)", R"("inputs": 5, "x": {)"), "x.json: x: unknown field");
}

TEST(VectorErrors, Tensors) {
  EXPECT_EQ(base_with(R"("dtype": "int32", "shape": [2])", R"("dtype": "int31", "shape": [2])"),
            "x.json: inputs.block_shape.dtype: unknown dtype \"int31\"");
  EXPECT_EQ(base_with(R"("data": [2, 2])", R"("data": [2, 2, 2])"),
            "x.json: inputs.block_shape.data: 3 elements for shape [2] (needs 2)");
  EXPECT_EQ(base_with(R"("data": [2, 2])", R"("datum": [2, 2])"), "x.json: inputs.block_shape.datum: unknown field");
  EXPECT_EQ(base_with(R"("shape": [2], "data": [2, 2])", R"("data": [2, 2])"),
            "x.json: inputs.block_shape: missing field \"shape\"");
  EXPECT_EQ(base_with(R"(, "data": [2, 2])", ""), "x.json: inputs.block_shape: missing field \"data\" (or \"fill\")");
  EXPECT_EQ(base_with(R"("data": [2, 2])", R"("data": [2, 2], "fill": 2)"),
            "x.json: inputs.block_shape: has both \"data\" and \"fill\"");
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": "2", "data")"),
            "x.json: inputs.block_shape.shape: expected an array of dims, got \"2\"");
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": [-2], "data")"),
            "x.json: inputs.block_shape.shape[0]: negative dim -2");
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": [2.0], "data")"),
            "x.json: inputs.block_shape.shape[0]: expected an integer, got 2.0");
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": ["9223372036854775808"], "data")"),
            "x.json: inputs.block_shape.shape[0]: 9223372036854775808 is out of range for a dim");
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": [4294967296, 4294967296], "data")"),
            "x.json: inputs.block_shape.shape: the element count of [4294967296,4294967296] overflows int64");
  std::string rank300 = "[";
  for (int i = 0; i < 300; ++i) rank300 += i ? ", 1" : "1";
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": )" + rank300 + R"(], "data")"),
            "x.json: inputs.block_shape.shape: rank 300 exceeds 254");
  EXPECT_EQ(base_with(R"("data": [2, 2])", R"("data": {"0": 2})"),
            "x.json: inputs.block_shape.data: expected an array of elements, got {\"0\":2}");
  // A huge shape with few elements is caught by the length check before any allocation.
  EXPECT_EQ(base_with(R"("shape": [2], "data")", R"("shape": [1000000000000], "data")"),
            "x.json: inputs.block_shape.data: 2 elements for shape [1000000000000] (needs 1000000000000)");
}

TEST(VectorErrors, FillIsBounded) {
  EXPECT_EQ(base_with(R"("shape": [2], "data": [2, 2])", R"("shape": [1000000, 1000000], "fill": 1)"),
            "x.json: inputs.block_shape.fill: filling [1000000,1000000] exceeds the reader's limit "
            "(268435456 elements, 2147483648 bytes per vector)");
  EXPECT_EQ(base_with(R"("shape": [2], "data": [2, 2])", R"("shape": [268435457], "fill": 1)")
                .find("exceeds the reader's limit"),
            std::string("x.json: inputs.block_shape.fill: filling [268435457] ").size());
  // The byte budget is per vector (string payloads included); tested with smaller limits.
  const ReadLimits small{1000, 4000, 1 << 20};
  std::string many = "[";
  for (int i = 0; i < 3; ++i)
    many += std::string(i ? ", " : "") + R"({"dtype": "string", "shape": [40], "fill": "xxxxxxxx"})";
  const std::string text =
      replaced(replaced(kStitch, "RULE", ""), R"("data": [{"dtype": "int32", "shape": [2, 2], "data": [1, 2, 3, 4]}])",
               R"("data": )" + many + "]");
  Case c;
  EXPECT_TRUE(parse_case(text, "x.json", &c).ok());
  EXPECT_EQ(
      parse_case(text, "x.json", &c, small).message(),
      "x.json: inputs.data[2].fill: filling [40] exceeds the reader's limit (1000 elements, 4000 bytes per vector)");
  EXPECT_EQ(
      parse_case(replaced(kBase, R"("shape": [2], "data": [2, 2])", R"("shape": [1001], "fill": 1)"), "x.json", &c,
                 small)
          .message(),
      "x.json: inputs.block_shape.fill: filling [1001] exceeds the reader's limit (1000 elements, 4000 bytes per vector)");
  EXPECT_TRUE(parse_case(replaced(kBase, R"("shape": [2], "data": [2, 2])", R"("shape": [1000], "fill": 1)"), "x.json",
                         &c, small)
                  .ok());
  EXPECT_EQ(load_case_file(OPCONFORM_TEST_DATA_DIR "/readme_example.json", &c, ReadLimits{1, 1, 100}).message(),
            OPCONFORM_TEST_DATA_DIR "/readme_example.json: cannot read: larger than 100 bytes");
  EXPECT_EQ(base_with(R"("shape": [2], "data": [2, 2])", R"("shape": [2], "fill": 2.5)"),
            "x.json: inputs.block_shape.fill: expected an integer, got 2.5");
}

TEST(VectorErrors, Elements) {
  const auto element = [](const std::string& dtype, const std::string& value) {
    return base_with(R"("block_shape": {"dtype": "int32", "shape": [2], "data": [2, 2]})",
                     R"("block_shape": {"dtype": ")" + dtype + R"(", "shape": [1], "data": [)" + value + "]}");
  };
  const std::string at = "x.json: inputs.block_shape.data[0]: ";
  EXPECT_EQ(element("int8", "128"), at + "128 is out of range for int8");
  EXPECT_EQ(element("uint8", "-1"), at + "-1 is out of range for uint8");
  EXPECT_EQ(element("quint8", "256"), at + "256 is out of range for quint8");
  EXPECT_EQ(element("int64", "\"9223372036854775808\""), at + "9223372036854775808 is out of range for int64");
  EXPECT_EQ(element("uint64", "\"18446744073709551616\""), at + "18446744073709551616 is out of range for uint64");
  EXPECT_EQ(element("uint64", "18446744073709551616"), at + "expected an integer, got 1.8446744073709552e+19");
  EXPECT_EQ(element("int32", "1.5"), at + "expected an integer, got 1.5");
  EXPECT_EQ(element("int32", "true"), at + "expected an integer, got true");
  EXPECT_EQ(element("int32", "\"07\""), at + "expected an integer or a decimal string, got \"07\"");
  EXPECT_EQ(element("int32", "\"-0\""), at + "expected an integer or a decimal string, got \"-0\"");
  EXPECT_EQ(element("int32", "\"+7\""), at + "expected an integer or a decimal string, got \"+7\"");
  EXPECT_EQ(element("bool", "1"), at + "expected true or false, got 1");
  EXPECT_EQ(element("float32", "\"NaN\""),
            at + "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 8 hex digits, got \"NaN\"");
  EXPECT_EQ(element("float16", "\"0x12345\""),
            at + "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 4 hex digits, got \"0x12345\"");
  EXPECT_EQ(element("float32", "\"0x\""),
            at + "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 8 hex digits, got \"0x\"");
  EXPECT_EQ(element("float32", "\"0x-1\""),
            at + "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 8 hex digits, got \"0x-1\"");
  EXPECT_EQ(element("float32", "null"),
            at + "expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 8 hex digits, got null");
  EXPECT_EQ(element("complex64", "[1]"), at + "expected [real, imaginary], got [1]");
  EXPECT_EQ(
      element("complex64", "[1, \"x\"]"),
      "x.json: inputs.block_shape.data[0][1]: expected a number, \"inf\", \"-inf\", \"nan\" or \"0x\" and at most 8 hex digits, got \"x\"");
  EXPECT_EQ(element("string", "1"), at + "expected a string or {\"hex\": ...}, got 1");
  EXPECT_EQ(element("string", R"({"hex": "abc"})"),
            "x.json: inputs.block_shape.data[0].hex: expected an even number of hex digits");
  EXPECT_EQ(element("string", R"({"hex": "zz"})"),
            "x.json: inputs.block_shape.data[0].hex: expected an even number of hex digits");
  EXPECT_EQ(element("string", R"({"bytes": "00"})"), "x.json: inputs.block_shape.data[0].bytes: unknown field");
  EXPECT_EQ(element("string", R"({})"), at + "missing field \"hex\"");
}

TEST(VectorErrors, Attrs) {
  const std::string partition = R"({"format": "opconform-vector/1", "op": "DynamicPartition", ATTRS
    "inputs": {"data": {"dtype": "float32", "shape": [1], "data": [1]},
               "partitions": {"dtype": "int32", "shape": [1], "data": [0]}},
    "expected": {"outputs": {"outputs": [{"dtype": "float32", "shape": [1], "data": [1]}]}}})";
  Case c;
  EXPECT_TRUE(parse_case(replaced(partition, "ATTRS", R"("attrs": {"num_partitions": 1},)"), "x.json", &c).ok());
  EXPECT_EQ(error_of(replaced(partition, "ATTRS", "")), "x.json: missing field \"attrs\"");
  EXPECT_EQ(error_of(replaced(partition, "ATTRS", R"("attrs": {},)")),
            "x.json: attrs: missing field \"num_partitions\"");
  EXPECT_EQ(error_of(replaced(partition, "ATTRS", R"("attrs": {"num_partitions": 1, "T": 1},)")),
            "x.json: attrs.T: not an attribute of DynamicPartition");
  EXPECT_EQ(error_of(replaced(partition, "ATTRS", R"("attrs": {"num_partitions": "x"},)")),
            "x.json: attrs.num_partitions: expected an integer or a decimal string, got \"x\"");
  EXPECT_EQ(base_with(R"("inputs")", R"("attrs": {"concat_dim": 0}, "inputs")"),
            "x.json: attrs.concat_dim: not an attribute of SpaceToBatchND");
  EXPECT_EQ(error_of(replaced(replaced(partition, "ATTRS", R"("attrs": {"num_partitions": 1},)"),
                              R"("outputs": [{"dtype": "float32", "shape": [1], "data": [1]}])",
                              R"("outputs": {"dtype": "float32", "shape": [1], "data": [1]})"))
                .substr(0, 60),
            "x.json: expected.outputs.outputs: expected an array of tenso");
}

TEST(VectorErrors, Expected) {
  EXPECT_EQ(base_with(R"("INVALID_ARGUMENT")", R"("INVALID")"),
            "x.json: expected.error.code: unknown error code \"INVALID\"");
  EXPECT_EQ(base_with(R"("INVALID_ARGUMENT")", R"("OK")"), "x.json: expected.error.code: unknown error code \"OK\"");
  EXPECT_EQ(base_with(R"(, "message": "m")", ""), "x.json: expected.error: missing field \"message\"");
  EXPECT_EQ(base_with(R"("message": "m")", R"("message": ["m"])"),
            "x.json: expected.error.message: expected a string, got [\"m\"]");
  EXPECT_EQ(base_with(R"("expected": {"error")", R"("expected": {"outputs": {}, "error")"),
            "x.json: expected: has both \"outputs\" and \"error\"");
  EXPECT_EQ(base_with(R"("expected": {"error")", R"("expected": {"unspecified": [], "error")"),
            "x.json: expected.unspecified: only goes with \"outputs\"");
  EXPECT_EQ(base_with(R"("expected": {"error": {"code": "INVALID_ARGUMENT", "message": "m"}})", R"("expected": {})"),
            "x.json: expected: missing field \"outputs\" (or \"error\")");
  EXPECT_EQ(base_with(R"("expected": {"error": {"code": "INVALID_ARGUMENT", "message": "m"}})",
                      R"("expected": {"outputs": {}})"),
            "x.json: expected.outputs: missing field \"output\"");
  EXPECT_EQ(base_with(R"("expected": {"error": {"code": "INVALID_ARGUMENT", "message": "m"}})",
                      R"("expected": {"outputs": {"merged": 1}})"),
            "x.json: expected.outputs.merged: not an output of this op (expected output)");
}

TEST(VectorErrors, UnspecifiedRules) {
  EXPECT_EQ(error_of(replaced(replaced(kStitch, "RULE", R"({"rule": "one_of_rows", "output": "merged", "rows": {}})"),
                              R"("tags": ["unspecified"])", R"("tags": ["edge"])")),
            "x.json: tags: a vector with expected.unspecified carries the tag \"unspecified\"");
  EXPECT_EQ(rule_error(R"({"rule": "any"})"),
            "x.json: expected.unspecified[0].rule: unknown rule \"any\" (one_of_rows, permutation_within_equal_keys)");
  EXPECT_EQ(rule_error(R"("one_of_rows")"), "x.json: expected.unspecified[0]: expected an object, got \"one_of_rows\"");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "output", "rows": {}})"),
            "x.json: expected.unspecified[0].output: no output named \"output\"");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"1": [[1, 2]]}})"),
            "x.json: expected.unspecified[0].rows.1: not a row of merged (0 to 0)");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"00": [[1, 2]]}})"),
            "x.json: expected.unspecified[0].rows.00: not a row of merged (0 to 0)");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"0": [[1, 2, 3]]}})"),
            "x.json: expected.unspecified[0].rows.0[0]: 3 elements for a row of shape [2] (needs 2)");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"0": [1, 2]}})"),
            "x.json: expected.unspecified[0].rows.0[0]: expected an array of elements, got 1");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"0": [[1, 2.5]]}})"),
            "x.json: expected.unspecified[0].rows.0[0][1]: expected an integer, got 2.5");
  EXPECT_EQ(rule_error(R"({"rule": "one_of_rows", "output": "merged", "rows": {"0": [[1, 2]]}, "why": 1})"),
            "x.json: expected.unspecified[0].why: unknown field");
  EXPECT_EQ(rule_error(R"({"rule": "permutation_within_equal_keys", "keys": "merged"})"),
            "x.json: expected.unspecified[0]: missing field \"values\"");
}

// `alternatives` (a JSON array) added to kBase, which then carries the tag "deviation".
std::string alternatives_error(const std::string& alternatives) {
  return error_of(replaced(kBase, R"("message": "m"}})",
                           R"("message": "m"}}, "tags": ["deviation"], "alternatives": )" + alternatives));
}

TEST(VectorErrors, Alternatives) {
  const std::string good =
      R"([{"profiles": ["tf-cpu", "xla"], "outcome": {"error": {"code": "INTERNAL", "message": "t"}}, "why": "w"}])";
  Case c;
  const std::string valid =
      replaced(kBase, R"("message": "m"}})", R"("message": "m"}}, "tags": ["quirk"], "alternatives": )" + good);
  const Status s = parse_case(valid, "x.json", &c);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_EQ(c.alternatives.size(), 1u);
  EXPECT_TRUE(c.alternatives[0].allows("xla"));
  EXPECT_FALSE(c.alternatives[0].allows("tflite"));

  EXPECT_EQ(error_of(replaced(kBase, R"("message": "m"}})", R"("message": "m"}}, "alternatives": )" + good)),
            "x.json: tags: a vector with alternatives carries the tag \"deviation\" or \"quirk\"");
  EXPECT_EQ(alternatives_error("[]"), "x.json: alternatives: expected a non-empty array of alternatives, got []");
  EXPECT_EQ(alternatives_error("{}"), "x.json: alternatives: expected a non-empty array of alternatives, got {}");
  EXPECT_EQ(alternatives_error("[1]"), "x.json: alternatives[0]: expected an object, got 1");
  EXPECT_EQ(alternatives_error(replaced(good, R"("why": "w")", R"("why": "w", "note": 1)")),
            "x.json: alternatives[0].note: unknown field");
  EXPECT_EQ(alternatives_error(replaced(good, R"("profiles": ["tf-cpu", "xla"], )", "")),
            "x.json: alternatives[0]: missing field \"profiles\"");
  EXPECT_EQ(alternatives_error(replaced(good, R"(["tf-cpu", "xla"])", "[]")),
            "x.json: alternatives[0].profiles: expected a non-empty array of profiles, got []");
  EXPECT_EQ(alternatives_error(replaced(good, R"("xla")", R"("gpu")")),
            "x.json: alternatives[0].profiles[1]: unknown profile \"gpu\" (tf-cpu, xla, tflite)");
  EXPECT_EQ(alternatives_error(replaced(good, R"("xla")", R"("tf-cpu")")),
            "x.json: alternatives[0].profiles[1]: profile \"tf-cpu\" listed twice");
  EXPECT_EQ(alternatives_error(replaced(good, R"(, "why": "w")", "")),
            "x.json: alternatives[0]: missing field \"why\"");
  EXPECT_EQ(alternatives_error(replaced(good, R"("why": "w")", R"("why": "")")),
            "x.json: alternatives[0].why: empty (cite the contract)");
  EXPECT_EQ(alternatives_error(replaced(good, R"("INTERNAL")", R"("OK")")),
            "x.json: alternatives[0].outcome.error.code: unknown error code \"OK\"");
  EXPECT_EQ(alternatives_error(replaced(good, R"({"error": {"code": "INTERNAL", "message": "t"}})", "{}")),
            "x.json: alternatives[0].outcome: missing field \"outputs\" (or \"error\")");
  EXPECT_EQ(alternatives_error(
                replaced(good, R"({"error": {"code": "INTERNAL", "message": "t"}})", R"({"outputs": {"merged": 1}})")),
            "x.json: alternatives[0].outcome.outputs.merged: not an output of this op (expected output)");
  EXPECT_EQ(alternatives_error(replaced(good, R"({"error")", R"({"unspecified": [], "error")")),
            "x.json: alternatives[0].outcome.unspecified: only goes with \"outputs\"");
}

}  // namespace
}  // namespace opconform::conformance
