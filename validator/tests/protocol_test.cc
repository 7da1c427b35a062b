// The subprocess protocol's pieces: framing, manifest, version negotiation, run/result messages
// in text and binary, manifest limits.
#include <filesystem>
#include <span>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "opconform/conformance/compare.h"
#include "opconform/validator/protocol.h"
#include "opconform/validator/worker_client.h"

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
  EXPECT_FALSE(parse_manifest_message(R"({"type":"manifest","protocol":3,"ops":[]})", &back).ok());
  EXPECT_FALSE(parse_manifest_message(R"({"type":"manifest","protocol":0,"ops":[]})", &back).ok());
  EXPECT_FALSE(parse_manifest_message(R"({"type":"manifest","protocol":2,"ops":[]})", &back, kProtocolVersion).ok());
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
  EXPECT_FALSE(parse_result_message(R"({"type":["result"],"id":1,"fault":"x"})", c, 1, &a).ok());
  EXPECT_FALSE(parse_result_message(R"({"type":"result","id":1,"error":{"code":"OK","message":""}})", c, 1, &a).ok());
  EXPECT_FALSE(
      parse_result_message(
          R"({"type":"result","id":1,"outputs":{"merged":{"dtype":"float32","shape":[2],"data":[1]}}})", c, 1, &a)
          .ok());
  ASSERT_TRUE(parse_result_message(R"({"type":"result","id":1,"fault":"bad pointer"})", c, 1, &a).ok());
  EXPECT_EQ(a.kind, ImplAnswer::Kind::kFault);
  EXPECT_EQ(a.fault, "bad pointer");
}

TEST(Protocol, TheHandshakeNegotiatesTheHighestVersionBothSpeak) {
  EXPECT_EQ(negotiate_protocol(hello_message()), kBinaryProtocolVersion);
  EXPECT_EQ(negotiate_protocol(hello_message(kProtocolVersion)), kProtocolVersion);
  EXPECT_EQ(negotiate_protocol(hello_message(), kProtocolVersion), kProtocolVersion);
  EXPECT_EQ(negotiate_protocol(R"({"type":"hello","protocol":1})"), kProtocolVersion);  // an older validator
  EXPECT_EQ(negotiate_protocol(R"({"type":"hello","protocol":1,"protocols":[1,2,7]})"), kBinaryProtocolVersion);
  EXPECT_EQ(negotiate_protocol("not json"), kProtocolVersion);
  // The hello keeps "protocol": 1, so a program that reads only that still answers.
  EXPECT_EQ(nlohmann::json::parse(hello_message())["protocol"], 1);

  Manifest m;
  m.protocol = kBinaryProtocolVersion;
  Manifest back;
  ASSERT_TRUE(parse_manifest_message(manifest_message(m), &back).ok());
  EXPECT_EQ(back.protocol, kBinaryProtocolVersion);
  m.protocol = kProtocolVersion;
  ASSERT_TRUE(parse_manifest_message(manifest_message(m), &back).ok());
  EXPECT_EQ(back.protocol, kProtocolVersion);
}

// Every dtype's bits, a string with NUL and non-UTF-8 bytes, and empty tensors cross version 2
// unchanged, in both directions.
TEST(Protocol, BinaryRunAndResultCarryEveryDtypeBitExact) {
  for (DType dtype : std::span(all_dtypes(), kNumDTypes)) {
    Tensor data(dtype, {3});
    if (dtype == DType::kString) {
      data = Tensor::from_values<std::string>({3}, {std::string("a\0b", 3), "", std::string("\xff\xfe", 2)});
    } else if (dtype == DType::kBool) {
      data = Tensor::from_values<bool>({3}, {true, false, true});
    } else {
      auto* bytes = static_cast<unsigned char*>(data.raw_data());
      for (std::size_t i = 0; i < 3 * dtype_storage_size(dtype); ++i)
        bytes[i] = static_cast<unsigned char>(0x81 + 7 * i);
    }
    conformance::Case c = stitch_case(data);
    c.inputs["indices"] =
        std::vector<Tensor>{Tensor::from_values<std::int32_t>({3}, {2, 0, 1}), Tensor(DType::kInt32, {0, 5})};
    std::get<std::vector<Tensor>>(c.inputs["data"]).push_back(Tensor(dtype, {0, 5, 2}));
    std::int64_t id = 0;
    conformance::Case back;
    ASSERT_TRUE(parse_run_message(run_message(9, c, kBinaryProtocolVersion), &id, &back, kBinaryProtocolVersion).ok())
        << dtype_name(dtype);
    EXPECT_EQ(id, 9);
    EXPECT_EQ(back.op, c.op);
    EXPECT_EQ(back.memory_limit, 12345);
    for (const char* name : {"indices", "data"}) {
      const auto& sent = std::get<std::vector<Tensor>>(c.inputs.at(name));
      const auto& got = std::get<std::vector<Tensor>>(back.inputs.at(name));
      ASSERT_EQ(got.size(), sent.size());
      for (std::size_t i = 0; i < sent.size(); ++i) EXPECT_TRUE(got[i].bit_equal(sent[i])) << name << " " << i;
    }

    ImplAnswer answer;
    answer.kind = ImplAnswer::Kind::kOutputs;
    answer.outputs["merged"] = data;
    ImplAnswer parsed;
    const Status s = parse_result_message(result_message(9, c, answer, kBinaryProtocolVersion), c, 9, &parsed,
                                          kBinaryProtocolVersion);
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(parsed.kind, ImplAnswer::Kind::kOutputs);
    EXPECT_TRUE(std::get<Tensor>(parsed.outputs["merged"]).bit_equal(data)) << dtype_name(dtype);
  }
}

TEST(Protocol, BinaryResultsCarryListsErrorsAndFaults) {
  conformance::Case c;
  c.op = Op::kDynamicPartition;
  c.attrs["num_partitions"] = 2;
  c.inputs["data"] = Tensor::from_values<float>({2}, {1, 2});
  c.inputs["partitions"] = Tensor::from_values<std::int32_t>({2}, {1, 0});
  std::int64_t id = 0;
  conformance::Case back;
  ASSERT_TRUE(parse_run_message(run_message(3, c, kBinaryProtocolVersion), &id, &back, kBinaryProtocolVersion).ok());
  EXPECT_EQ(back.attrs, c.attrs);

  ImplAnswer answer;
  answer.kind = ImplAnswer::Kind::kOutputs;
  answer.outputs["outputs"] =
      std::vector<Tensor>{Tensor::from_values<float>({1}, {2}), Tensor::from_values<float>({1}, {1})};
  ImplAnswer parsed;
  ASSERT_TRUE(parse_result_message(result_message(3, c, answer, 2), c, 3, &parsed, 2).ok());
  const auto& outputs = std::get<std::vector<Tensor>>(parsed.outputs["outputs"]);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(outputs[1].bit_equal(Tensor::from_values<float>({1}, {1})));

  answer.kind = ImplAnswer::Kind::kError;
  answer.error = Status(Code::kInvalidArgument, "partitions[1] = 7 is not in [0, 2)");
  ASSERT_TRUE(parse_result_message(result_message(3, c, answer, 2), c, 3, &parsed, 2).ok());
  EXPECT_EQ(parsed.error, answer.error);
  answer.kind = ImplAnswer::Kind::kFault;
  answer.fault = std::string(5000, 'f');
  ASSERT_TRUE(parse_result_message(result_message(3, c, answer, 2), c, 3, &parsed, 2).ok());
  EXPECT_EQ(parsed.kind, ImplAnswer::Kind::kFault);
  EXPECT_NE(parsed.fault.find("(5000 bytes in all)"), std::string::npos);  // the text cap holds
}

// A version-2 body: the header's length, the header, then the payload.
std::string binary_body(const std::string& header, const std::string& payload) {
  std::string body;
  for (int i = 0; i < 4; ++i) body.push_back(static_cast<char>((header.size() >> (8 * i)) & 0xff));
  return body + header + payload;
}

std::string merged_result(const std::string& tensor) {
  return R"({"type":"result","id":1,"outputs":{"merged":)" + tensor + "}}";
}

TEST(Protocol, MalformedBinaryResultsAreErrorsBeforeAnyAllocation) {
  const conformance::Case c = stitch_case(Tensor::from_values<float>({2}, {1, 2}));
  const std::string eight(8, '\0');
  const auto error = [&](const std::string& body) {
    ImplAnswer a;
    const Status s = parse_result_message(body, c, 1, &a, kBinaryProtocolVersion);
    return s.ok() ? std::string("(accepted)") : s.message();
  };
  const auto contains = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
  // The well-formed body these break.
  EXPECT_EQ(error(binary_body(merged_result(R"({"dtype":"float32","shape":[2],"offset":0,"bytes":8})"), eight)),
            "(accepted)");
  EXPECT_TRUE(contains(error("ab"), "no header length"));
  EXPECT_TRUE(contains(error(std::string("\xff\xff\xff\x0f{}", 6)), "beyond the body"));
  EXPECT_TRUE(contains(error(binary_body("[1]", "")), "not a JSON object"));
  EXPECT_TRUE(contains(error(binary_body(std::string(65, '[') + std::string(65, ']'), "")), "nested deeper than 64"));
  EXPECT_TRUE(contains(error(binary_body(R"({"type":"result","id":2,"fault":"x"})", "")), "id must be 1"));
  // Offsets and sizes outside the payload, however large, and sizes that do not match.
  for (const char* where : {R"("offset":1,"bytes":8)", R"("offset":18446744073709551615,"bytes":8)",
                            R"("offset":0,"bytes":18446744073709551615)", R"("offset":-1,"bytes":8)"})
    EXPECT_TRUE(contains(
        error(binary_body(merged_result(std::string(R"({"dtype":"float32","shape":[2],)") + where + "}"), eight)),
        "inside the payload"))
        << where;
  EXPECT_TRUE(
      contains(error(binary_body(merged_result(R"({"dtype":"float32","shape":[3],"offset":0,"bytes":8})"), eight)),
               "8 bytes for float32 [3]"));
  EXPECT_TRUE(contains(
      error(binary_body(merged_result(R"({"dtype":"float32","shape":[4611686018427387904,4],"offset":0,"bytes":8})"),
                        eight)),
      "overflows int64"));
  EXPECT_TRUE(
      contains(error(binary_body(merged_result(R"({"dtype":"float32","shape":[-2],"offset":0,"bytes":8})"), eight)),
               "int64 >= 0"));
  EXPECT_TRUE(contains(error(binary_body(merged_result(R"({"dtype":"bool","shape":[8],"offset":0,"bytes":8})"),
                                         std::string("\1\0\2\0\0\0\0\0", 8))),
                       "bool element 2 is the byte 2"));
  // Strings: more elements than lengths could fit, a length past the end, bytes left over.
  EXPECT_TRUE(contains(
      error(binary_body(merged_result(R"({"dtype":"string","shape":[1000000000],"offset":0,"bytes":8})"), eight)),
      "cannot hold 1000000000 strings"));
  EXPECT_TRUE(contains(error(binary_body(merged_result(R"({"dtype":"string","shape":[1],"offset":0,"bytes":8})"),
                                         std::string("\5\0\0\0abc", 7) + "d")),
                       "runs past its bytes"));
  EXPECT_TRUE(contains(error(binary_body(merged_result(R"({"dtype":"string","shape":[1],"offset":0,"bytes":8})"),
                                         std::string("\1\0\0\0abcd", 8))),
                       "3 bytes after the last string"));
  // The op's outputs, no more and no fewer.
  EXPECT_TRUE(contains(error(binary_body(R"({"type":"result","id":1,"outputs":{}})", "")), "outputs.merged: missing"));
  EXPECT_TRUE(contains(error(binary_body(R"({"type":"result","id":1,"outputs":{"merged":[],"extra":[]}})", "")),
                       "not a value of this op"));
  EXPECT_TRUE(
      contains(error(binary_body(R"({"type":"result","id":1,"outputs":{"merged":[]}})", "")), "expected one tensor"));
  EXPECT_TRUE(contains(
      error(binary_body(merged_result(R"({"dtype":"float32","shape":[2],"offset":0,"bytes":8,"x":1})"), eight)),
      "unknown field"));
  EXPECT_TRUE(contains(error(binary_body(R"({"type":"result","id":1,"error":{"code":"OK","message":""}})", "")),
                       "not an error code"));
  EXPECT_TRUE(contains(error(binary_body(R"({"type":1,"id":1,"fault":"x"})", "")), "expected a \"result\""));

  // No payload byte backs two tensors: a header cannot make a small payload allocate much.
  conformance::Case partition;
  partition.op = Op::kDynamicPartition;
  partition.attrs["num_partitions"] = 2;
  const std::string twice = R"({"type":"result","id":1,"outputs":{"outputs":[)"
                            R"({"dtype":"float32","shape":[2],"offset":0,"bytes":8},)"
                            R"({"dtype":"float32","shape":[2],"offset":0,"bytes":8}]}})";
  ImplAnswer a;
  const Status s = parse_result_message(binary_body(twice, eight), partition, 1, &a, kBinaryProtocolVersion);
  EXPECT_TRUE(contains(s.message(), "outputs.outputs[1]: the tensors claim more than the payload's 8 bytes"))
      << s.message();
}

// The C worker negotiates version 2 and answers every corpus vector exactly as it does in
// version 1; a program that speaks only version 1 keeps it.
TEST(ProtocolVersions, TheCWorkerAnswersAlikeInTextAndBinary) {
  WorkerOptions options;
  options.argv = {OPCONFORM_TEST_WORKER, OPCONFORM_TEST_BUNDLED_PLUGIN};
  options.timeout_seconds = 300;  // the large vectors' JSON text takes long in a sanitized build
  Worker binary(options);
  options.max_protocol = kProtocolVersion;
  Worker text(options);
  Manifest m1, m2;
  ASSERT_TRUE(text.start(&m1).ok());
  ASSERT_TRUE(binary.start(&m2).ok());
  EXPECT_EQ(m1.protocol, kProtocolVersion);
  EXPECT_EQ(m2.protocol, kBinaryProtocolVersion);
  int compared = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(OPCONFORM_TEST_CORPUS)) {
    conformance::Case c;
    if (entry.path().extension() != ".json" || !conformance::load_case_file(entry.path(), &c).ok()) continue;
    const WorkerOutcome a = text.run(c, max_result_bytes(c));
    const WorkerOutcome b = binary.run(c, max_result_bytes(c));
    ASSERT_EQ(a.kind, WorkerOutcome::Kind::kAnswer) << entry.path() << a.detail;
    ASSERT_EQ(b.kind, WorkerOutcome::Kind::kAnswer) << entry.path() << b.detail;
    ASSERT_EQ(a.answer.kind, b.answer.kind) << entry.path();
    EXPECT_EQ(a.answer.error, b.answer.error) << entry.path();
    EXPECT_EQ(a.answer.fault, b.answer.fault) << entry.path();
    ASSERT_EQ(a.answer.outputs.size(), b.answer.outputs.size()) << entry.path();
    for (const auto& [name, value] : a.answer.outputs) {
      const conformance::Value& other = b.answer.outputs.at(name);
      std::vector<Tensor> x =
          value.index() == 0 ? std::vector<Tensor>{std::get<Tensor>(value)} : std::get<std::vector<Tensor>>(value);
      std::vector<Tensor> y =
          other.index() == 0 ? std::vector<Tensor>{std::get<Tensor>(other)} : std::get<std::vector<Tensor>>(other);
      ASSERT_EQ(x.size(), y.size()) << entry.path();
      for (std::size_t i = 0; i < x.size(); ++i) EXPECT_TRUE(x[i].bit_equal(y[i])) << entry.path() << " " << name;
    }
    ++compared;
  }
  EXPECT_GT(compared, 300);
  EXPECT_EQ(text.starts(), 1);  // no case broke either channel
  EXPECT_EQ(binary.starts(), 1);

  if (std::string(OPCONFORM_PYTHON).empty()) GTEST_SKIP() << "no Python interpreter";
  options.argv = {OPCONFORM_PYTHON, OPCONFORM_PYTHON_FAKE};
  options.max_protocol = kBinaryProtocolVersion;
  Worker python(options);
  Manifest m;
  ASSERT_TRUE(python.start(&m).ok());
  EXPECT_EQ(m.protocol, kProtocolVersion);
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
