// Unit tests of the reference SpaceToBatchND (docs/contract/space_to_batch_nd.md): every
// check with its exact message in the spec's order, the golden examples, the collapsing rule,
// the advisories, dtypes, the memory limit, and the xtensor steps against the spec's formula.
#include "opconform/reference/space_to_batch_nd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "space_batch_common.h"
#include "space_batch_test_util.h"

namespace opconform::reference {
namespace {

using namespace opconform::testing;

constexpr std::int64_t k2p31 = std::int64_t{1} << 31;
constexpr std::int64_t k2p32 = std::int64_t{1} << 32;
constexpr std::int64_t k2p61 = std::int64_t{1} << 61;
constexpr std::int64_t k2p62 = std::int64_t{1} << 62;
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

Tensor zero_pads(std::int64_t m) { return i64({m, 2}, std::vector<std::int64_t>(2 * m, 0)); }

Status s2b_status(const Tensor& input, const Tensor& block, const Tensor& pads, const ExecOptions& options = {}) {
  return status_of(&SpaceToBatchND, input, block, pads, options);
}

// Runs the op, expects success, and returns the output.
Tensor s2b(const Tensor& input, const Tensor& block, const Tensor& pads, const ExecOptions& options = {}) {
  Tensor output;
  const Status status = run_op(&SpaceToBatchND, input, block, pads, &output, options);
  EXPECT_TRUE(status.ok()) << status;
  return output;
}

// The op agrees bit for bit with the spec's formula on `input`.
void expect_matches_formula(const Tensor& input, const std::vector<std::int64_t>& block,
                            const std::vector<std::int64_t>& pads) {
  const Tensor expected = space_to_batch_by_formula(input, block, pads);
  Tensor output;
  const Status status =
      space_batch::SpaceToBatchNDAnyDType(input, i64({static_cast<std::int64_t>(block.size())}, block),
                                          i64({static_cast<std::int64_t>(block.size()), 2}, pads), &output, {});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(BitEqual(output, expected))
      << "input " << shape_string(input.shape()) << " dtype " << dtype_name(input.dtype());
}

// ---- Pre-checks of spec README ----

TEST(SpaceToBatchNDPreChecks, BlockShapeDtypeMustBeIndex) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), f32({2}, {2, 2}), zero_pads(2)),
            invalid("Value for attr 'Tblock_shape' of float32 is not in the list of allowed "
                    "values: int32, int64"));
}

TEST(SpaceToBatchNDPreChecks, PaddingsDtypeMustBeIndex) {
  const Tensor pads(DType::kUInt8, {2, 2});
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2}, {2, 2}), pads),
            invalid("Value for attr 'Tpaddings' of uint8 is not in the list of allowed values: "
                    "int32, int64"));
}

TEST(SpaceToBatchNDPreChecks, BlockShapeDtypeCheckedBeforePaddings) {
  const Tensor block(DType::kInt16, {2});
  const Tensor pads(DType::kFloat64, {2, 2});
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), block, pads).message(),
            "Value for attr 'Tblock_shape' of int16 is not in the list of allowed values: int32, int64");
}

TEST(SpaceToBatchNDPreChecks, UnregisteredDtypesAreUnimplemented) {
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32}) {
    EXPECT_EQ(
        s2b_status(Tensor(dtype, {1, 2, 2, 1}), i32({2}, {2, 2}), zero_pads(2)),
        Status(Code::kUnimplemented, "No registered 'SpaceToBatchND' OpKernel for 'CPU' devices compatible with T=" +
                                         std::string(dtype_name(dtype))));
  }
}

TEST(SpaceToBatchNDPreChecks, ArgumentTypesComeBeforeRegistration) {
  EXPECT_EQ(s2b_status(Tensor(DType::kString, {1, 2, 2, 1}), i32({2}, {2, 2}), f32({2, 2}, {0, 0, 0, 0})).code(),
            Code::kInvalidArgument);
}

TEST(SpaceToBatchNDPreChecks, RegistrationComesBeforeTheOpsChecks) {
  // Also on the identity path (M = 0): the kernel must exist before it can return its input.
  EXPECT_EQ(s2b_status(Tensor(DType::kBool, {2}), i32({0}, {}), zero_pads(0)).code(), Code::kUnimplemented);
  EXPECT_EQ(s2b_status(Tensor(DType::kString, {1}), i32({1, 1}, {2}), zero_pads(1)).code(), Code::kUnimplemented);
}

// ---- Checks 1-11, in order ----

TEST(SpaceToBatchNDChecks, C1BlockShapeMustBeAVector) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2, 1}, {2, 2}), zero_pads(2)),
            invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i64({}, {2}), zero_pads(1)),
            invalid("block_shape rank should be 1 instead of 0"));
}

TEST(SpaceToBatchNDChecks, C2InputRankAtLeastMPlusOne) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2}), i32({2}, {2, 2}), zero_pads(2)),
            invalid("input rank should be >= 3 instead of 2"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {}), i32({0}, {}), zero_pads(0)),
            invalid("input rank should be >= 1 instead of 0"));
}

TEST(SpaceToBatchNDChecks, C3PaddingsShape) {
  const Tensor input = iota_f32({1, 2, 2, 1});
  EXPECT_EQ(s2b_status(input, i32({2}, {2, 2}), i32({4}, {0, 0, 0, 0})),
            invalid("paddings should have shape [2, 2] instead of [4]"));
  EXPECT_EQ(s2b_status(input, i32({2}, {2, 2}), zero_pads(3)),
            invalid("paddings should have shape [2, 2] instead of [3,2]"));
  EXPECT_EQ(s2b_status(input, i32({2}, {2, 2}), i32({2, 1}, {0, 0})),
            invalid("paddings should have shape [2, 2] instead of [2,1]"));
  EXPECT_EQ(s2b_status(input, i32({2}, {2, 2}), Tensor(DType::kInt32, {2, 2, 1})),
            invalid("paddings should have shape [2, 2] instead of [2,2,1]"));
  EXPECT_EQ(s2b_status(input, i32({0}, {}), i32({}, {0})), invalid("paddings should have shape [0, 2] instead of []"));
}

TEST(SpaceToBatchNDChecks, C4BlockValuesPositive) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2}, {-1, 2}), zero_pads(2)),
            invalid("All values in block_shape must be positive, got value, -1 at index 0."));
  // The first non-positive value is reported, after any product overflow on the way.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 0, 0, 1}), i64({3}, {k2p32, k2p32, 0}), zero_pads(3)),
            invalid("All values in block_shape must be positive, got value, 0 at index 2."));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 0}), i64({2}, {2, kInt64Min}), zero_pads(2)),
            invalid("All values in block_shape must be positive, got value, "
                    "-9223372036854775808 at index 1."));
}

TEST(SpaceToBatchNDChecks, C5CheckedProductPositive) {
  const Tensor input(DType::kFloat32, {1, 0, 0, 0, 1});
  // 2^64 overflows the unsigned product: -1.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 0, 1}), i64({2}, {k2p32, k2p32}), zero_pads(2)),
            invalid("Product of block sizes must be positive, got -1"));
  // A product in [2^63, 2^64) comes back wrapped.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 0, 1}), i64({2}, {4294967295, 4294967295}), zero_pads(2)),
            invalid("Product of block sizes must be positive, got -8589934591"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 0, 1}), i64({2}, {k2p62, 2}), zero_pads(2)),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
  // A wrapped partial product times anything is -1.
  EXPECT_EQ(s2b_status(input, i64({3}, {4294967295, 4294967295, 1}), zero_pads(3)),
            invalid("Product of block sizes must be positive, got -1"));
  // Just below 2^63 passes this check (and then overflows B * P).
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {2, 0, 0, 1}), i64({2}, {3037000499, 3037000499}), zero_pads(2)),
            invalid("Negative output dimension size caused by overflow when multiplying 2 and "
                    "9223372030926249001"));
}

TEST(SpaceToBatchNDChecks, C6AtMostFourInternalBlockDims) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 1, 1, 1, 2}), i32({5}, {2, 1, 1, 1, 2}), zero_pads(5)),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
  // A trivial dim with padding is not trivial.
  EXPECT_EQ(
      s2b_status(iota_f32({1, 2, 2, 2, 2, 1}), i32({5}, {1, 2, 2, 2, 2}), i32({5, 2}, {1, 1, 0, 0, 0, 0, 0, 0, 0, 0})),
      invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
}

TEST(SpaceToBatchNDChecks, C6ComesAfterTheProductCheck) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 1, 1, 1, 2}), i64({5}, {k2p32, 1, 1, 1, k2p32}), zero_pads(5)),
            invalid("Product of block sizes must be positive, got -1"));
}

TEST(SpaceToBatchNDChecks, C8OutputBatchOverflow) {
  // TFSA-2022-076 regression variant.
  EXPECT_EQ(
      s2b_status(Tensor(DType::kFloat32, {10, 19, 22}), i64({2}, {1879048192, 1879048192}), i32({2, 2}, {0, 0, 0, 0})),
      invalid("Negative output dimension size caused by overflow when multiplying 10 and "
              "3530822107858468864"));
  // B * P = 2^63 wraps; 2^64 and beyond gives -1: both are overflow.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {2, 0, 1}), i64({1}, {k2p62}), zero_pads(1)),
            invalid("Negative output dimension size caused by overflow when multiplying 2 and "
                    "4611686018427387904"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {k2p32, 0, 1}), i64({1}, {k2p32}), zero_pads(1)),
            invalid("Negative output dimension size caused by overflow when multiplying 4294967296 "
                    "and 4294967296"));
}

TEST(SpaceToBatchNDChecks, C9PrefixDimOverflowsElementCount) {
  // (A valid input's shape has every prefix product in int64, as TensorShape requires; the
  // block product can still push the output past it.) B * P = 2^33, then the prefix dim 2^31:
  // the unsigned product overflows (-1).
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {k2p31, k2p31, 0, 1}), i64({2}, {1, 4}), zero_pads(2)),
            invalid("Encountered overflow when multiplying 8589934592 with 2147483648, result: -1"));
  // 2^32 * 2^31 = 2^63 comes back wrapped.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {k2p31, k2p31, 0, 1}), i64({2}, {1, 2}), zero_pads(2)),
            invalid("Encountered overflow when multiplying 4294967296 with 2147483648, result: "
                    "-9223372036854775808"));
}

TEST(SpaceToBatchNDChecks, C10PaddingsNonNegative) {
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, -1})),
            invalid("Paddings must be non-negative"));
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2}, {2, 2}),
                       i32({2, 2}, {std::numeric_limits<std::int32_t>::min(), 0, 0, 0})),
            invalid("Paddings must be non-negative"));
  // A negative padding makes a b = 1 dim internal, so it is checked.
  EXPECT_EQ(s2b_status(iota_f32({1, 2, 2, 1}), i32({2}, {1, 2}), i32({2, 2}, {-1, 1, 0, 0})),
            invalid("Paddings must be non-negative"));
}

TEST(SpaceToBatchNDChecks, C10PaddedShapeOverflow) {  // deviation
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 1}), i64({1}, {2}), i64({1, 2}, {k2p62, k2p62})),
            invalid("padded_shape[0] overflows int64"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 1, k2p62, 0}), i64({2}, {2, 2}), i64({2, 2}, {1, 0, k2p62 - 1, 1})),
            invalid("padded_shape[1] overflows int64"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 2, 0}), i64({1}, {2}), i64({1, 2}, {kInt64Max, 0})),
            invalid("padded_shape[0] overflows int64"));
  // One less fits: 2^63 - 1 is odd.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, k2p62, 0}), i64({1}, {2}), i64({1, 2}, {k2p62 - 1, 0})),
            invalid("padded_shape[0]=9223372036854775807 is not divisible by block_shape[0]=2"));
}

TEST(SpaceToBatchNDChecks, C10Divisibility) {
  EXPECT_EQ(s2b_status(iota_f32({1, 4, 5, 1}), i32({2}, {2, 2}), zero_pads(2)),
            invalid("padded_shape[1]=5 is not divisible by block_shape[1]=2"));
  // int32 paddings sum past 2^31 in int64.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 1, 0}), i32({1}, {2147483647}), i32({1, 2}, {2147483647, 0})),
            invalid("padded_shape[0]=2147483648 is not divisible by block_shape[0]=2147483647"));
}

TEST(SpaceToBatchNDChecks, C10InternalDimsCheckedInOrder) {
  // Dim 0 is not divisible; dim 1's negative padding is never reached.
  EXPECT_EQ(s2b_status(iota_f32({1, 3, 2, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, -1, 0})),
            invalid("padded_shape[0]=3 is not divisible by block_shape[0]=2"));
  // The index names the position in the original block_shape, after the collapsed prefix.
  EXPECT_EQ(s2b_status(iota_f32({1, 3, 3, 3, 1}), i32({3}, {1, 2, 2}), zero_pads(3)),
            invalid("padded_shape[1]=3 is not divisible by block_shape[1]=2"));
}

TEST(SpaceToBatchNDChecks, C10OutputDimOverflowsElementCount) {
  // [8] then 2^61: 2^64 overflows (-1); [4] then 2^61 is 2^63 and wraps.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {4, 0, 1}), i64({1}, {2}), i64({1, 2}, {k2p61, k2p61})),
            invalid("Encountered overflow when multiplying 8 with 2305843009213693952, result: -1"));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {2, 0, 1}), i64({1}, {2}), i64({1, 2}, {k2p61, k2p61})),
            invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: "
                    "-9223372036854775808"));
}

TEST(SpaceToBatchNDChecks, C11RemainingDimOverflowsElementCount) {
  // Output [2, 2, 2^61, 0]: 4 * 2^61 = 2^63 comes back wrapped before the 0 is reached.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 2, k2p61, 0}), i64({1}, {2}), i64({1, 2}, {0, 2})),
            invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: "
                    "-9223372036854775808"));
  // A trailing trivial block dim is a remaining dim.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 2, k2p61, 0}), i64({2}, {2, 1}), i64({2, 2}, {0, 2, 0, 0})),
            invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: "
                    "-9223372036854775808"));
}

TEST(SpaceToBatchNDChecks, C12MemoryLimit) {
  const Tensor input = iota_f32({1, 4, 4, 1});
  ExecOptions options;
  options.memory_limit_bytes = 64 + 16 * 4 - 1;
  EXPECT_EQ(s2b_status(input, i32({2}, {2, 2}), zero_pads(2), options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[4,2,2,1] and type float32"));
  options.memory_limit_bytes = 64 + 16 * 4;
  EXPECT_TRUE(s2b_status(input, i32({2}, {2, 2}), zero_pads(2), options).ok());
}

TEST(SpaceToBatchNDChecks, C12HugeValidOutputIsRefusedNotAllocated) {
  // Output [2, 2^62 - 1, 1]: 2^63 - 2 elements.
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {1, 0, 1}), i64({1}, {2}), i64({1, 2}, {k2p62, k2p62 - 2})),
            Status(Code::kResourceExhausted,
                   "OOM when allocating tensor with shape[2,4611686018427387903,1] and type float32"));
  EXPECT_EQ(s2b_status(Tensor(DType::kUInt8, {1, 1, 3}), i64({1}, {1024}), i64({1, 2}, {k2p31 - 1, 0})),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1024,2097152,3] and type uint8"));
}

TEST(SpaceToBatchNDChecks, OutputUntouchedOnError) {
  Tensor output = Tensor::from_values<float>({2}, {5, 6});
  const Tensor before = output;
  EXPECT_FALSE(SpaceToBatchND(iota_f32({1, 4, 5, 1}), i32({2}, {2, 2}), zero_pads(2), &output).ok());
  EXPECT_EQ(output.raw_data(), before.raw_data());
  EXPECT_TRUE(BitEqual(output, Tensor::from_values<float>({2}, {5, 6})));
  ExecOptions tiny;
  tiny.memory_limit_bytes = 10;
  EXPECT_FALSE(SpaceToBatchND(iota_f32({1, 4, 4, 1}), i32({2}, {2, 2}), zero_pads(2), &output, tiny).ok());
  EXPECT_EQ(output.raw_data(), before.raw_data());
}

// ---- Advisories ----

TEST(SpaceToBatchNDAdvisories, TFSA_2021_085_ZeroBlock) {
  EXPECT_EQ(s2b_status(iota_f32({1, 4, 4, 1}), i32({2}, {2, 0}), zero_pads(2)),
            invalid("All values in block_shape must be positive, got value, 0 at index 1."));
}

TEST(SpaceToBatchNDAdvisories, TFSA_2022_076_NegativeBlocksWithPositiveProduct) {
  Tensor input(DType::kFloat32, {10, 19, 22});
  for (float& v : input.values<float>()) v = -3.5e35f;
  EXPECT_EQ(s2b_status(input, i64({2}, {-1879048192, -1879048192}), i32({2, 2}, {0, 0, 0, 0})),
            invalid("All values in block_shape must be positive, got value, -1879048192 at index 0."));
  EXPECT_EQ(s2b_status(Tensor(DType::kFloat32, {10, 20, 20}), i64({2}, {-10, -10}), i32({2, 2}, {0, 0, 0, 0})),
            invalid("All values in block_shape must be positive, got value, -10 at index 0."));
  EXPECT_EQ(s2b_status(input, i64({2}, {1879048192, 1879048192}), i32({2, 2}, {0, 0, 0, 0})),
            invalid("Negative output dimension size caused by overflow when multiplying 10 and "
                    "3530822107858468864"));
}

// ---- Golden examples (spec page) ----

TEST(SpaceToBatchNDGolden, Example1) {
  EXPECT_TRUE(
      BitEqual(s2b(f32({1, 2, 2, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), zero_pads(2)), f32({4, 1, 1, 1}, {1, 2, 3, 4})));
}

TEST(SpaceToBatchNDGolden, Example2) {
  EXPECT_TRUE(BitEqual(s2b(iota_f32({1, 2, 2, 3}), i32({2}, {2, 2}), zero_pads(2)),
                       f32({4, 1, 1, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})));
}

TEST(SpaceToBatchNDGolden, Example3) {
  EXPECT_TRUE(BitEqual(s2b(iota_f32({1, 4, 4, 1}), i32({2}, {2, 2}), zero_pads(2)),
                       f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16})));
}

TEST(SpaceToBatchNDGolden, Example4) {
  EXPECT_TRUE(
      BitEqual(s2b(iota_f32({2, 2, 4, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0})),
               f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16})));
}

TEST(SpaceToBatchNDGolden, OneBlockDim) {
  EXPECT_TRUE(BitEqual(s2b(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({1}, {2}), i64({1, 2}, {1, 0})),
                       f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6})));
}

TEST(SpaceToBatchNDGolden, ZeroSpatialDimPaddedUp) {
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {3, 0, 2, 5}), i32({1}, {3}), i32({1, 2}, {1, 2})),
                       Tensor(DType::kFloat32, {9, 1, 2, 5})));
}

TEST(SpaceToBatchNDGolden, ZeroRemainingDim) {
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {3, 1, 2, 0}), i32({2}, {1, 2}), zero_pads(2)),
                       Tensor(DType::kFloat32, {6, 1, 1, 0})));
}

TEST(SpaceToBatchNDGolden, ZeroBatch) {
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {0, 4, 4, 1}), i32({2}, {2, 2}), zero_pads(2)),
                       Tensor(DType::kFloat32, {0, 2, 2, 1})));
}

TEST(SpaceToBatchNDGolden, HugeEmptyOutputsSucceed) {
  // Near 2^31 and 2^63: the shapes are valid and the outputs hold no element.
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {1, 0, 2}), i32({1}, {2147483647}), zero_pads(1)),
                       Tensor(DType::kFloat32, {2147483647, 0, 2})));
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {1, 0, 2}), i64({1}, {k2p31}), zero_pads(1)),
                       Tensor(DType::kFloat32, {k2p31, 0, 2})));
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {1, 1, 0}), i64({1}, {k2p31 / 2}), i32({1, 2}, {2147483647, 0})),
                       Tensor(DType::kFloat32, {k2p31 / 2, 2, 0})));
  EXPECT_TRUE(BitEqual(s2b(Tensor(DType::kFloat32, {1, 0, 0, 1}), i64({2}, {3037000499, 3037000499}), zero_pads(2)),
                       Tensor(DType::kFloat32, {9223372030926249001, 0, 0, 1})));
}

// ---- Collapsing and the identity path ----

TEST(SpaceToBatchNDCollapsing, FourInternalDimsBetweenTrivialOnesSucceed) {
  const Tensor input = iota_f32({1, 2, 3, 6, 8, 2, 4, 3, 2});
  const std::vector<std::int64_t> block = {1, 1, 3, 4, 2, 2, 1};
  const Tensor output = s2b(input, i64({7}, block), zero_pads(7));
  EXPECT_EQ(output.shape(), (Shape{48, 2, 3, 2, 2, 1, 2, 3, 2}));
  expect_matches_formula(input, block, std::vector<std::int64_t>(14, 0));
}

TEST(SpaceToBatchNDCollapsing, TrivialDimsBetweenInternalOnesStay) {
  const Tensor input = iota_f32({2, 4, 3, 2, 2});
  expect_matches_formula(input, {2, 1, 2}, {0, 0, 0, 0, 0, 0});
  expect_matches_formula(input, {2, 1, 1, 2}, {1, 1, 0, 0, 0, 0, 0, 0});
}

TEST(SpaceToBatchNDCollapsing, TrivialDimsOnlyChangeTheReshape) {
  const Tensor plain = s2b(iota_f32({1, 4, 4, 1}), i32({2}, {2, 2}), zero_pads(2));
  const Tensor wrapped = s2b(iota_f32({1, 1, 4, 4, 1, 1}), i32({4}, {1, 2, 2, 1}), zero_pads(4));
  EXPECT_EQ(wrapped.shape(), (Shape{4, 1, 2, 2, 1, 1}));
  EXPECT_EQ(std::memcmp(plain.raw_data(), wrapped.raw_data(), 16 * sizeof(float)), 0);
}

TEST(SpaceToBatchNDCollapsing, IdentityReturnsTheInputAndRequestsNothing) {
  ExecOptions no_memory;
  no_memory.memory_limit_bytes = 0;
  const Tensor input = iota_f32({2, 3, 4});
  for (const auto& [block, pads] : {std::pair{i32({0}, {}), zero_pads(0)}, std::pair{i32({2}, {1, 1}), zero_pads(2)},
                                    std::pair{i64({1}, {1}), i32({1, 2}, {0, 0})}}) {
    Tensor output;
    ASSERT_TRUE(run_op(&SpaceToBatchND, input, block, pads, &output, no_memory).ok());
    EXPECT_EQ(output.raw_data(), input.raw_data());
    EXPECT_TRUE(BitEqual(output, iota_f32({2, 3, 4})));
  }
}

TEST(SpaceToBatchNDCollapsing, IdentitySkipsTheLaterChecks) {
  // B * P and the element count would not be checked: the output is the (valid) input.
  Tensor output;
  const Tensor input(DType::kFloat32, {k2p62, 0, 5});
  ASSERT_TRUE(run_op(&SpaceToBatchND, input, i64({2}, {1, 1}), zero_pads(2), &output).ok());
  EXPECT_EQ(output.shape(), input.shape());
}

// ---- Parameter dtypes, element dtypes, bit exactness ----

TEST(SpaceToBatchNDDtypes, Int32AndInt64ParametersAgree) {
  const Tensor input = iota_f32({2, 2, 4, 1});
  const Tensor expected = s2b(input, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}));
  EXPECT_TRUE(BitEqual(s2b(input, i64({2}, {2, 2}), i64({2, 2}, {0, 0, 2, 0})), expected));
  EXPECT_TRUE(BitEqual(s2b(input, i32({2}, {2, 2}), i64({2, 2}, {0, 0, 2, 0})), expected));
  EXPECT_TRUE(BitEqual(s2b(input, i64({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0})), expected));
}

TEST(SpaceToBatchNDDtypes, EveryRegisteredDtypeMatchesTheFormula) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    if (!space_batch::check_registered_on_cpu(dtype, "SpaceToBatchND").ok()) continue;
    const Tensor input = distinct_tensor(dtype, {2, 3, 4, 2});
    const Tensor expected = space_to_batch_by_formula(input, {2, 3}, {1, 0, 1, 1});
    EXPECT_TRUE(BitEqual(s2b(input, i32({2}, {2, 3}), i32({2, 2}, {1, 0, 1, 1})), expected)) << dtype_name(dtype);
  }
}

TEST(SpaceToBatchNDDtypes, DataMovementIsGenericOverEveryDtype) {
  // Unregistered dtypes (string, bool, complex, quantized) through the registration-free core:
  // the padding is T{} for each.
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    expect_matches_formula(distinct_tensor(dtype, {2, 3, 4, 2}), {2, 3}, {1, 0, 1, 1});
  }
  Tensor output;
  ASSERT_TRUE(space_batch::SpaceToBatchNDAnyDType(Tensor::from_values<std::string>({1, 2, 1}, {"a", "bb"}),
                                                  i32({1}, {2}), i32({1, 2}, {1, 1}), &output, {})
                  .ok());
  EXPECT_TRUE(BitEqual(output, Tensor::from_values<std::string>({2, 2, 1}, {"", "bb", "a", ""})));
}

TEST(SpaceToBatchNDDtypes, FloatBitsAreKeptExactly) {
  const auto bits32 = [](std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  const std::vector<float> values = {bits32(0x7fc12345),
                                     -0.0f,
                                     bits32(0xffc00001),
                                     bits32(0x00000001),
                                     std::numeric_limits<float>::infinity(),
                                     bits32(0x7f800001),
                                     1.0f,
                                     -2.5f};
  const Tensor output = s2b(f32({1, 4, 2}, values), i32({1}, {2}), i32({1, 2}, {0, 2}));
  const std::vector<float> expected = {values[0], values[1], values[4], values[5], 0, 0,
                                       values[2], values[3], values[6], values[7], 0, 0};
  EXPECT_TRUE(BitEqual(output, f32({2, 3, 2}, expected)));
  // -0.0 stays -0.0 and the inserted zero is +0.0.
  EXPECT_TRUE(std::signbit(output.data<float>()[1]));
  EXPECT_FALSE(std::signbit(output.data<float>()[4]));
  const double nan_payload = [] {
    std::uint64_t b = 0x7ff8dead0000beefull;
    double x;
    std::memcpy(&x, &b, 8);
    return x;
  }();
  EXPECT_TRUE(BitEqual(s2b(Tensor::from_values<double>({1, 2}, {nan_payload, -0.0}), i32({1}, {2}), zero_pads(1)),
                       Tensor::from_values<double>({2, 1}, {nan_payload, -0.0})));
}

// ---- The xtensor steps against the spec's formula ----

TEST(SpaceToBatchNDFormula, DrawnCasesMatch) {
  std::mt19937 rng(20240531);  // fixed seed: failures reproduce
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int c = 0; c < 60; ++c) {
    const int m = draw(1, 4);
    Shape shape = {draw(0, 3)};
    std::vector<std::int64_t> block, pads;
    for (int i = 0; i < m; ++i) {
      const int b = draw(1, 3), s = draw(0, 5), start = draw(0, 3);
      const int end = draw(0, 2) * b + (b - (s + start) % b) % b;  // padded divisible by b
      block.push_back(b);
      pads.insert(pads.end(), {start, end});
      shape.push_back(s);
    }
    for (int r = draw(0, 2); r > 0; --r) shape.push_back(draw(1, 3));
    SCOPED_TRACE("case " + std::to_string(c) + " input " + shape_string(shape));
    expect_matches_formula(distinct_tensor(DType::kInt32, shape), block, pads);
  }
}

}  // namespace
}  // namespace opconform::reference
