// Unit tests of the reference DynamicPartition (docs/contract/dynamic_stitch.md): every check
// with its exact message, the golden examples, scalar partitions, memory accounting with a
// huge num_partitions, every dtype bit for bit, and outputs left untouched on error.
#include "opconform/reference/dynamic_partition.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "opconform/reference/dynamic_stitch.h"
#include "reference_dynamic_test_util.h"

namespace opconform {
namespace {

using reference::DynamicPartition;

using namespace opconform::testing;

// A tensor of `dtype` and `shape` holding distinct_value(v) for each v of `values` in order.
Tensor tensor_of(DType dtype, Shape shape, const std::vector<std::int64_t>& values) {
  Tensor t(dtype, std::move(shape));
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (std::size_t k = 0; k < values.size(); ++k) p[k] = distinct_value<T>(values[k]);
  });
  return t;
}

std::vector<Tensor> partition_ok(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                                 const ExecOptions& options = {}) {
  std::vector<Tensor> outputs;
  const Status status = DynamicPartition(data, partitions, num_partitions, &outputs, options);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(static_cast<std::int64_t>(outputs.size()), status.ok() ? num_partitions : 0);
  for (const Tensor& output : outputs) EXPECT_TRUE(output.guard_intact());
  return outputs;
}

// Expects exactly `expected` and the outputs left as they were.
void expect_error(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions, const Status& expected,
                  const ExecOptions& options = {}) {
  const Tensor sentinel = f32({2}, {-7.0f, -8.0f});
  std::vector<Tensor> outputs = {sentinel};
  EXPECT_EQ(DynamicPartition(data, partitions, num_partitions, &outputs, options), expected);
  ASSERT_EQ(outputs.size(), 1u) << "outputs were replaced on error";
  EXPECT_EQ(outputs[0].raw_data(), sentinel.raw_data());
  EXPECT_TRUE(BitEqual(outputs[0], f32({2}, {-7.0f, -8.0f})));
}

// --- Pre-checks (README) and check 0 ---------------------------------------------------------

TEST(DynamicPartitionTest, PartitionsNotInt32) {
  expect_error(f32({2}, {1, 2}), Tensor::from_values<std::int64_t>({2}, {0, 1}), 2,
               Status(Code::kInvalidArgument,
                      "Input 'partitions' of 'DynamicPartition' Op has type int64 that does not "
                      "match expected type of int32."));
  // Before the attribute and registration checks.
  expect_error(Tensor(DType::kQInt8, {2}), Tensor::from_values<std::uint8_t>({2}, {0, 1}), 0,
               Status(Code::kInvalidArgument,
                      "Input 'partitions' of 'DynamicPartition' Op has type uint8 that does not "
                      "match expected type of int32."));
}

TEST(DynamicPartitionTest, NumPartitionsBelowMinimum) {
  for (std::int64_t v : {std::int64_t{0}, std::int64_t{-5}, std::int64_t{-4294967296}}) {
    expect_error(f32({2}, {1, 2}), i32({2}, {0, 1}), v,
                 Status(Code::kInvalidArgument,
                        "Value for attr 'num_partitions' of " + std::to_string(v) + " must be at least minimum 1"));
  }
  // The attribute minimum comes before kernel registration (README pre-checks 2 then 3).
  expect_error(Tensor(DType::kQInt8, {2}), i32({2}, {0, 1}), 0,
               Status(Code::kInvalidArgument, "Value for attr 'num_partitions' of 0 must be at least minimum 1"));
}

TEST(DynamicPartitionTest, QuantizedDtypesAreNotRegistered) {
  for (DType dtype : {DType::kQInt8, DType::kQUInt8, DType::kQInt32}) {
    expect_error(Tensor(dtype, {2}), i32({2}, {0, 1}), 2,
                 Status(Code::kUnimplemented,
                        "No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible "
                        "with T=" +
                            std::string(dtype_name(dtype))));
  }
}

TEST(DynamicPartitionTest, NumPartitionsAboveInt32) {
  expect_error(f32({2}, {1, 2}), i32({2}, {0, 1}), 2147483648,
               Status(Code::kInvalidArgument, "Attr num_partitions has value 2147483648 out of range for an int32"));
  expect_error(f32({2}, {1, 2}), i32({2}, {0, 1}), std::int64_t{1} << 62,
               Status(Code::kInvalidArgument,
                      "Attr num_partitions has value 4611686018427387904 "
                      "out of range for an int32"));
  // Registration first (the int32 read happens in TensorFlow's kernel constructor).
  expect_error(Tensor(DType::kQUInt8, {2}), i32({2}, {0, 1}), 2147483648,
               Status(Code::kUnimplemented,
                      "No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible "
                      "with T=quint8"));
}

// --- Check 1: data.shape starts with partitions.shape ------------------------------------------

TEST(DynamicPartitionTest, DataShapeMustStartWithPartitionsShape) {
  expect_error(f32({5}, {1, 2, 3, 4, 5}), i32({6}, {0, 0, 0, 0, 0, 0}), 2,
               Status(Code::kInvalidArgument,
                      "data.shape must start with partitions.shape, got data.shape = [5], "
                      "partitions.shape = [6]"));
  expect_error(f32({2}, {1, 2}), i32({2, 1}, {0, 1}), 2,
               Status(Code::kInvalidArgument,
                      "data.shape must start with partitions.shape, got data.shape = [2], "
                      "partitions.shape = [2,1]"));
  expect_error(f32({}, {1}), i32({1}, {0}), 2,
               Status(Code::kInvalidArgument,
                      "data.shape must start with partitions.shape, got data.shape = [], "
                      "partitions.shape = [1]"));
  // Before the partition values are looked at.
  expect_error(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i32({3}, {9, 9, 9}), 2,
               Status(Code::kInvalidArgument,
                      "data.shape must start with partitions.shape, got data.shape = [2,3], "
                      "partitions.shape = [3]"));
}

// --- Check 2: 0 <= p < num_partitions, with the unflattened position ----------------------------

TEST(DynamicPartitionTest, PartitionOutOfRange) {
  expect_error(f32({4}, {1, 2, 3, 4}), i32({4}, {0, 3, 99, -1}), 4,
               Status(Code::kInvalidArgument, "partitions[2] = 99 is not in [0, 4)"));
  expect_error(f32({4}, {1, 2, 3, 4}), i32({4}, {0, -1, 99, 0}), 4,
               Status(Code::kInvalidArgument, "partitions[1] = -1 is not in [0, 4)"));
  expect_error(f32({3}, {1, 2, 3}), i32({}, {17}), 7,
               Status(Code::kInvalidArgument, "partitions = 17 is not in [0, 7)"));
  expect_error(f32({2, 3, 2}, std::vector<float>(12, 1.f)), i32({2, 3}, {0, 1, 2, 3, 4, 17}), 7,
               Status(Code::kInvalidArgument, "partitions[1,2] = 17 is not in [0, 7)"));
  expect_error(f32({2, 2, 2}, std::vector<float>(8, 1.f)), i32({2, 2, 2}, {0, 0, 0, 0, 0, 0, 1, 0}), 1,
               Status(Code::kInvalidArgument, "partitions[1,1,0] = 1 is not in [0, 1)"));
  expect_error(f32({1}, {1}), i32({1}, {-2147483647 - 1}), 2147483647,
               Status(Code::kInvalidArgument, "partitions[0] = -2147483648 is not in [0, 2147483647)"));
}

// --- Results -------------------------------------------------------------------------------------

TEST(DynamicPartitionTest, GoldenExample) {
  const std::vector<Tensor> outputs = partition_ok(i32({5}, {10, 20, 30, 40, 50}), i32({5}, {0, 0, 1, 1, 0}), 2);
  ASSERT_EQ(outputs.size(), 2u);
  EXPECT_TRUE(BitEqual(outputs[0], i32({3}, {10, 20, 50})));
  EXPECT_TRUE(BitEqual(outputs[1], i32({2}, {30, 40})));
}

TEST(DynamicPartitionTest, SlicesAndEmptyPartitions) {
  // partitions [2,2] over data [2,2,3]: slices of 3, in row-major order of the partitions.
  const Tensor data = f32({2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const std::vector<Tensor> outputs = partition_ok(data, i32({2, 2}, {3, 0, 3, 3}), 4);
  ASSERT_EQ(outputs.size(), 4u);
  EXPECT_TRUE(BitEqual(outputs[0], f32({1, 3}, {4, 5, 6})));
  EXPECT_TRUE(BitEqual(outputs[1], f32({0, 3}, {})));
  EXPECT_TRUE(BitEqual(outputs[2], f32({0, 3}, {})));
  EXPECT_TRUE(BitEqual(outputs[3], f32({3, 3}, {1, 2, 3, 7, 8, 9, 10, 11, 12})));
}

TEST(DynamicPartitionTest, ScalarPartitions) {
  const Tensor data = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  const std::vector<Tensor> outputs = partition_ok(data, i32({}, {1}), 3);
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_TRUE(BitEqual(outputs[0], f32({0, 2, 3}, {})));
  EXPECT_TRUE(BitEqual(outputs[1], f32({1, 2, 3}, {1, 2, 3, 4, 5, 6})));
  EXPECT_TRUE(BitEqual(outputs[2], f32({0, 2, 3}, {})));
  // Scalar data too.
  const std::vector<Tensor> scalars = partition_ok(f32({}, {2.5f}), i32({}, {0}), 1);
  EXPECT_TRUE(BitEqual(scalars[0], f32({1}, {2.5f})));
}

TEST(DynamicPartitionTest, EmptyInputs) {
  const std::vector<Tensor> outputs = partition_ok(f32({0, 4}, {}), i32({0}, {}), 3);
  for (const Tensor& output : outputs) EXPECT_TRUE(BitEqual(output, f32({0, 4}, {})));
  // A trailing shape with zero elements: counts are kept, no element is copied.
  const std::vector<Tensor> zero_width = partition_ok(f32({3, 0}, {}), i32({3}, {1, 1, 0}), 2);
  EXPECT_EQ(zero_width[0].shape(), (Shape{1, 0}));
  EXPECT_EQ(zero_width[1].shape(), (Shape{2, 0}));
}

TEST(DynamicPartitionTest, StableSplitForEveryRegisteredDtype) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    if (dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // Rows 0..5 of 2 elements each go to partitions 2, 0, 2, 1, 0, 2.
    const Tensor data = distinct_tensor(dtype, {6, 2}, 0);
    const std::vector<Tensor> outputs = partition_ok(data, i32({6}, {2, 0, 2, 1, 0, 2}), 3);
    ASSERT_EQ(outputs.size(), 3u);
    EXPECT_TRUE(BitEqual(outputs[0], tensor_of(dtype, {2, 2}, {2, 3, 8, 9})));
    EXPECT_TRUE(BitEqual(outputs[1], tensor_of(dtype, {1, 2}, {6, 7})));
    EXPECT_TRUE(BitEqual(outputs[2], tensor_of(dtype, {3, 2}, {0, 1, 4, 5, 10, 11})));
  }
}

TEST(DynamicPartitionTest, NaNPayloadsAndNegativeZeroAreCopiedBitForBit) {
  const std::uint32_t bits[4] = {0x7fa00001u, 0xffc12345u, 0x80000000u, 0x7f800001u};
  Tensor data(DType::kFloat32, {4});
  std::memcpy(data.raw_data(), bits, sizeof bits);
  const std::vector<Tensor> outputs = partition_ok(data, i32({4}, {1, 0, 1, 0}), 2);
  const std::uint32_t expected0[2] = {0xffc12345u, 0x7f800001u};
  const std::uint32_t expected1[2] = {0x7fa00001u, 0x80000000u};
  ASSERT_EQ(outputs[0].shape(), Shape{2});
  ASSERT_EQ(outputs[1].shape(), Shape{2});
  EXPECT_EQ(std::memcmp(outputs[0].raw_data(), expected0, sizeof expected0), 0);
  EXPECT_EQ(std::memcmp(outputs[1].raw_data(), expected1, sizeof expected1), 0);
}

// Stitch(Partition(range(n), p, k), Partition(x, p, k)) == x (spec, properties).
TEST(DynamicPartitionTest, RoundTripThroughDynamicStitch) {
  const Tensor x = distinct_tensor(DType::kString, {3, 2, 2}, 0);
  const Tensor p = i32({3, 2}, {4, 1, 1, 0, 4, 1});
  const std::vector<Tensor> positions = partition_ok(i32({3, 2}, {0, 1, 2, 3, 4, 5}), p, 5);
  const std::vector<Tensor> parts = partition_ok(x, p, 5);
  Tensor merged;
  ASSERT_TRUE(reference::DynamicStitch(positions, parts, &merged).ok());
  EXPECT_TRUE(BitEqual(merged, distinct_tensor(DType::kString, {6, 2}, 0)));
}

// --- Check 3: memory -----------------------------------------------------------------------------

TEST(DynamicPartitionTest, MemoryLimitNamesTheFirstOutputOverIt) {
  // Slices of 100 float32 (400 bytes) go to partitions 0, 2, 2, 5. Running totals:
  // output 0: 64 + 400 = 464, output 1: 528, output 2: 592 + 800 = 1392, ...
  const Tensor data(DType::kFloat32, {4, 100});
  const Tensor partitions = i32({4}, {0, 2, 2, 5});
  ExecOptions options;
  options.memory_limit_bytes = 1000;
  expect_error(data, partitions, 8,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[2,100] and type float32"),
               options);
  options.memory_limit_bytes = 463;
  expect_error(data, partitions, 8,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,100] and type float32"),
               options);
  // Exactly the total (8 * 64 + 1600 = 2112) fits; one byte less fails at the last output.
  options.memory_limit_bytes = 2112;
  EXPECT_EQ(partition_ok(data, partitions, 8, options).size(), 8u);
  options.memory_limit_bytes = 2111;
  expect_error(data, partitions, 8,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[0,100] and type float32"),
               options);
  options.memory_limit_bytes = -1;
  expect_error(data, partitions, 8,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,100] and type float32"),
               options);
}

// The first failing output agrees with requesting every output in order through MemoryAccount.
TEST(DynamicPartitionTest, MemoryLimitAgreesWithRequestsInOrder) {
  for (DType dtype : {DType::kFloat64, DType::kString, DType::kBool}) {
    const Tensor data(dtype, {6, 3});
    const Tensor partitions = i32({6}, {5, 1, 5, 0, 3, 1});
    const std::int64_t num_partitions = 9;
    std::vector<Shape> shapes;
    for (std::int64_t count : {1, 2, 0, 1, 0, 2, 0, 0, 0}) shapes.push_back({count, 3});
    for (std::int64_t limit = 0; limit <= 64 * 9 + 18 * dtype_accounting_width(dtype) + 1; ++limit) {
      SCOPED_TRACE(std::string(dtype_name(dtype)) + " limit " + std::to_string(limit));
      MemoryAccount account(limit);
      Status expected;
      for (const Shape& shape : shapes) {
        expected = account.request(dtype, shape);
        if (!expected.ok()) break;
      }
      ExecOptions options;
      options.memory_limit_bytes = limit;
      std::vector<Tensor> outputs;
      EXPECT_EQ(DynamicPartition(data, partitions, num_partitions, &outputs, options), expected);
    }
  }
}

// A huge num_partitions is bounded by the limit before any bookkeeping of that size exists.
TEST(DynamicPartitionTest, HugeNumPartitionsUnderASmallLimit) {
  ExecOptions options;
  options.memory_limit_bytes = 1 << 20;
  // 64 * (q + 1) + 12 > 2^20 first at q = 16383.
  expect_error(f32({3}, {1, 2, 3}), i32({3}, {0, 1, 2}), 2147483647,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type float32"), options);
  // Under the default 4 GiB: 64 * (q + 1) + 12 > 2^32 first at q = 67108863.
  expect_error(f32({3}, {1, 2, 3}), i32({3}, {0, 1, 2147483646}), 2147483647,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type float32"));
  // Data in the last partition: the limit is crossed at an empty output before it.
  options.memory_limit_bytes = 4096;
  expect_error(f32({2, 2}, {1, 2, 3, 4}), i32({2}, {2147483646, 2147483646}), 2147483647,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[0,2] and type float32"),
               options);
  // A limit too small for the first output names it.
  options.memory_limit_bytes = 70;
  expect_error(f32({2, 2}, {1, 2, 3, 4}), i32({2}, {0, 0}), 2147483647,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[2,2] and type float32"),
               options);
}

TEST(DynamicPartitionTest, InputsAreNotModified) {
  const Tensor data = distinct_tensor(DType::kString, {3}, 0);
  const Tensor partitions = i32({3}, {1, 0, 1});
  const Tensor data_before = data.clone();
  const Tensor partitions_before = partitions.clone();
  partition_ok(data, partitions, 2);
  EXPECT_TRUE(BitEqual(data, data_before));
  EXPECT_TRUE(BitEqual(partitions, partitions_before));
}

}  // namespace
}  // namespace opconform
