// The reader and the canonical writer: bit-exact round trips for every dtype, the element
// encodings of corpus/README.md, and the README's own examples.
#include "opconform/conformance/vector.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <set>

#include "opconform/conformance/format.h"
#include "scratch_folder.h"
#include "tensor_test_util.h"

namespace opconform::conformance {
namespace {

using namespace opconform::testing;

template <class T>
using limits = std::numeric_limits<T>;

template <class T, class Bits>
std::vector<T> from_bits(std::initializer_list<Bits> bits) {
  std::vector<T> out;
  for (Bits b : bits) {
    if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>)
      out.push_back(T{static_cast<std::uint16_t>(b)});
    else
      out.push_back(std::bit_cast<T>(b));
  }
  return out;
}

// One tensor per dtype holding its awkward values.
std::vector<Tensor> awkward_tensors() {
  using c64 = std::complex<float>;
  using c128 = std::complex<double>;
  const float nan_payload = std::bit_cast<float>(0x7fc00001u);
  const double nan_payload64 = std::bit_cast<double>(0x7ff0000000000001ull);
  return {
      tensor<float>({13}, from_bits<float, std::uint32_t>({0x00000000, 0x80000000, 0x3f800000, 0x3dcccccd, 0x7f800000,
                                                           0xff800000, 0x7fc00000, 0x7fc00001, 0xffc00000, 0x7f800001,
                                                           0x00000001, 0x7f7fffff, 0x4b800001})),
      tensor<double>({11}, from_bits<double, std::uint64_t>({0x0000000000000000, 0x8000000000000000, 0x3fb999999999999a,
                                                             0x7ff0000000000000, 0xfff0000000000000, 0x7ff8000000000000,
                                                             0x7ff8000000000001, 0xfff8000000000000, 0x0000000000000001,
                                                             0x7fefffffffffffff, 0x4340000000000001})),
      tensor<float16>({12}, from_bits<float16, int>({0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0x7c00, 0xfc00,
                                                     0x7e00, 0x7e01, 0xfe00, 0x3555})),
      tensor<bfloat16>({10}, from_bits<bfloat16, int>(
                                 {0x0000, 0x8000, 0x0001, 0x007f, 0x7f7f, 0x7f80, 0x7fc0, 0x7fc1, 0xffc0, 0x3dcd})),
      tensor<std::int8_t>({3}, {limits<std::int8_t>::min(), 0, limits<std::int8_t>::max()}),
      tensor<std::int16_t>({3}, {limits<std::int16_t>::min(), -1, limits<std::int16_t>::max()}),
      tensor<std::int32_t>({3}, {limits<std::int32_t>::min(), 7, limits<std::int32_t>::max()}),
      tensor<std::int64_t>({7},
                           {limits<std::int64_t>::min(), limits<std::int64_t>::max(), std::int64_t{1} << 53,
                            (std::int64_t{1} << 53) + 1, -(std::int64_t{1} << 53), -(std::int64_t{1} << 53) - 1, 0}),
      tensor<std::uint8_t>({2}, {0, 255}),
      tensor<std::uint16_t>({2}, {0, 65535}),
      tensor<std::uint32_t>({2}, {0, limits<std::uint32_t>::max()}),
      tensor<std::uint64_t>({4},
                            {0, limits<std::uint64_t>::max(), std::uint64_t{1} << 53, (std::uint64_t{1} << 53) + 1}),
      tensor<bool>({2}, {true, false}),
      tensor<c64>(
          {3}, {c64(nan_payload, -0.0f), c64(std::bit_cast<float>(1u), limits<float>::infinity()), c64(0.1f, -2.5f)}),
      tensor<c128>({2}, {c128(nan_payload64, -0.0), c128(0.1, limits<double>::lowest())}),
      tensor<std::string>({8}, {"", "a", std::string("\0b", 2), "\xff\xfe", "\xc3\xa9t\xc3\xa9", "\xed\xa0\x80",
                                "\"quote\\ \n\t\x01", std::string(3, '\0')}),
      tensor<qint8>({2}, {qint8{-128}, qint8{127}}),
      tensor<quint8>({2}, {quint8{0}, quint8{255}}),
      tensor<qint32>({2}, {qint32{limits<std::int32_t>::min()}, qint32{limits<std::int32_t>::max()}}),
  };
}

Case awkward_case() {
  Case c;
  c.op = Op::kDynamicStitch;  // the reader checks names and list-ness, not the op's dtypes
  c.inputs["indices"] = std::vector<Tensor>{tensor<std::int32_t>({2, 0}, {}), tensor<std::int32_t>({}, {3})};
  c.inputs["data"] = awkward_tensors();
  c.expected.outputs["merged"] = tensor<std::int64_t>({2, 2}, {1, -2, std::int64_t{1} << 60, 4});
  c.memory_limit = 12345;
  c.profile = "xla";
  c.tags = {"edge", "quirk"};
  c.provenance = "vector_test.cc";
  c.name = "awkward";
  return c;
}

void expect_same_values(const Values& a, const Values& b) {
  ASSERT_EQ(a.size(), b.size());
  for (const auto& [name, value] : a) {
    ASSERT_TRUE(b.count(name)) << name;
    const Value& other = b.at(name);
    ASSERT_EQ(value.index(), other.index()) << name;
    if (const Tensor* t = std::get_if<Tensor>(&value)) {
      EXPECT_TRUE(t->bit_equal(std::get<Tensor>(other)))
          << name << ": " << format_tensor(*t) << " vs " << format_tensor(std::get<Tensor>(other));
      continue;
    }
    const auto& list = std::get<std::vector<Tensor>>(value);
    const auto& other_list = std::get<std::vector<Tensor>>(other);
    ASSERT_EQ(list.size(), other_list.size()) << name;
    for (std::size_t i = 0; i < list.size(); ++i)
      EXPECT_TRUE(list[i].bit_equal(other_list[i]))
          << name << "[" << i << "]: " << format_tensor(list[i]) << " vs " << format_tensor(other_list[i]);
  }
}

Case reparse(const Case& c, std::string* text = nullptr) {
  const std::string json = to_json(c);
  if (text) *text = json;
  Case back;
  const Status s = parse_case(json, "round-trip", &back);
  EXPECT_TRUE(s.ok()) << s << "\n" << json;
  return back;
}

TEST(Vector, AlternativesRoundTrip) {
  Case c = awkward_case();
  Alternative error;
  error.profiles = {"tf-cpu", "xla"};
  error.outcome.error = Status(Code::kInternal, "TensorFlow's \"words\"");
  error.why = "docs/contract/README.md, an example";
  Alternative outputs;
  outputs.profiles = {"tflite"};
  outputs.outcome.outputs["merged"] = tensor<std::int64_t>({2, 2}, {5, 6, 7, 8});
  outputs.outcome.unspecified = {OneOfRows{"merged", {{1, {tensor<std::int64_t>({2}, {0, 0})}}}}};
  outputs.why = "another";
  c.alternatives = {error, outputs};
  std::string text;
  const Case back = reparse(c, &text);
  ASSERT_EQ(back.alternatives.size(), 2u) << text;
  EXPECT_EQ(back.alternatives[0].profiles, error.profiles);
  EXPECT_EQ(back.alternatives[0].outcome.error->to_string(), error.outcome.error->to_string());
  EXPECT_EQ(back.alternatives[0].why, error.why);
  EXPECT_EQ(back.alternatives[1].profiles, outputs.profiles);
  expect_same_values(back.alternatives[1].outcome.outputs, outputs.outcome.outputs);
  EXPECT_EQ(back.alternatives[1].outcome.unspecified.size(), 1u);
  EXPECT_EQ(to_json(back), text) << "the canonical form is a fixed point";
  EXPECT_LT(text.find("\"expected\""), text.find("\"alternatives\"")) << text;
}

TEST(Vector, EveryDTypeRoundTripsBitExactly) {
  const Case c = awkward_case();
  std::string text;
  const Case back = reparse(c, &text);
  expect_same_values(c.inputs, back.inputs);
  expect_same_values(c.expected.outputs, back.expected.outputs);
  EXPECT_EQ(back.memory_limit, 12345);
  EXPECT_EQ(back.profile, "xla");
  EXPECT_EQ(back.tags, c.tags);
  EXPECT_EQ(back.provenance, c.provenance);
  EXPECT_EQ(back.name, "awkward");
  EXPECT_EQ(back.source, "round-trip");
  EXPECT_EQ(to_json(back), text) << "the canonical form is a fixed point";
  // Every dtype is covered.
  std::set<DType> dtypes;
  for (const Tensor& t : std::get<std::vector<Tensor>>(c.inputs.at("data"))) dtypes.insert(t.dtype());
  EXPECT_EQ(dtypes.size(), static_cast<std::size_t>(kNumDTypes));
}

// `text` with its line breaks (and the indentation after them) removed.
std::string one_line(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\n') {
      out += text[i];
      continue;
    }
    while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    if (!out.empty() && out.back() == ',') out += ' ';
  }
  return out;
}

TEST(Vector, CanonicalElementSpellings) {
  std::string text;
  reparse(awkward_case(), &text);
  text = one_line(text);
  for (
      const char* expected :
      {R"("data": [0, -0.0, 1, 0.1, "inf", "-inf", "nan", "0x7fc00001", "0xffc00000", "0x7f800001", 1e-45,)",
       R"("0x7ff8000000000001")", R"("0xfe00")", R"("0x7fc1")", R"([0, -0.0, 6e-08, 6.1e-05,)",
       R"(["-9223372036854775808", "9223372036854775807", 9007199254740992, "9007199254740993", -9007199254740992, "-9007199254740993", 0])",
       R"([0, "18446744073709551615", 9007199254740992, "9007199254740993"])",
       R"([["0x7fc00001", -0.0], [1e-45, "inf"], [0.1, -2.5]])",
       R"(["", "a", "\u0000b", {"hex": "fffe"}, "été", {"hex": "eda080"}, "\"quote\\ \n\t\u0001", "\u0000\u0000\u0000"])",
       R"("shape": [2, 0], "data": [])", R"("shape": [], "data": [3])", R"("memory_limit": 12345)",
       R"("data": [1, -2, "1152921504606846976", 4])", R"([-128, 127])", R"(["edge", "quirk"])"}) {
    EXPECT_NE(text.find(expected), std::string::npos) << "missing: " << expected << "\nin:\n" << text;
  }
}

TEST(Vector, ReadsElementsAsTheReadmeSays) {
  const char* text = R"({
    "format": "opconform-vector/1", "op": "DynamicStitch",
    "inputs": {"indices": [], "data": [
      {"dtype": "float32", "shape": [4], "data": [0.1, -0.0, 3.5e38, 16777217]},
      {"dtype": "float16", "shape": [3], "data": [0.1, "0X7E00", "-inf"]},
      {"dtype": "float16", "shape": [3], "data": [65520, 1.00048828125, "0x1"]},
      {"dtype": "bfloat16", "shape": [1], "data": [0.1]},
      {"dtype": "int64", "shape": [3], "data": [9223372036854775807, "-9223372036854775808", "12"]},
      {"dtype": "uint64", "shape": [1], "data": [18446744073709551615]},
      {"dtype": "string", "shape": [2], "data": [{"hex": "00FF"}, "\u00e9"]},
      {"dtype": "int32", "shape": [2, 3], "fill": -5}
    ]},
    "expected": {"error": {"code": "INVALID_ARGUMENT", "message": "m"}}
  })";
  Case c;
  // "0X7E00" is not a spelling the README allows.
  ASSERT_FALSE(parse_case(text, "t", &c).ok());
  std::string fixed = text;
  fixed.replace(fixed.find("0X7E00"), 6, "0x7E00");
  const Status s = parse_case(fixed, "t", &c);
  ASSERT_TRUE(s.ok()) << s;
  const auto& data = std::get<std::vector<Tensor>>(c.inputs.at("data"));
  EXPECT_TRUE(data[0].bit_equal(f32_bits({4}, {0x3dcccccd, 0x80000000, 0x7f800000, 0x4b800000})));
  EXPECT_TRUE(data[1].bit_equal(tensor<float16>({3}, {{0x2e66}, {0x7e00}, {0xfc00}})));
  EXPECT_TRUE(data[2].bit_equal(tensor<float16>({3}, {{0x7c00}, {0x3c00}, {0x0001}})));
  EXPECT_TRUE(data[3].bit_equal(tensor<bfloat16>({1}, {{0x3dcd}})));
  EXPECT_TRUE(
      data[4].bit_equal(tensor<std::int64_t>({3}, {limits<std::int64_t>::max(), limits<std::int64_t>::min(), 12})));
  EXPECT_TRUE(data[5].bit_equal(tensor<std::uint64_t>({1}, {limits<std::uint64_t>::max()})));
  EXPECT_TRUE(data[6].bit_equal(tensor<std::string>({2}, {std::string("\0\xff", 2), "\xc3\xa9"})));
  EXPECT_TRUE(data[7].bit_equal(tensor<std::int32_t>({2, 3}, {-5, -5, -5, -5, -5, -5})));
  EXPECT_EQ(c.memory_limit, kDefaultMemoryLimit);
  EXPECT_EQ(c.profile, "tf-cpu");
  EXPECT_EQ(c.display_name(), "t");
  // nlohmann-json refuses numbers beyond the double range (writers spell them "inf").
  fixed.replace(fixed.find("3.5e38"), 6, "1e400");
  EXPECT_EQ(parse_case(fixed, "t", &c).message(), "t: invalid JSON: number overflow parsing '1e400'");
}

TEST(Vector, ReadmeExamplesLoad) {
  Case c;
  Status s = load_case_file(OPCONFORM_TEST_DATA_DIR "/readme_example.json", &c);
  ASSERT_TRUE(s.ok()) << s;
  EXPECT_EQ(c.op, Op::kSpaceToBatchND);
  EXPECT_TRUE(c.has_tag("golden"));
  EXPECT_EQ(c.display_name(), "readme_example");
  EXPECT_TRUE(std::get<Tensor>(c.expected.outputs.at("output")).bit_equal(tensor<float>({4, 1, 1, 1}, {1, 2, 3, 4})));
  // The canonical form of the README's example is the README's text up to spacing.
  EXPECT_EQ(to_json(c), R"({
  "format": "opconform-vector/1",
  "op": "SpaceToBatchND",
  "inputs": {
    "input": {"dtype": "float32", "shape": [1, 2, 2, 1], "data": [1, 2, 3, 4]},
    "block_shape": {"dtype": "int32", "shape": [2], "data": [2, 2]},
    "paddings": {"dtype": "int32", "shape": [2, 2], "data": [0, 0, 0, 0]}
  },
  "expected": {
    "outputs": {
      "output": {"dtype": "float32", "shape": [4, 1, 1, 1], "data": [1, 2, 3, 4]}
    }
  },
  "tags": ["golden"],
  "provenance": "docs/contract/space_to_batch_nd.md, golden example 1"
}
)");
  s = load_case_file(OPCONFORM_TEST_DATA_DIR "/readme_error_example.json", &c);
  ASSERT_TRUE(s.ok()) << s;
  ASSERT_TRUE(c.expected.error.has_value());
  EXPECT_EQ(c.expected.error->code(), Code::kInvalidArgument);
  EXPECT_EQ(std::get<std::vector<Tensor>>(c.inputs.at("data")).size(), 2u);
  const Case back = reparse(c);
  EXPECT_EQ(*back.expected.error, *c.expected.error);
}

TEST(Vector, AttrsErrorsAndRulesRoundTrip) {
  Case partition;
  partition.op = Op::kDynamicPartition;
  partition.attrs["num_partitions"] = -(std::int64_t{1} << 60);
  partition.inputs["data"] = tensor<float>({2}, {1, 2});
  partition.inputs["partitions"] = tensor<std::int32_t>({2}, {0, 1});
  partition.expected.error = Status(Code::kInvalidArgument, "bad \"num\"\n\u00e9");
  partition.tags = {"message:code-only"};
  Case back = reparse(partition);
  EXPECT_EQ(back.attrs, partition.attrs);
  EXPECT_EQ(*back.expected.error, *partition.expected.error);

  Case concat;
  concat.op = Op::kSparseConcat;
  concat.attrs["concat_dim"] = 0;
  for (const char* name : {"indices", "values", "shapes"}) concat.inputs[name] = std::vector<Tensor>{};
  concat.expected.outputs["output_indices"] = tensor<std::int64_t>({2, 1}, {0, 0});
  concat.expected.outputs["output_values"] = tensor<std::string>({2}, {"a", "b"});
  concat.expected.outputs["output_shape"] = tensor<std::int64_t>({1}, {1});
  concat.expected.unspecified.push_back(PermutationWithinEqualKeys{"output_indices", "output_values"});
  concat.expected.unspecified.push_back(OneOfRows{"output_values", {{1, {tensor<std::string>({}, {"\xff"})}}}});
  concat.tags = {"unspecified"};
  std::string text;
  back = reparse(concat, &text);
  ASSERT_EQ(back.expected.unspecified.size(), 2u);
  const auto& p = std::get<PermutationWithinEqualKeys>(back.expected.unspecified[0]);
  EXPECT_EQ(p.keys, "output_indices");
  EXPECT_EQ(p.values, "output_values");
  const auto& rows = std::get<OneOfRows>(back.expected.unspecified[1]);
  EXPECT_EQ(rows.output, "output_values");
  ASSERT_EQ(rows.rows.size(), 1u);
  EXPECT_TRUE(rows.rows.at(1).at(0).bit_equal(tensor<std::string>({}, {"\xff"})));
  EXPECT_NE(text.find(R"("rows": {"1": [[{"hex": "ff"}]]})"), std::string::npos) << text;
}

TEST(Vector, LargeTensorsWrapAndUniformOnesFill) {
  Case c;
  c.op = Op::kDynamicPartition;
  c.attrs["num_partitions"] = 1;
  std::vector<std::int32_t> iota(300);
  for (int i = 0; i < 300; ++i) iota[i] = i * 1000;
  c.inputs["data"] = tensor<std::int32_t>({300}, iota);
  c.inputs["partitions"] = Tensor(DType::kInt32, Shape{3, 100});
  c.expected.outputs["outputs"] = std::vector<Tensor>{Tensor(DType::kFloat64, Shape{65})};
  std::string text;
  const Case back = reparse(c, &text);
  expect_same_values(c.inputs, back.inputs);
  expect_same_values(c.expected.outputs, back.expected.outputs);
  EXPECT_NE(text.find(R"("shape": [3, 100], "fill": 0)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"("shape": [65], "fill": 0)"), std::string::npos) << text;
  EXPECT_NE(text.find("\"shape\": [300],\n      \"data\": [\n        0, 1000, 2000,"), std::string::npos) << text;
  for (std::size_t begin = 0, end; begin < text.size(); begin = end + 1) {
    end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    EXPECT_LE(end - begin, 100u) << text.substr(begin, end - begin);
  }
}

TEST(Vector, SaveAndLoadFile) {
  const Case c = awkward_case();
  const std::string path = (testing::scratch_folder("vector-test", "save") / "case.json").string();
  ASSERT_TRUE(save_case_file(c, path).ok());
  Case back;
  const Status s = load_case_file(path, &back);
  ASSERT_TRUE(s.ok()) << s;
  expect_same_values(c.inputs, back.inputs);
  EXPECT_EQ(read_text(path), to_json(c));
  EXPECT_EQ(back.source, path);
}

TEST(Vector, Signatures) {
  EXPECT_EQ(op_from_name("ParallelDynamicStitch"), Op::kParallelDynamicStitch);
  EXPECT_FALSE(op_from_name("Foo").has_value());
  const OpSignature& s = op_signature(Op::kSparseConcat);
  ASSERT_EQ(s.inputs.size(), 3u);
  EXPECT_TRUE(s.inputs[2].is_list);
  EXPECT_EQ(s.inputs[2].name, "shapes");
  EXPECT_EQ(s.attrs[0], "concat_dim");
  EXPECT_EQ(s.outputs[1].name, "output_values");
  EXPECT_TRUE(op_signature(Op::kDynamicPartition).outputs[0].is_list);
  for (Op op : kAllOps) EXPECT_EQ(op_from_name(op_name(op)), op);
}

}  // namespace
}  // namespace opconform::conformance
