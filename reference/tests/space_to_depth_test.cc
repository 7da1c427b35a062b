// Unit tests of the reference SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md):
// TensorFlow's own test cases, every check with its exact message in the contract's order,
// outputs untouched on error, dtypes, empty tensors, the memory limit, the round trip, and the
// xtensor steps against the contract's index formula.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "depth_space_test_util.h"
#include "opconform/reference/depth_to_space.h"
#include "opconform/reference/space_to_depth.h"

namespace opconform::reference {
namespace {

using namespace opconform::testing;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();

const DepthSpaceFn kS2D = &SpaceToDepth;
const DepthSpaceFn kD2S = &DepthToSpace;

Tensor run_ok(DepthSpaceFn op, const Tensor& input, std::int64_t block, const ExecOptions& options = {}) {
  Tensor output;
  const Status status = run_depth_space(op, input, block, "NHWC", &output, options);
  EXPECT_TRUE(status.ok()) << status;
  return output;
}

Status unregistered(const char* op, DType dtype) {
  return Status(Code::kUnimplemented,
                std::string("No registered '") + op +
                    "' OpKernel for 'CPU' devices compatible with T=" + std::string(dtype_name(dtype)));
}

// ---- TensorFlow's own cases (spacetodepth_op_test.py, depthtospace_op_test.py) ----

TEST(SpaceToDepthTf, LiteralCases) {
  for (const TfCase& c : tf_space_to_depth_cases()) {
    SCOPED_TRACE(c.test);
    EXPECT_TRUE(BitEqual(run_ok(kS2D, f32(c.in_shape, c.in), c.block), f32(c.out_shape, c.out)));
  }
}

TEST(DepthToSpaceTf, LiteralCases) {
  for (const TfCase& c : tf_depth_to_space_cases()) {
    SCOPED_TRACE(c.test);
    EXPECT_TRUE(BitEqual(run_ok(kD2S, f32(c.in_shape, c.in), c.block), f32(c.out_shape, c.out)));
  }
}

// testBasic of both files runs float16, uint8 (SpaceToDepth) and bfloat16 (DepthToSpace) too.
TEST(SpaceToDepthTf, BasicOtherDtypes) {
  const std::vector<std::uint16_t> half = {0x3C00, 0x4000, 0x4200, 0x4400};  // 1, 2, 3, 4
  std::vector<float16> h;
  for (auto bits : half) h.push_back(float16{bits});
  EXPECT_TRUE(BitEqual(run_ok(kS2D, Tensor::from_values<float16>({1, 2, 2, 1}, h), 2),
                       Tensor::from_values<float16>({1, 1, 1, 4}, h)));
  EXPECT_TRUE(BitEqual(run_ok(kS2D, Tensor::from_values<std::uint8_t>({1, 2, 2, 1}, {1, 2, 3, 4}), 2),
                       Tensor::from_values<std::uint8_t>({1, 1, 1, 4}, {1, 2, 3, 4})));
  std::vector<bfloat16> bf;
  for (std::uint16_t bits : {0x3F80, 0x4000, 0x4040, 0x4080}) bf.push_back(bfloat16{bits});
  EXPECT_TRUE(BitEqual(run_ok(kD2S, Tensor::from_values<bfloat16>({1, 1, 1, 4}, bf), 2),
                       Tensor::from_values<bfloat16>({1, 2, 2, 1}, bf)));
}

// testAgainstTranspose: ascending floats 0, 1, ... against the tests' reshape/transpose helper,
// which is the contract's formula; the qint8 variant with values ((f + 128) % 255) - 127.
TEST(SpaceToDepthTf, AgainstTranspose) {
  struct Case {
    std::int64_t batch, out_h, out_w, channels, block;
  };
  for (const Case& c : {Case{3, 2, 3, 1, 2}, Case{1, 2, 3, 2, 2}, Case{1, 2, 3, 2, 3}}) {
    const Shape shape = {c.batch, c.out_h * c.block, c.out_w * c.block, c.channels};
    Tensor input(DType::kFloat32, shape);
    std::vector<qint8> q;
    for (std::int64_t f = 0; f < input.num_elements(); ++f) {
      input.data<float>()[f] = static_cast<float>(f);
      q.push_back(qint8{static_cast<std::int8_t>((f + 128) % 255 - 127)});
    }
    EXPECT_TRUE(BitEqual(run_ok(kS2D, input, c.block), depth_space_by_formula(input, c.block, true)));
    const Tensor qinput = Tensor::from_values<qint8>(shape, q);
    EXPECT_TRUE(BitEqual(run_ok(kS2D, qinput, c.block), depth_space_by_formula(qinput, c.block, true)));
  }
}

TEST(DepthToSpaceTf, AgainstTranspose) {
  struct Case {
    std::int64_t batch, in_h, in_w, out_channels, block;
  };
  for (const Case& c : {Case{3, 2, 3, 1, 2}, Case{3, 2, 3, 2, 2}, Case{1, 2, 3, 2, 3}}) {
    Tensor input(DType::kFloat32, {c.batch, c.in_h, c.in_w, c.out_channels * c.block * c.block});
    for (std::int64_t f = 0; f < input.num_elements(); ++f) input.data<float>()[f] = static_cast<float>(f);
    EXPECT_TRUE(BitEqual(run_ok(kD2S, input, c.block), depth_space_by_formula(input, c.block, false)));
  }
}

TEST(SpaceToDepthTf, ErrorCases) {
  // testInputWrongDimMissingDepth, testInputWrongDimMissingBatch.
  EXPECT_EQ(depth_space_status(kS2D, f32({1, 2, 2}, {1, 2, 3, 4}), 2), invalid("Input rank should be 4 instead of 3"));
  EXPECT_EQ(depth_space_status(kS2D, f32({2, 2, 1}, {1, 2, 3, 4}), 2), invalid("Input rank should be 4 instead of 3"));
  // testBlockSize0, testBlockSizeOne: the attr's minimum.
  const Tensor x = f32({1, 2, 2, 1}, {1, 2, 3, 4});
  EXPECT_EQ(depth_space_status(kS2D, x, 0), invalid("Value for attr 'block_size' of 0 must be at least minimum 2"));
  EXPECT_EQ(depth_space_status(kS2D, x, 1), invalid("Value for attr 'block_size' of 1 must be at least minimum 2"));
  // testBlockSizeLarger, testBlockSizeNotDivisibleWidth/Height/Both.
  EXPECT_EQ(depth_space_status(kS2D, x, 10),
            invalid("Image width 2 and height 2 should be divisible by block_size: 10"));
  EXPECT_EQ(depth_space_status(kS2D, f32({1, 2, 3, 1}, {1, 2, 3, 3, 4, 7}), 3),
            invalid("Image width 3 and height 2 should be divisible by block_size: 3"));
  EXPECT_EQ(depth_space_status(kS2D, f32({1, 3, 2, 1}, {1, 2, 3, 4, 5, 6}), 3),
            invalid("Image width 2 and height 3 should be divisible by block_size: 3"));
  EXPECT_EQ(depth_space_status(kS2D, x, 3), invalid("Image width 2 and height 2 should be divisible by block_size: 3"));
}

TEST(DepthToSpaceTf, ErrorCases) {
  // testBlockSizeTooLarge: depth 4 is not divisible by 16.
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 2, 2, 4}), 4),
            invalid("Input depth dimension 4 should be divisible by: 16"));
  // testBlockSize0, testBlockSizeOne.
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 2, 2, 1}), 0),
            invalid("Value for attr 'block_size' of 0 must be at least minimum 2"));
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 2, 2, 4}), 1),
            invalid("Value for attr 'block_size' of 1 must be at least minimum 2"));
  // testBlockSizeOverflow (deviation: TensorFlow's int b*b wraps; the contract uses 10^10).
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 1, 1, 4}), 100000),
            invalid("Input depth dimension 4 should be divisible by: 10000000000"));
  // _testOne: NCHW on a CPU-only machine fails (InvalidArgumentError "No OpKernel was registered").
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 4, 1, 1}), 2, "NCHW").code(), Code::kInvalidArgument);
}

// ---- Every check, in order ----

TEST(DepthSpaceChecks, Pre2BlockSizeMinimum) {
  for (DepthSpaceFn op : {kS2D, kD2S}) {
    EXPECT_EQ(depth_space_status(op, iota_f32({1, 2, 2, 4}), -5),
              invalid("Value for attr 'block_size' of -5 must be at least minimum 2"));
    EXPECT_EQ(depth_space_status(op, iota_f32({1, 2, 2, 4}), kInt64Min),
              invalid("Value for attr 'block_size' of -9223372036854775808 must be at least minimum 2"));
    // Before the data_format, the dtype, the rank.
    EXPECT_EQ(depth_space_status(op, Tensor(DType::kQInt32, {}), 1, "NCDHW"),
              invalid("Value for attr 'block_size' of 1 must be at least minimum 2"));
  }
}

TEST(DepthSpaceChecks, Pre2DataFormatAllowedValues) {
  for (DepthSpaceFn op : {kS2D, kD2S}) {
    EXPECT_EQ(depth_space_status(op, iota_f32({1, 2, 2, 4}), 2, "nhwc"),
              invalid("Value for attr 'data_format' of \"nhwc\" is not in the list of allowed values: "
                      "\"NHWC\", \"NCHW\", \"NCHW_VECT_C\""));
    EXPECT_EQ(depth_space_status(op, iota_f32({1, 2, 2, 4}), 2, ""),
              invalid("Value for attr 'data_format' of \"\" is not in the list of allowed values: "
                      "\"NHWC\", \"NCHW\", \"NCHW_VECT_C\""));
    // Before the dtype's registration.
    EXPECT_EQ(depth_space_status(op, Tensor(DType::kQInt32, {1, 2, 2, 4}), 2, "HWCN").code(), Code::kInvalidArgument);
  }
}

TEST(DepthSpaceChecks, Pre3Registration) {
  for (DType dtype : {DType::kQUInt8, DType::kQInt32}) {
    EXPECT_EQ(depth_space_status(kS2D, Tensor(dtype, {1, 2, 2, 1}), 2), unregistered("SpaceToDepth", dtype));
    EXPECT_EQ(depth_space_status(kD2S, Tensor(dtype, {1, 1, 1, 4}), 2), unregistered("DepthToSpace", dtype));
  }
  // qint8: SpaceToDepth's CPU kernel has it (TF_CALL_qint8), DepthToSpace's has not.
  EXPECT_TRUE(depth_space_status(kS2D, Tensor(DType::kQInt8, {1, 2, 2, 1}), 2).ok());
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kQInt8, {1, 1, 1, 4}), 2),
            unregistered("DepthToSpace", DType::kQInt8));
  // The registration comes before the op's checks (rank, divisibility, int32 range).
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kQInt32, {3}), kInt64Max).code(), Code::kUnimplemented);
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kQUInt8, {1, 1, 1, 3}), 2).code(), Code::kUnimplemented);
}

TEST(DepthSpaceChecks, Pre3OnlyNhwcOnCpu) {
  for (const char* format : {"NCHW", "NCHW_VECT_C"}) {
    EXPECT_EQ(depth_space_status(kS2D, iota_f32({1, 1, 2, 2}), 2, format),
              invalid(std::string("Only NHWC data_format supported on CPU. Got ") + format));
    EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 4, 1, 1}), 2, format),
              invalid(std::string("Only NHWC data_format supported on CPU. Got ") + format));
    // After the dtype (UNIMPLEMENTED), before the op's own checks.
    EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kQInt8, {1, 4, 1, 1}), 2, format).code(), Code::kUnimplemented);
    EXPECT_EQ(depth_space_status(kS2D, iota_f32({5}), kInt64Max, format),
              invalid(std::string("Only NHWC data_format supported on CPU. Got ") + format));
  }
}

TEST(DepthSpaceChecks, S1BlockSizeFitsInt32) {
  for (DepthSpaceFn op : {kS2D, kD2S}) {
    EXPECT_EQ(depth_space_status(op, iota_f32({1, 2, 2, 4}), kInt32Max + 1),
              invalid("Attr block_size has value 2147483648 out of range for an int32"));
    // Before the rank.
    EXPECT_EQ(depth_space_status(op, iota_f32({4}), kInt64Max),
              invalid("Attr block_size has value 9223372036854775807 out of range for an int32"));
  }
}

TEST(DepthSpaceChecks, S2RankFour) {
  for (const Shape& shape : {Shape{}, Shape{4}, Shape{1, 2, 2}, Shape{1, 2, 2, 1, 1}}) {
    const std::string r = std::to_string(shape.size());
    EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kFloat32, shape), 2),
              invalid("Input rank should be 4 instead of " + r));
    EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, shape), 2),
              invalid("Input rank should be: 4 instead of: " + r));
  }
}

TEST(DepthSpaceChecks, S3Divisibility) {
  // Width and height are both printed, whichever fails; a huge block divides only 0.
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kFloat32, {1, 0, 0, 1}), kInt32Max).ok(), true);  // depth b*b fits
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kFloat32, {0, 4, 0, 5}), kInt32Max),
            invalid("Image width 0 and height 4 should be divisible by block_size: 2147483647"));
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {1, 1, 1, 0}), kInt32Max).ok(), true);
  // b*b = (2^31 - 1)^2 is exact, not wrapped.
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {0, 1, 1, 4}), kInt32Max),
            invalid("Input depth dimension 4 should be divisible by: 4611686014132420609"));
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 1, 1, 6}), 2),
            invalid("Input depth dimension 6 should be divisible by: 4"));
}

TEST(DepthSpaceChecks, S4OutputDimsOverflow) {
  // Only an empty tensor gets there: its dims are not bounded by the element count.
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kFloat32, {1, 0, 0, big}), kInt32Max),
            invalid("output depth 1099511627776 * 2147483647 * 2147483647 overflows int64"));
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {1, big, 1, 0}), 1 << 30),
            invalid("output height 1099511627776 * 1073741824 overflows int64"));
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {1, 1, big, 0}), 1 << 30),
            invalid("output width 1099511627776 * 1073741824 overflows int64"));
}

TEST(DepthSpaceChecks, S5OutputShapeOverflow) {
  // Input [2^20, 2^20, 2^20, 0] is valid (prefix products fit); the output [2^20, 2^30, 2^30, 0]
  // is not: 2^50 * 2^30 overflows the unsigned product.
  const std::int64_t m = std::int64_t{1} << 20;
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {m, m, m, 0}), 1 << 10),
            invalid("Encountered overflow when multiplying 1125899906842624 with 1073741824, result: -1"));
  // 2^32 * 2^31 = 2^63 comes back wrapped.
  EXPECT_EQ(depth_space_status(kD2S, Tensor(DType::kFloat32, {std::int64_t{1} << 31, 1, std::int64_t{1} << 30, 0}), 2),
            invalid("Encountered overflow when multiplying 4294967296 with 2147483648, result: -9223372036854775808"));
}

TEST(DepthSpaceChecks, S6MemoryLimit) {
  ExecOptions options;
  options.memory_limit_bytes = 64 + 16 * 4;  // float32 [1, 2, 2, 4]: exactly fits
  EXPECT_TRUE(depth_space_status(kS2D, iota_f32({1, 4, 4, 1}), 2, "NHWC", options).ok());
  EXPECT_TRUE(depth_space_status(kD2S, iota_f32({1, 2, 2, 4}), 2, "NHWC", options).ok());
  options.memory_limit_bytes -= 1;
  EXPECT_EQ(depth_space_status(kS2D, iota_f32({1, 4, 4, 1}), 2, "NHWC", options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,2,2,4] and type float32"));
  EXPECT_EQ(depth_space_status(kD2S, iota_f32({1, 2, 2, 4}), 2, "NHWC", options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,4,4,1] and type float32"));
  // An empty output still requests 64 bytes; strings count 24 bytes each.
  options.memory_limit_bytes = 63;
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kFloat32, {0, 2, 2, 1}), 2, "NHWC", options).code(),
            Code::kResourceExhausted);
  options.memory_limit_bytes = 64 + 4 * 24;
  EXPECT_TRUE(depth_space_status(kS2D, Tensor(DType::kString, {1, 2, 2, 1}), 2, "NHWC", options).ok());
  options.memory_limit_bytes -= 1;
  EXPECT_EQ(depth_space_status(kS2D, Tensor(DType::kString, {1, 2, 2, 1}), 2, "NHWC", options),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,1,1,4] and type string"));
}

// ---- Results ----

TEST(DepthSpaceResults, EmptyTensorsKeepTheComputedShape) {
  EXPECT_EQ(run_ok(kS2D, Tensor(DType::kInt32, {2, 0, 6, 3}), 3).shape(), (Shape{2, 0, 2, 27}));
  EXPECT_EQ(run_ok(kS2D, Tensor(DType::kInt32, {2, 4, 6, 0}), 2).shape(), (Shape{2, 2, 3, 0}));
  EXPECT_EQ(run_ok(kD2S, Tensor(DType::kInt32, {2, 0, 3, 8}), 2).shape(), (Shape{2, 0, 6, 2}));
  EXPECT_EQ(run_ok(kD2S, Tensor(DType::kInt32, {2, 5, 3, 0}), 7).shape(), (Shape{2, 35, 21, 0}));
}

TEST(DepthSpaceResults, EveryRegisteredDtypeMatchesTheFormulaAndRoundTrips) {
  for (int i = 0; i < kNumDTypes; ++i) {
    const DType dtype = all_dtypes()[i];
    SCOPED_TRACE(dtype_name(dtype));
    const Tensor space = distinct_tensor(dtype, {2, 6, 4, 3});
    const bool s2d = dtype != DType::kQUInt8 && dtype != DType::kQInt32;
    const bool d2s = s2d && dtype != DType::kQInt8;
    if (!s2d) continue;
    const Tensor depth = run_ok(kS2D, space, 2);
    EXPECT_TRUE(BitEqual(depth, depth_space_by_formula(space, 2, true)));
    if (!d2s) continue;
    EXPECT_TRUE(BitEqual(run_ok(kD2S, depth, 2), space));
    const Tensor packed = distinct_tensor(dtype, {1, 2, 3, 18});
    EXPECT_TRUE(BitEqual(run_ok(kD2S, packed, 3), depth_space_by_formula(packed, 3, false)));
  }
}

TEST(DepthSpaceResults, RandomShapesMatchTheFormulaAndRoundTrip) {
  std::mt19937 rng(32);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 200; ++trial) {
    const std::int64_t b = pick(2, 4);
    const Shape space = {pick(0, 3), b * pick(0, 3), b * pick(0, 4), pick(0, 5)};
    const DType dtype = all_dtypes()[pick(0, kNumDTypes - 1)];
    if (dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32) continue;
    SCOPED_TRACE(shape_string(space) + " b=" + std::to_string(b) + " " + std::string(dtype_name(dtype)));
    const Tensor x = distinct_tensor(dtype, space);
    const Tensor depth = run_ok(kS2D, x, b);
    EXPECT_TRUE(BitEqual(depth, depth_space_by_formula(x, b, true)));
    EXPECT_TRUE(BitEqual(run_ok(kD2S, depth, b), x));
  }
}

// Strings move by value, payloads of any length.
TEST(DepthSpaceResults, DepthToSpaceOfSpaceToDepthIsIdentityOnStrings) {
  const Tensor x = distinct_tensor(DType::kString, {1, 4, 6, 2});
  EXPECT_TRUE(BitEqual(run_ok(kD2S, run_ok(kS2D, x, 2), 2), x));
}

}  // namespace
}  // namespace opconform::reference
