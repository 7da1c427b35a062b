// The value formatter (conformance/format.h).
#include "opconform/conformance/format.h"

#include <gtest/gtest.h>

#include "tensor_test_util.h"

namespace opconform::conformance {
namespace {

using namespace opconform::testing;

TEST(Format, Tensors) {
  EXPECT_EQ(format_tensor(tensor<std::int32_t>({2, 2}, {1, 2, 3, 4})), "int32 [2,2] [[1, 2], [3, 4]]");
  EXPECT_EQ(format_tensor(tensor<std::int8_t>({}, {-7})), "int8 [] -7");
  EXPECT_EQ(format_tensor(tensor<float>({2, 0}, {})), "float32 [2,0] [[], []]");
  EXPECT_EQ(format_tensor(Tensor(DType::kFloat32, {0})), "float32 [0] []");
  EXPECT_EQ(format_tensor(f32_bits({5}, {0x7fc00000, 0xffc00000, 0x7f800001, 0x80000000, 0xff800000})),
            "float32 [5] [nan, nan(0xffc00000), nan(0x7f800001), -0.0, -inf]");
  EXPECT_EQ(format_tensor(tensor<float16>({2}, {{0x3c00}, {0x7e01}})), "float16 [2] [1, nan(0x7e01)]");
  EXPECT_EQ(format_tensor(tensor<std::complex<double>>({1}, {{0.5, -2}})), "complex128 [1] [(0.5, -2)]");
  EXPECT_EQ(format_tensor(tensor<std::string>({2}, {"a\"b", "\xff\n"})), "string [2] [\"a\\\"b\", \"\\xff\\x0a\"]");
  EXPECT_EQ(format_tensor(tensor<bool>({2}, {true, false})), "bool [2] [true, false]");
  EXPECT_EQ(format_tensor(tensor<quint8>({1}, {{255}})), "quint8 [1] [255]");
  EXPECT_EQ(format_tensor(Tensor(DType::kInt64, {3, 1000}), 4), "int64 [3,1000] [[0, 0, 0, 0, ...], ...]");
  EXPECT_EQ(format_tensor(Tensor(DType::kInt64, {1000000, 0}), 3), "int64 [1000000,0] [[], [], [], ...]");
}

TEST(Format, Coordinates) {
  EXPECT_EQ(format_coordinate({2, 3, 4}, 23), "[1,2,3]");
  EXPECT_EQ(format_coordinate({2, 3, 4}, 5), "[0,1,1]");
  EXPECT_EQ(format_coordinate({}, 0), "[]");
}

TEST(Format, Case) {
  Case c;
  c.op = Op::kDynamicPartition;
  c.source = "dir/p.json";
  c.attrs["num_partitions"] = 2;
  c.inputs["data"] = tensor<float>({2}, {1, 2});
  c.inputs["partitions"] = tensor<std::int32_t>({2}, {1, 0});
  c.expected.outputs["outputs"] = std::vector<Tensor>{tensor<float>({1}, {2}), tensor<float>({1}, {1})};
  c.tags = {"golden", "edge"};
  c.provenance = "here";
  EXPECT_EQ(format_case(c),
            "name: p\nfile: dir/p.json\nop: DynamicPartition\nattr num_partitions: 2\nprofile: tf-cpu\n"
            "memory_limit: 4294967296\ninputs:\n  data: float32 [2] [1, 2]\n  partitions: int32 [2] [1, 0]\n"
            "expected:\n  outputs[0]: float32 [1] [2]\n  outputs[1]: float32 [1] [1]\n"
            "tags: golden, edge\nprovenance: here\n");
  c.expected.outputs.clear();
  c.expected.error = Status(Code::kInvalidArgument, "m");
  c.tags = {"message:code-only"};
  EXPECT_EQ(format_expected(c, "> "), "> error INVALID_ARGUMENT: m  (code only)\n");
  Outcome outcome;
  outcome.outputs["merged"] = tensor<std::int32_t>({1}, {3});
  EXPECT_EQ(format_outcome(outcome, ""), "merged: int32 [1] [3]\n");
}

}  // namespace
}  // namespace opconform::conformance
