// Unit tests of the reference BatchToSpaceND (docs/contract/space_to_batch_nd.md): every
// check with its exact message in the spec's order, the inverses of the golden examples, the
// collapsing rule, the advisory, the quirks, dtypes, the memory limit, the xtensor steps
// against the spec's formula, and BatchToSpaceND(SpaceToBatchND(x)) == x.
#include "opconform/reference/batch_to_space_nd.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "space_batch_common.h"
#include "opconform/reference/space_to_batch_nd.h"
#include "space_batch_test_util.h"

namespace opconform::reference {
namespace {

using namespace opconform::testing;

constexpr std::int64_t k2p32 = std::int64_t{1} << 32;
constexpr std::int64_t k2p62 = std::int64_t{1} << 62;
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

Tensor zero_crops(std::int64_t m) { return i64({m, 2}, std::vector<std::int64_t>(2 * m, 0)); }

Status b2s_status(const Tensor& input, const Tensor& block, const Tensor& crops, const ExecOptions& options = {}) {
  return status_of(&BatchToSpaceND, input, block, crops, options);
}

// Runs the op, expects success, and returns the output.
Tensor b2s(const Tensor& input, const Tensor& block, const Tensor& crops, const ExecOptions& options = {}) {
  Tensor output;
  const Status status = run_op(&BatchToSpaceND, input, block, crops, &output, options);
  EXPECT_TRUE(status.ok()) << status;
  return output;
}

Tensor param_vector(const std::vector<std::int64_t>& v) { return i64({static_cast<std::int64_t>(v.size())}, v); }
Tensor param_pairs(const std::vector<std::int64_t>& v) { return i64({static_cast<std::int64_t>(v.size() / 2), 2}, v); }

// The op agrees bit for bit with the spec's formula on `input`.
void expect_matches_formula(const Tensor& input, const std::vector<std::int64_t>& block,
                            const std::vector<std::int64_t>& crops) {
  const Tensor expected = batch_to_space_by_formula(input, block, crops);
  Tensor output;
  const Status status =
      space_batch::BatchToSpaceNDAnyDType(input, param_vector(block), param_pairs(crops), &output, {});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(BitEqual(output, expected))
      << "input " << shape_string(input.shape()) << " dtype " << dtype_name(input.dtype());
}

// BatchToSpaceND(SpaceToBatchND(x, b, p), b, p) == x, through the registration-free cores.
void expect_round_trip(const Tensor& x, const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& pads) {
  Tensor batched, restored;
  ASSERT_TRUE(space_batch::SpaceToBatchNDAnyDType(x, param_vector(block), param_pairs(pads), &batched, {}).ok());
  const Status status =
      space_batch::BatchToSpaceNDAnyDType(batched, param_vector(block), param_pairs(pads), &restored, {});
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(BitEqual(restored, x)) << "x " << shape_string(x.shape()) << " dtype " << dtype_name(x.dtype());
}

// ---- Pre-checks of spec README ----

TEST(BatchToSpaceNDPreChecks, BlockShapeDtypeMustBeIndex) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), Tensor(DType::kUInt64, {2}), zero_crops(2)),
            invalid("Value for attr 'Tblock_shape' of uint64 is not in the list of allowed values: "
                    "int32, int64"));
}

TEST(BatchToSpaceNDPreChecks, CropsDtypeMustBeIndex) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), f32({2, 2}, {0, 0, 0, 0})),
            invalid("Value for attr 'Tcrops' of float32 is not in the list of allowed values: "
                    "int32, int64"));
}

TEST(BatchToSpaceNDPreChecks, BlockShapeDtypeCheckedBeforeCrops) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), Tensor(DType::kInt8, {2}), Tensor(DType::kBool, {2, 2})).message(),
            "Value for attr 'Tblock_shape' of int8 is not in the list of allowed values: int32, int64");
}

TEST(BatchToSpaceNDPreChecks, UnregisteredDtypesAreUnimplemented) {
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32}) {
    EXPECT_EQ(
        b2s_status(Tensor(dtype, {4, 1, 1, 1}), i32({2}, {2, 2}), zero_crops(2)),
        Status(Code::kUnimplemented, "No registered 'BatchToSpaceND' OpKernel for 'CPU' devices compatible with T=" +
                                         std::string(dtype_name(dtype))));
  }
}

TEST(BatchToSpaceNDPreChecks, ArgumentTypesThenRegistrationThenTheOpsChecks) {
  EXPECT_EQ(b2s_status(Tensor(DType::kString, {4, 1, 1}), i32({2}, {2, 2}), f32({2, 2}, {0, 0, 0, 0})).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(b2s_status(Tensor(DType::kComplex64, {4}), i32({2, 2}, {2, 2, 2, 2}), zero_crops(2)).code(),
            Code::kUnimplemented);
}

// ---- Checks 1-10, in order ----

TEST(BatchToSpaceNDChecks, C1BlockShapeMustBeAVector) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({1, 2}, {2, 2}), zero_crops(2)),
            invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({}, {2}), zero_crops(1)),
            invalid("block_shape rank should be 1 instead of 0"));
}

TEST(BatchToSpaceNDChecks, C2InputRankAtLeastMPlusOne) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1}), i32({2}, {2, 2}), zero_crops(2)),
            invalid("input rank should be >= 3 instead of 2"));
}

TEST(BatchToSpaceNDChecks, C3CropsShape) {
  const Tensor input = iota_f32({4, 1, 1, 1});
  EXPECT_EQ(b2s_status(input, i32({2}, {2, 2}), i32({2}, {0, 0})),
            invalid("crops should have shape [2, 2] instead of [2]"));
  EXPECT_EQ(b2s_status(input, i32({2}, {2, 2}), zero_crops(1)),
            invalid("crops should have shape [2, 2] instead of [1,2]"));
  EXPECT_EQ(b2s_status(input, i32({2}, {2, 2}), i32({2, 3}, {0, 0, 0, 0, 0, 0})),
            invalid("crops should have shape [2, 2] instead of [2,3]"));
}

TEST(BatchToSpaceNDChecks, C4ZeroFactorMakesTheProductZero) {
  // A zero factor wins even over factors whose product overflows.
  EXPECT_EQ(b2s_status(iota_f32({1, 1, 1, 1}), i64({3}, {k2p32, k2p32, 0}), zero_crops(3)),
            invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(b2s_status(iota_f32({1, 1, 1, 1}), i64({3}, {0, kInt64Min, kInt64Min}), zero_crops(3)),
            invalid("Product of block sizes must be positive, got 0"));
}

TEST(BatchToSpaceNDChecks, C4ExactProductOverflowsInt64) {  // deviation
  const Tensor input = iota_f32({1, 1, 1});
  EXPECT_EQ(b2s_status(input, i64({2}, {k2p32, k2p32}), zero_crops(2)),
            invalid("Product of block sizes overflows int64"));
  // Exact, not wrapped as SpaceToBatchND's checked product is (-8589934591 there).
  EXPECT_EQ(b2s_status(input, i64({2}, {4294967295, 4294967295}), zero_crops(2)),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(b2s_status(input, i64({2}, {k2p62, 2}), zero_crops(2)), invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(b2s_status(input, i64({2}, {kInt64Min, -1}), zero_crops(2)),
            invalid("Product of block sizes overflows int64"));
  // Far outside, also past 128 bits.
  EXPECT_EQ(b2s_status(iota_f32({1, 1, 1, 1, 1, 1}), i64({5}, {kInt64Min, kInt64Min, kInt64Min, -3, 5}), zero_crops(5)),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(b2s_status(iota_f32({1, 1, 1, 1, 1, 1}), i64({5}, {k2p32, k2p32, k2p32, k2p32, k2p32}), zero_crops(5)),
            invalid("Product of block sizes overflows int64"));
}

TEST(BatchToSpaceNDChecks, C4ProductMustBePositive) {
  const Tensor input = iota_f32({4, 1, 1, 1});
  EXPECT_EQ(b2s_status(input, i32({2}, {-2, 3}), zero_crops(2)),
            invalid("Product of block sizes must be positive, got -6"));
  EXPECT_EQ(b2s_status(input, i64({1}, {kInt64Min}), zero_crops(1)),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
  EXPECT_EQ(b2s_status(input, i64({2}, {-k2p62, 2}), zero_crops(2)),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
  // The partial product 2^63 is outside int64 but the exact product -2^63 is inside.
  EXPECT_EQ(b2s_status(input, i64({3}, {k2p62, 2, -1}), zero_crops(3)),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
}

TEST(BatchToSpaceNDChecks, C5BatchDivisibleByProduct) {
  EXPECT_EQ(b2s_status(iota_f32({6, 1, 1, 1}), i32({2}, {2, 2}), zero_crops(2)),
            invalid("Input batch dimension (6) is not divisible by product of block sizes (4)"));
  EXPECT_EQ(b2s_status(iota_f32({1, 1, 1}), i64({2}, {3037000499, 3037000499}), zero_crops(2)),
            invalid("Input batch dimension (1) is not divisible by product of block sizes "
                    "(9223372030926249001)"));
  EXPECT_EQ(b2s_status(iota_f32({1, 1}), i64({1}, {kInt64Max}), zero_crops(1)),
            invalid("Input batch dimension (1) is not divisible by product of block sizes "
                    "(9223372036854775807)"));
  // An even number of negative values passes check 4 (quirk).
  EXPECT_EQ(b2s_status(iota_f32({5, 1, 1, 1}), i32({2}, {-2, -2}), zero_crops(2)),
            invalid("Input batch dimension (5) is not divisible by product of block sizes (4)"));
  // Check 5 comes before the internal-dims limit.
  EXPECT_EQ(b2s_status(iota_f32({2, 2, 1, 1, 1, 2}), i32({5}, {2, 1, 1, 1, 2}), zero_crops(5)),
            invalid("Input batch dimension (2) is not divisible by product of block sizes (4)"));
}

TEST(BatchToSpaceNDChecks, C6AtMostFourInternalBlockDims) {
  EXPECT_EQ(b2s_status(iota_f32({4, 2, 1, 1, 1, 2}), i32({5}, {2, 1, 1, 1, 2}), zero_crops(5)),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
}

TEST(BatchToSpaceNDChecks, C9CropsNonNegative) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, -1})),
            invalid("Crops must be non-negative"));
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 1}),
                       i32({2, 2}, {0, 0, std::numeric_limits<std::int32_t>::min(), 0})),
            invalid("Crops must be non-negative"));
}

TEST(BatchToSpaceNDChecks, C9CroppedShapeOverflow) {  // deviation
  // s * b = 2^63 needs a batch of 0: with B_in >= b the input itself would overflow.
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {0, k2p62, 0}), i64({1}, {2}), zero_crops(1)),
            invalid("cropped_shape[0] overflows int64"));
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {2, 0, 1}), i64({1}, {2}), i64({1, 2}, {kInt64Max, kInt64Max})),
            invalid("cropped_shape[0] overflows int64"));
  // A negative block (quirk) on a huge dim: s * b = -2^63 - 2.
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {0, k2p62 + 1, 0, 0}), i64({2}, {-2, -1}), zero_crops(2)),
            invalid("cropped_shape[0] overflows int64"));
  // The index names the position in the original block_shape, after the collapsed prefix.
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {0, 3, k2p62, 0}), i64({2}, {1, 2}), zero_crops(2)),
            invalid("cropped_shape[1] overflows int64"));
}

TEST(BatchToSpaceNDChecks, C9CroppedShapeNonNegative) {
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 3, 0, 0})),
            invalid("cropped_shape[0]=-1 must be non-negative"));
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 1})),
            invalid("cropped_shape[1]=-1 must be non-negative"));
  // Exactly -2^63 fits, so it is this message, not the overflow one.
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {2, 0, 1}), i64({1}, {2}), i64({1, 2}, {kInt64Max, 1})),
            invalid("cropped_shape[0]=-9223372036854775808 must be non-negative"));
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {0, k2p62, 0, 0}), i64({2}, {-2, -1}), zero_crops(2)),
            invalid("cropped_shape[0]=-9223372036854775808 must be non-negative"));
}

TEST(BatchToSpaceNDChecks, C9InternalDimsCheckedInOrder) {
  // Dim 0's cropped size is negative; dim 1's negative crop is never reached.
  EXPECT_EQ(b2s_status(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {2, 1, -1, 0})),
            invalid("cropped_shape[0]=-1 must be non-negative"));
}

TEST(BatchToSpaceNDChecks, C10MemoryLimit) {
  const Tensor input = iota_f32({4, 1, 1, 1});
  ExecOptions options;
  options.memory_limit_bytes = 64 + 4 * 4 - 1;
  EXPECT_EQ(b2s_status(input, i32({2}, {2, 2}), zero_crops(2), options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,2,2,1] and type float32"));
  options.memory_limit_bytes = 64 + 4 * 4;
  EXPECT_TRUE(b2s_status(input, i32({2}, {2, 2}), zero_crops(2), options).ok());
  // float16 counts 2 bytes an element.
  options.memory_limit_bytes = 64 + 4 * 2 - 1;
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat16, {4, 1, 1, 1}), i32({2}, {2, 2}), zero_crops(2), options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,2,2,1] and type float16"));
}

TEST(BatchToSpaceNDChecks, OutputUntouchedOnError) {
  Tensor output = Tensor::from_values<float>({2}, {5, 6});
  const Tensor before = output;
  EXPECT_FALSE(BatchToSpaceND(iota_f32({6, 1, 1, 1}), i32({2}, {2, 2}), zero_crops(2), &output).ok());
  EXPECT_EQ(output.raw_data(), before.raw_data());
  EXPECT_TRUE(BitEqual(output, Tensor::from_values<float>({2}, {5, 6})));
  ExecOptions tiny;
  tiny.memory_limit_bytes = 10;
  EXPECT_FALSE(BatchToSpaceND(iota_f32({4, 1, 1, 1}), i32({2}, {2, 2}), zero_crops(2), &output, tiny).ok());
  EXPECT_EQ(output.raw_data(), before.raw_data());
}

// ---- Advisories and crash paths ----

TEST(BatchToSpaceNDAdvisories, TFSA_2021_084_ZeroBlock) {
  EXPECT_EQ(b2s_status(iota_f32({4, 2, 2, 1}), i32({2}, {2, 0}), zero_crops(2)),
            invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(b2s_status(iota_f32({4, 2, 2, 1}), i64({2}, {0, 2}), i64({2, 2}, {0, 0, 0, 0})),
            invalid("Product of block sizes must be positive, got 0"));
}

TEST(BatchToSpaceNDAdvisories, BlockProductOverflowCrashPath) {
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {3, 4, 5}), i64({2}, {4294967296, 4294967296}), zero_crops(2)),
            invalid("Product of block sizes overflows int64"));
}

// ---- Quirks ----

TEST(BatchToSpaceNDQuirks, EvenNegativeBlocksOnEmptyDimsSucceedEmpty) {
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {6, 0, 0, 2}), i32({2}, {-2, -3}), zero_crops(2)),
                       Tensor(DType::kFloat32, {1, 0, 0, 2})));
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {3, 4, 0, 0}), i64({3}, {3, -1, -1}), zero_crops(3)),
                       Tensor(DType::kFloat32, {1, 12, 0, 0})));
  // An odd number of negative values is a negative product.
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {3, 4, 0, 2}), i64({2}, {3, -1}), zero_crops(2)),
            invalid("Product of block sizes must be positive, got -3"));
}

TEST(BatchToSpaceNDQuirks, NegativeBlockOnNonEmptyDimIsANegativeCroppedSize) {
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {6, 1, 0, 1}), i32({2}, {-2, -3}), zero_crops(2)),
            invalid("cropped_shape[0]=-2 must be non-negative"));
  EXPECT_EQ(b2s_status(Tensor(DType::kFloat32, {2, 0, 0, 1}), i32({2}, {-2, -1}), i32({2, 2}, {0, 1, 0, 0})),
            invalid("cropped_shape[0]=-1 must be non-negative"));
}

// ---- Golden examples: the inverses of the spec page's SpaceToBatchND examples ----

TEST(BatchToSpaceNDGolden, Example1Inverse) {
  EXPECT_TRUE(
      BitEqual(b2s(f32({4, 1, 1, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), zero_crops(2)), f32({1, 2, 2, 1}, {1, 2, 3, 4})));
}

TEST(BatchToSpaceNDGolden, Example2Inverse) {
  EXPECT_TRUE(BitEqual(b2s(iota_f32({4, 1, 1, 3}), i32({2}, {2, 2}), zero_crops(2)), iota_f32({1, 2, 2, 3})));
}

TEST(BatchToSpaceNDGolden, Example3Inverse) {
  EXPECT_TRUE(BitEqual(
      b2s(f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}), i32({2}, {2, 2}), zero_crops(2)),
      iota_f32({1, 4, 4, 1})));
}

TEST(BatchToSpaceNDGolden, Example4Inverse) {
  EXPECT_TRUE(
      BitEqual(b2s(f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16}),
                   i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0})),
               iota_f32({2, 2, 4, 1})));
}

TEST(BatchToSpaceNDGolden, OneBlockDimInverse) {
  EXPECT_TRUE(BitEqual(b2s(f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6}), i64({1}, {2}), i64({1, 2}, {1, 0})),
                       f32({2, 3}, {1, 2, 3, 4, 5, 6})));
}

TEST(BatchToSpaceNDGolden, CroppedToAZeroSpatialDim) {
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {9, 1, 2, 5}), i32({1}, {3}), i32({1, 2}, {1, 2})),
                       Tensor(DType::kFloat32, {3, 0, 2, 5})));
}

TEST(BatchToSpaceNDGolden, ZeroRemainingDimAndZeroBatch) {
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {6, 1, 1, 0}), i32({2}, {1, 2}), zero_crops(2)),
                       Tensor(DType::kFloat32, {3, 1, 2, 0})));
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {0, 2, 2, 1}), i32({2}, {2, 2}), zero_crops(2)),
                       Tensor(DType::kFloat32, {0, 4, 4, 1})));
}

TEST(BatchToSpaceNDGolden, HugeEmptyOutputSucceeds) {
  // s * b = 2^63 overflows, but one cropped element brings it to 2^63 - 1.
  EXPECT_TRUE(BitEqual(b2s(Tensor(DType::kFloat32, {0, k2p62, 0}), i64({1}, {2}), i64({1, 2}, {1, 0})),
                       Tensor(DType::kFloat32, {0, kInt64Max, 0})));
}

TEST(BatchToSpaceNDGolden, CropsBeyondOneBlockExtent) {
  // 4 blocks of 1 along one dim, crop 3 from the start: only the last block's element stays.
  EXPECT_TRUE(BitEqual(b2s(f32({4, 1, 2}, {1, 2, 3, 4, 5, 6, 7, 8}), i32({1}, {4}), i32({1, 2}, {3, 0})),
                       f32({1, 1, 2}, {7, 8})));
}

// ---- Collapsing and the identity path ----

TEST(BatchToSpaceNDCollapsing, FourInternalDimsBetweenTrivialOnesSucceed) {
  const Tensor x = distinct_tensor(DType::kInt32, {1, 2, 3, 6, 8, 2, 4, 3, 2});
  expect_round_trip(x, {1, 1, 3, 4, 2, 2, 1}, std::vector<std::int64_t>(14, 0));
  expect_matches_formula(distinct_tensor(DType::kInt32, {48, 2, 3, 2, 2, 1, 2, 3, 2}), {1, 1, 3, 4, 2, 2, 1},
                         std::vector<std::int64_t>(14, 0));
}

TEST(BatchToSpaceNDCollapsing, TrivialDimsOnlyChangeTheReshape) {
  const Tensor batched = f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16});
  Tensor wrapped_input =
      f32({4, 1, 2, 2, 1, 1}, std::vector<float>(batched.values<float>().begin(), batched.values<float>().end()));
  const Tensor wrapped = b2s(wrapped_input, i32({4}, {1, 2, 2, 1}), zero_crops(4));
  EXPECT_EQ(wrapped.shape(), (Shape{1, 1, 4, 4, 1, 1}));
  EXPECT_EQ(std::memcmp(wrapped.raw_data(), iota_f32({16}).raw_data(), 16 * sizeof(float)), 0);
}

TEST(BatchToSpaceNDCollapsing, IdentityReturnsTheInputAndRequestsNothing) {
  ExecOptions no_memory;
  no_memory.memory_limit_bytes = 0;
  const Tensor input = iota_f32({2, 3, 4});
  for (const auto& [block, crops] :
       {std::pair{i32({0}, {}), zero_crops(0)}, std::pair{i32({2}, {1, 1}), zero_crops(2)}}) {
    Tensor output;
    ASSERT_TRUE(run_op(&BatchToSpaceND, input, block, crops, &output, no_memory).ok());
    EXPECT_EQ(output.raw_data(), input.raw_data());
    EXPECT_TRUE(BitEqual(output, iota_f32({2, 3, 4})));
  }
}

// ---- Parameter dtypes, element dtypes, bit exactness ----

TEST(BatchToSpaceNDDtypes, Int32AndInt64ParametersAgree) {
  const Tensor input = distinct_tensor(DType::kFloat32, {8, 1, 3, 1});
  const Tensor expected = b2s(input, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}));
  EXPECT_TRUE(BitEqual(b2s(input, i64({2}, {2, 2}), i64({2, 2}, {0, 0, 2, 0})), expected));
  EXPECT_TRUE(BitEqual(b2s(input, i32({2}, {2, 2}), i64({2, 2}, {0, 0, 2, 0})), expected));
  EXPECT_TRUE(BitEqual(b2s(input, i64({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0})), expected));
}

TEST(BatchToSpaceNDDtypes, EveryRegisteredDtypeMatchesTheFormula) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    if (!space_batch::check_registered_on_cpu(dtype, "BatchToSpaceND").ok()) continue;
    const Tensor input = distinct_tensor(dtype, {12, 2, 2, 2});
    const Tensor expected = batch_to_space_by_formula(input, {2, 3}, {1, 0, 2, 1});
    EXPECT_TRUE(BitEqual(b2s(input, i32({2}, {2, 3}), i32({2, 2}, {1, 0, 2, 1})), expected)) << dtype_name(dtype);
  }
}

TEST(BatchToSpaceNDDtypes, DataMovementIsGenericOverEveryDtype) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    expect_matches_formula(distinct_tensor(dtype, {12, 2, 2, 2}), {2, 3}, {1, 0, 2, 1});
    expect_round_trip(distinct_tensor(dtype, {2, 3, 4, 2}), {2, 3}, {1, 0, 1, 1});
  }
}

TEST(BatchToSpaceNDDtypes, FloatBitsAreKeptExactly) {
  const auto bits32 = [](std::uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  };
  const Tensor x = f32({1, 4, 2}, {bits32(0x7fc12345), -0.0f, bits32(0xffc00001), bits32(0x00000001),
                                   -std::numeric_limits<float>::infinity(), bits32(0x7f800001), 0.0f, -2.5f});
  Tensor batched;
  ASSERT_TRUE(run_op(&SpaceToBatchND, x, i32({1}, {2}), i32({1, 2}, {1, 1}), &batched).ok());
  const Tensor restored = b2s(batched, i32({1}, {2}), i32({1, 2}, {1, 1}));
  EXPECT_TRUE(BitEqual(restored, x));
  EXPECT_TRUE(std::signbit(restored.data<float>()[1]));
}

// ---- The xtensor steps against the spec's formula, and the round trip ----

TEST(BatchToSpaceNDFormula, DrawnCasesMatch) {
  std::mt19937 rng(20240601);  // fixed seed: failures reproduce
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int c = 0; c < 60; ++c) {
    const int m = draw(1, 4);
    std::vector<std::int64_t> block, crops;
    std::int64_t product = 1;
    Shape shape = {0};
    for (int i = 0; i < m; ++i) {
      const int b = draw(1, 3), s = draw(0, 4);
      const int start = draw(0, s * b), end = draw(0, s * b - start);  // any crop that fits
      block.push_back(b);
      product *= b;
      crops.insert(crops.end(), {start, end});
      shape.push_back(s);
    }
    shape[0] = product * draw(0, 3);
    for (int r = draw(0, 2); r > 0; --r) shape.push_back(draw(1, 3));
    SCOPED_TRACE("case " + std::to_string(c) + " input " + shape_string(shape));
    expect_matches_formula(distinct_tensor(DType::kInt32, shape), block, crops);
  }
}

TEST(BatchToSpaceNDRoundTrip, UndoesSpaceToBatchND) {
  expect_round_trip(iota_f32({2, 2, 4, 1}), {2, 2}, {0, 0, 2, 0});
  expect_round_trip(iota_f32({3, 5}), {4}, {2, 1});
  expect_round_trip(distinct_tensor(DType::kUInt8, {1, 3, 2, 2, 3}), {3, 1, 2}, {0, 0, 1, 1, 0, 2});
  expect_round_trip(distinct_tensor(DType::kFloat64, {2, 1, 2, 3, 1, 2}), {2, 2, 3, 1}, {1, 0, 0, 0, 0, 0, 1, 0});
  expect_round_trip(distinct_tensor(DType::kInt64, {1, 1, 4, 4, 1, 1}), {1, 2, 2, 1}, std::vector<std::int64_t>(8, 0));
  std::mt19937 rng(20240602);
  auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int c = 0; c < 40; ++c) {
    const int m = draw(1, 4);
    Shape shape = {draw(0, 3)};
    std::vector<std::int64_t> block, pads;
    for (int i = 0; i < m; ++i) {
      const int b = draw(1, 3), s = draw(0, 5), start = draw(0, 3);
      block.push_back(b);
      pads.insert(pads.end(), {start, draw(0, 2) * b + (b - (s + start) % b) % b});
      shape.push_back(s);
    }
    for (int r = draw(0, 2); r > 0; --r) shape.push_back(draw(1, 3));
    SCOPED_TRACE("case " + std::to_string(c) + " x " + shape_string(shape));
    expect_round_trip(distinct_tensor(DType::kInt32, shape), block, pads);
  }
}

}  // namespace
}  // namespace opconform::reference
