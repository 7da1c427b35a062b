// The subprocess protocol's pieces: framing, manifest, run/result messages, manifest limits.
#include <gtest/gtest.h>

#include "opconform/conformance/compare.h"
#include "opconform/validator/protocol.h"

namespace opconform::validator {
namespace {

conformance::Case stitch_case(Tensor data) {
  conformance::Case c;
  c.op = Op::kDynamicStitch;
  c.name = "unit";
  c.inputs["indices"] = std::vector<Tensor>{Tensor::from_values<std::int32_t>({2}, {1, 0})};
  c.inputs["data"] = std::vector<Tensor>{std::move(data)};
  c.memory_limit = 12345;
  return c;
}

TEST(Protocol, FramesCutAtAnyByteBoundary) {
  const std::string wire = frame("{\"a\":1}") + frame("{}");
  FrameDecoder decoder;
  std::vector<std::string> bodies;
  std::string error;
  for (char ch : wire) {
    decoder.feed(&ch, 1);
    while (auto body = decoder.next(&error)) bodies.push_back(*body);
  }
  EXPECT_TRUE(error.empty());
  EXPECT_EQ(bodies, (std::vector<std::string>{"{\"a\":1}", "{}"}));

  FrameDecoder bad;
  const char zero[4] = {0, 0, 0, 0};
  bad.feed(zero, 4);
  EXPECT_FALSE(bad.next(&error));
  EXPECT_NE(error.find("outside [1, 2^30]"), std::string::npos);
}

TEST(Protocol, ManifestRoundTripAndErrors) {
  Manifest m;
  m.name = "x";
  m.profile = "tflite";
  m.ops.push_back(OpCaps{Op::kSpaceToBatchND, 1u << static_cast<int>(DType::kFloat32),
                         1u << static_cast<int>(DType::kInt32), 3, 4, 1, 2});
  Manifest back;
  ASSERT_TRUE(parse_manifest_message(manifest_message(m), &back).ok());
  EXPECT_EQ(back.name, "x");
  EXPECT_EQ(back.profile, "tflite");
  ASSERT_EQ(back.ops.size(), 1u);
  EXPECT_EQ(back.ops[0].dtypes, m.ops[0].dtypes);
  EXPECT_EQ(back.ops[0].max_rank, 4);
  EXPECT_EQ(back.ops[0].max_block_dims, 2);

  EXPECT_EQ(parse_manifest_message(load_error_message("no GPU"), &back).message(), "no GPU");
  EXPECT_FALSE(parse_manifest_message("[]", &back).ok());
  EXPECT_FALSE(parse_manifest_message(R"({"type":"manifest","protocol":2,"ops":[]})", &back).ok());
  EXPECT_FALSE(parse_manifest_message(
                   R"({"type":"manifest","protocol":1,"ops":[{"op":"Nope","dtypes":[],"param_dtypes":[]}]})", &back)
                   .ok());
  const Status s = parse_manifest_message(
      R"({"type":"manifest","protocol":1,"ops":[{"op":"DynamicStitch","dtypes":["float33"],"param_dtypes":[]}]})",
      &back);
  EXPECT_NE(s.message().find("unknown dtype \"float33\""), std::string::npos) << s.message();
}

TEST(Protocol, RunAndResultCarryBitExactVectors) {
  const float nan_payload = std::bit_cast<float>(0x7fc00001u);
  const conformance::Case c = stitch_case(Tensor::from_values<float>({2}, {-0.0f, nan_payload}));
  std::int64_t id = 0;
  conformance::Case back;
  ASSERT_TRUE(parse_run_message(run_message(7, c), &id, &back).ok());
  EXPECT_EQ(id, 7);
  EXPECT_EQ(back.memory_limit, 12345);
  EXPECT_TRUE(std::get<std::vector<Tensor>>(back.inputs["data"])[0].bit_equal(
      std::get<std::vector<Tensor>>(c.inputs.at("data"))[0]));

  ImplAnswer answer;
  answer.kind = ImplAnswer::Kind::kOutputs;
  answer.outputs["merged"] = Tensor::from_values<float>({2}, {nan_payload, -0.0f});
  ImplAnswer parsed;
  ASSERT_TRUE(parse_result_message(result_message(7, c, answer), c, 7, &parsed).ok());
  ASSERT_EQ(parsed.kind, ImplAnswer::Kind::kOutputs);
  EXPECT_TRUE(std::get<Tensor>(parsed.outputs["merged"]).bit_equal(std::get<Tensor>(answer.outputs["merged"])));

  answer.kind = ImplAnswer::Kind::kError;
  answer.error = Status(Code::kUnimplemented, "strings \"quoted\"");
  ASSERT_TRUE(parse_result_message(result_message(7, c, answer), c, 7, &parsed).ok());
  EXPECT_EQ(parsed.error, answer.error);
}

TEST(Protocol, StringsSurviveTheRoundTrip) {
  const conformance::Case c =
      stitch_case(Tensor::from_values<std::string>({2}, {std::string("a\0b", 3), std::string("\xff\xfe", 2)}));
  std::int64_t id = 0;
  conformance::Case back;
  ASSERT_TRUE(parse_run_message(run_message(1, c), &id, &back).ok());
  EXPECT_TRUE(std::get<std::vector<Tensor>>(back.inputs["data"])[0].bit_equal(
      std::get<std::vector<Tensor>>(c.inputs.at("data"))[0]));
}

TEST(Protocol, MalformedResultsAreErrors) {
  const conformance::Case c = stitch_case(Tensor::from_values<float>({2}, {1, 2}));
  ImplAnswer a;
  EXPECT_FALSE(parse_result_message("not json", c, 1, &a).ok());
  EXPECT_FALSE(parse_result_message(R"({"type":"result","id":2,"fault":"x"})", c, 1, &a).ok());
  EXPECT_FALSE(parse_result_message(R"({"type":"result","id":1})", c, 1, &a).ok());
  EXPECT_FALSE(parse_result_message(
                   R"({"type":"result","id":1,"error":{"code":"OK","message":""}})", c, 1, &a)
                   .ok());
  EXPECT_FALSE(parse_result_message(
                   R"({"type":"result","id":1,"outputs":{"merged":{"dtype":"float32","shape":[2],"data":[1]}}})", c,
                   1, &a)
                   .ok());
  ASSERT_TRUE(parse_result_message(R"({"type":"result","id":1,"fault":"bad pointer"})", c, 1, &a).ok());
  EXPECT_EQ(a.kind, ImplAnswer::Kind::kFault);
  EXPECT_EQ(a.fault, "bad pointer");
}

TEST(Protocol, InsideManifestNamesTheFirstLimit) {
  Manifest m;
  m.ops.push_back(OpCaps{Op::kDynamicStitch, 1u << static_cast<int>(DType::kFloat32),
                         1u << static_cast<int>(DType::kInt32), 0, 1, 0, -1});
  std::string reason;
  EXPECT_TRUE(inside_manifest(m, stitch_case(Tensor::from_values<float>({2}, {1, 2})), &reason));
  EXPECT_FALSE(inside_manifest(m, stitch_case(Tensor::from_values<double>({2}, {1, 2})), &reason));
  EXPECT_EQ(reason, "data dtype float64 not declared");
  EXPECT_FALSE(inside_manifest(m, stitch_case(Tensor::from_values<float>({2, 1}, {1, 2})), &reason));
  EXPECT_EQ(reason, "data rank 2 > max_rank 1");
  conformance::Case other;
  other.op = Op::kSparseConcat;
  EXPECT_FALSE(inside_manifest(m, other, &reason));
  EXPECT_EQ(reason, "SparseConcat not listed");
}

}  // namespace
}  // namespace opconform::validator
