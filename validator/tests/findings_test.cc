// Findings (findings.h): message templates, the element-wise description of a mismatch, failure
// groups; and the label of an implementation's malformed result (protocol.h).
#include <cstring>

#include <gtest/gtest.h>

#include "opconform/validator/findings.h"
#include "opconform/validator/plugin_host.h"
#include "opconform/validator/protocol.h"

namespace opconform::validator {
namespace {

TEST(Findings, MessageTemplatesBlankNumbersDtypesAndShapes) {
  EXPECT_EQ(blank_numbers("partitions[3] = 5 is not in [0, 5)"), "partitions[#] = # is not in [#, #)");
  EXPECT_EQ(blank_numbers("float32 and int64, nan(0x7fc00001), -2.5e-3"), "float32 and int64, nan(0x#), -#");
  EXPECT_EQ(blank_numbers("killed by signal 11 (Segmentation fault)"), "killed by signal # (Segmentation fault)");
  EXPECT_EQ(message_template("partitions[3] = 5 is not in [0, 5)"), "partitions[…] = # is not in [#, #)");
  // One check, other shapes and dtypes: one template.
  EXPECT_EQ(message_template("data.shape = [2,3] does not start with partitions.shape = [2]"),
            message_template("data.shape = [] does not start with partitions.shape = [4,5,6]"));
  EXPECT_EQ(message_template("Input 'data' has type uint8 that does not match type complex64"),
            "Input 'data' has type <dtype> that does not match type <dtype>");
  EXPECT_EQ(message_template("uint8x int32_t bfloat16"), "uint8x int32_t <dtype>");
}

conformance::Case stitch_with_expected(Tensor merged) {
  conformance::Case c;
  c.op = Op::kDynamicStitch;
  c.expected.outputs["merged"] = std::move(merged);
  return c;
}

TEST(Findings, DescribeDifferencesListsSeveralElementsAndNamesPoison) {
  const conformance::Case c = stitch_with_expected(Tensor::from_values<float>({2, 4}, {1, 2, 3, 4, 5, 6, 7, 8}));
  Tensor got = Tensor::from_values<float>({2, 4}, {1, 9, 3, 4, 5, 6, 0, 8});
  std::memset(static_cast<char*>(got.raw_data()) + 7 * sizeof(float), kPoisonByte, sizeof(float));
  conformance::Values actual{{"merged", got}};
  const std::string text = describe_differences(c, actual, /*poison=*/true);
  EXPECT_EQ(text,
            "merged: 3 of 8 elements differ\n"
            "  [0,1]: expected 2, implementation 9\n"
            "  [1,2]: expected 7, implementation 0\n"
            "  [1,3]: expected 8, implementation never written (its bytes are still the poison 0xa5)");
  EXPECT_NE(describe_differences(c, actual, /*poison=*/false).find("[1,3]: expected 8, implementation -2.87"),
            std::string::npos);
  EXPECT_NE(describe_differences(c, actual, true, 1).find("... and 2 more"), std::string::npos);
  // Not element-wise: left to compare()'s detail.
  conformance::Values other_shape{{"merged", Tensor::from_values<float>({1, 4}, {1, 2, 3, 4})}};
  EXPECT_EQ(describe_differences(c, other_shape, true), "");
}

TEST(Findings, GroupsCountBySignature) {
  FailureGroups groups;
  EXPECT_EQ(groups.add("DynamicStitch mismatch: merged: elements differ", "a"), std::make_pair(1, true));
  EXPECT_EQ(groups.add("DynamicStitch crash: killed", "b"), std::make_pair(2, true));
  EXPECT_EQ(groups.add("DynamicStitch mismatch: merged: elements differ", "c"), std::make_pair(1, false));
  ASSERT_EQ(groups.groups().size(), 2u);
  EXPECT_EQ(groups.groups()[0].count, 2);
  EXPECT_EQ(groups.groups()[0].cases, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(signature(Op::kDynamicPartition, "fault", "output #: wrote past the end of its buffer"),
            "DynamicPartition fault: output #: wrote past the end of its buffer");
}

TEST(Findings, AMalformedResultIsLabelledAsTheImplementations) {
  conformance::Case c;
  c.op = Op::kDynamicStitch;
  c.inputs["indices"] = std::vector<Tensor>{Tensor::from_values<std::int32_t>({2}, {1, 0})};
  c.inputs["data"] = std::vector<Tensor>{Tensor::from_values<float>({2}, {1, 2})};
  ImplAnswer a;
  const Status s = parse_result_message(
      R"({"type":"result","id":1,"outputs":{"merged":{"dtype":"float32","shape":[2],"data":[1]}}})", c, 1, &a);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("the implementation's result: outputs.merged", 0), 0u) << s.message();
  EXPECT_EQ(s.message().find("expected"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace opconform::validator
