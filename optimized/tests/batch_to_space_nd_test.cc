// Optimized BatchToSpaceND against the spec (docs/contract/space_to_batch_nd.md): every check's
// code and message, and bit-exact equality with an independent index-formula oracle
// (tests/support) and with reference::BatchToSpaceND over a tile-boundary matrix, every element width (1, 2, 4,
// 8, 16 bytes, string), thread counts 1, 2, 3, 7, injected tile sizes, crops, and M = 1..6 with
// trivial dims leading, in the middle and trailing; and BatchToSpaceND(SpaceToBatchND(x)) == x.
#include "opconform/optimized/batch_to_space_nd.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "space_batch_op_test_util.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/reference/batch_to_space_nd.h"

namespace opconform {
namespace {

using optimized::BatchToSpaceND;

using namespace opconform::testing;  // the harness both ops' tests share
const SpaceBatchOp& kOp = kBatchToSpace;

Status run(const Tensor& input, const Tensor& block, const Tensor& crops, Tensor* out, ExecOptions o = {}) {
  return BatchToSpaceND(input, block, crops, out, o);
}

// ---------------------------------------------------------------------------------------------

TEST(OptimizedBatchToSpaceND, GoldenExamplesInverted) {
  std::vector<float> iota16(16);
  for (int i = 0; i < 16; ++i) iota16[i] = static_cast<float>(i + 1);
  Tensor out;
  ASSERT_TRUE(run(f32({4, 1, 1, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(out, f32({1, 2, 2, 1}, {1, 2, 3, 4})));
  ASSERT_TRUE(run(f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}), i32({2}, {2, 2}),
                  i32({2, 2}, {0, 0, 0, 0}), &out)
                  .ok());
  EXPECT_TRUE(BitEqual(out, f32({1, 4, 4, 1}, iota16)));
  ASSERT_TRUE(run(f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16}),
                  i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}), &out)
                  .ok());
  EXPECT_TRUE(BitEqual(out, f32({2, 2, 4, 1}, iota16)));
  ASSERT_TRUE(run(f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6}), i64({1}, {2}), i64({1, 2}, {1, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(out, f32({2, 3}, {1, 2, 3, 4, 5, 6})));
}

TEST(OptimizedBatchToSpaceND, EmptyShapesAndTheNegativeBlockQuirk) {
  Tensor out;
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {8, 2, 0}), i32({1}, {2}), i32({1, 2}, {1, 1}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{4, 2, 0}));
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {0, 2, 2}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{0, 4, 4}));
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {4, 1, 3}), i32({1}, {4}), i32({1, 2}, {2, 2}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{1, 0, 3}));
  // quirk: negative block values on internal dims of size 0 with zero crops.
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {4, 0, 0, 1}), i32({2}, {-2, -2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{1, 0, 0, 1}));
}

TEST(OptimizedBatchToSpaceND, IdentityReturnsTheInputAndRequestsNothing) { check_identity(kOp); }

TEST(OptimizedBatchToSpaceND, EveryRegisteredDTypeMovesBits) {
  for (DType dtype : kRegisteredDtypes) check_case(kOp, dtype, {12, 3, 3, 3}, {2, 3}, {1, 0, 2, 1}, exec(2, 0));
}

TEST(OptimizedBatchToSpaceND, KernelMovesSixteenByteElementsAndStrings) {
  for (DType dtype : {DType::kComplex128, DType::kString, DType::kBool})
    for (int threads : {1, 3})
      for (std::int64_t tile : {0, 1, 64}) {
        check_kernel(kOp, dtype, {12, 4, 3, 2}, {2, 3}, {1, 2, 0, 0}, exec(threads, tile));
        check_kernel(kOp, dtype, {9, 3, 1}, {3}, {4, 0}, exec(threads, tile));
        check_kernel(kOp, dtype, {4, 3, 3}, {1, 2}, {1, 1, 2, 0}, exec(threads, tile));  // b = 1 with crops
        check_kernel(kOp, dtype, {5, 2, 1}, {5}, {1, 0}, exec(threads, tile));           // runtime block
        // Rows of 9 positions per stream, block 2: tiles of 1, 2 and all 9 positions, with
        // and without crops at the row's ends; 2-element chunks of 16-byte dtypes.
        check_kernel(kOp, dtype, {8, 2, 9}, {2, 2}, {0, 1, 0, 0}, exec(threads, tile));
        check_kernel(kOp, dtype, {8, 2, 9}, {2, 2}, {1, 0, 1, 2}, exec(threads, tile));
        check_kernel(kOp, dtype, {8, 2, 9, 2}, {2, 2}, {0, 0, 3, 0}, exec(threads, tile));
      }
}

// The row dim (last internal block dim) is tiled by its input length: 0, 1, T-1, T, T+1,
// 2T+1 tiles of T positions, for every chunk width, block 1..5, with and without crops.
TEST(OptimizedBatchToSpaceND, TileBoundaryMatrix) {
  const std::int64_t t = 3;  // positions per tile
  for (const Width& w : kMatrixWidths) {
    const std::int64_t chunk =
        static_cast<std::int64_t>(dtype_storage_size(w.dtype)) * (w.depth.empty() ? 1 : w.depth[0]);
    for (std::int64_t b : {1, 2, 3, 4, 5})
      for (std::int64_t blocked : {std::int64_t{0}, std::int64_t{1}, t - 1, t, t + 1, 2 * t + 1})
        for (const auto& crop :
             std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {1, 0}, {0, 2}, {b + 1, 2 * b - 1}}) {
          if (b == 1 && crop.first == 0 && crop.second == 0) continue;  // collapses into the depth
          if (blocked * b < crop.first + crop.second) continue;
          Shape shape = {2 * 2 * b, 3, blocked};
          shape.insert(shape.end(), w.depth.begin(), w.depth.end());
          for (int threads : {1, 2, 3, 7}) {
            check_case(kOp, w.dtype, shape, {2, b}, {1, 0, crop.first, crop.second}, exec(threads, t * chunk * b));
            check_kernel(kOp, w.dtype, shape, {2, b}, {1, 0, crop.first, crop.second}, exec(threads, t * chunk * b));
          }
        }
  }
}

// Whole rows (one tile per row) along lines of groups cropped at both ends, split between
// threads so that a thread's first group sits at any phase of the block.
TEST(OptimizedBatchToSpaceND, WholeRowLinesSplitMidBlock) {
  for (std::int64_t b : {2, 3, 4})
    for (const auto& crop : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2 * b - 1}, {b + 1, b - 1}, {0, b}})
      for (int threads : {1, 2, 3, 5, 7}) {
        check_case(kOp, DType::kFloat32, {2 * b * 2, 8, 4, 3}, {b, 2}, {crop.first, crop.second, 0, 0},
                   exec(threads, 1 << 20));
        check_kernel(kOp, DType::kFloat32, {2 * b * 2, 8, 4, 3}, {b, 2}, {crop.first, crop.second, 0, 0},
                     exec(threads, 1 << 20));
      }
}

// Whole rows along short lines without crops: the walk goes on from one batch entry's line to
// the next (fewer than 8 groups group by group, more through one line call), from any group a
// thread starts at.
TEST(OptimizedBatchToSpaceND, WholeRowLinesChainAcrossBatchEntries) {
  for (std::int64_t b : {2, 3})
    for (std::int64_t blocked : {1, 2, 3})
      for (std::int64_t n : {1, 2, 3, 9})
        for (int threads : {1, 2, 3, 5, 7}) {
          check_case(kOp, DType::kFloat32, {n * b * 2, blocked, 4, 3}, {b, 2}, {0, 0, 0, 0}, exec(threads, 1 << 20));
          check_kernel(kOp, DType::kFloat32, {n * b * 2, blocked, 4, 3}, {b, 2}, {0, 0, 0, 0}, exec(threads, 1 << 20));
        }
}

// Whole rows of whole 64-byte chunks with streaming stores read the streams in bursts of
// groups, phase by phase: bursts of one group to many (2 and 64 groups of 2 positions here),
// group counts that end mid-burst, crops in the outer dims, a block of rank 1 (groups are batch
// entries) and 3, threads starting mid-burst and mid-phase.
TEST(OptimizedBatchToSpaceND, StreamedWholeRowsReadInBursts) {
  struct Case {
    DType dtype;
    Shape shape;
    std::vector<std::int64_t> block, crops;
  };
  const std::vector<Case> cases = {
      {DType::kFloat32, {8, 41, 2, 16}, {2, 2}, {0, 0, 0, 0}},
      {DType::kFloat32, {8, 41, 2, 16}, {2, 2}, {1, 2, 0, 0}},
      {DType::kFloat32, {12, 23, 3, 32}, {3, 2}, {2, 0, 0, 0}},
      {DType::kUInt8, {6, 5, 4, 64}, {3, 2}, {0, 1, 0, 0}},
      {DType::kFloat64, {2 * 70, 2, 8}, {2}, {0, 0}},
      {DType::kInt16, {12, 3, 5, 2, 96}, {2, 3, 2}, {1, 0, 0, 2, 0, 0}},
      {DType::kFloat32, {4, 9, 64, 32}, {2, 2}, {0, 1, 0, 0}},
  };
  for (const Case& c : cases)
    for (int threads : {1, 2, 3, 7}) {
      check_case(kOp, c.dtype, c.shape, c.block, c.crops, exec(threads, 1 << 20));
      check_kernel(kOp, c.dtype, c.shape, c.block, c.crops, exec(threads, 1 << 20));
    }
}

// Small unpadded outputs of one or two block dims: one line of whole rows (the one-line path).
TEST(OptimizedBatchToSpaceND, OneLineOutputs) { check_one_line_outputs(kOp); }

// M = 1..6 with trivial dims (block 1, no crops) leading, in the middle and trailing.
TEST(OptimizedBatchToSpaceND, CollapsingAndManyBlockDims) {
  check_case(kOp, DType::kFloat32, {4, 3, 3}, {2}, {0, 0}, exec(1, 0));
  check_case(kOp, DType::kFloat32, {6, 1, 2, 3}, {1, 3}, {0, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kFloat32, {4, 2, 3, 5}, {2, 1, 1}, {0, 0, 0, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kInt16, {12, 2, 3, 2, 2}, {2, 1, 3}, {0, 0, 0, 0, 0, 0}, exec(3, 8));
  check_case(kOp, DType::kUInt8, {6, 2, 2, 3, 2, 2}, {1, 2, 1, 3, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, exec(7, 1));
  check_case(kOp, DType::kFloat64, {72, 2, 1, 3, 1, 2, 3}, {1, 2, 2, 3, 2, 1}, {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
             exec(2, 16));
  check_case(kOp, DType::kFloat32, {96, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 3, 4, 2, 2, 1}, std::vector<std::int64_t>(14, 0),
             exec(2, 0));
  check_case(kOp, DType::kFloat32, {2, 3, 4}, {1, 2}, {1, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kFloat32, {4, 3, 4, 2}, {2, 1, 1}, {1, 0, 0, 0, 0, 2}, exec(3, 4));
}

// Valid cases drawn at random (M = 1..6, block 1..5, crops 0..3, depth 0..2 dims, batch
// 0..3 times the block product), against the oracle and the reference; then the inverse
// property BatchToSpaceND(SpaceToBatchND(x, b, p), b, p) == x.
TEST(OptimizedBatchToSpaceND, RandomValidCasesAndRoundTrip) {
  const DType dtypes[] = {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64, DType::kBFloat16};
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE(str_cat("seed ", seed));
    std::mt19937 rng(seed);
    const auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int m = draw(1, 6);
    const int window = draw(0, m - 1);  // dims outside a window of at most 4 are trivial
    std::int64_t product = 1;
    Shape shape = {0};
    std::vector<std::int64_t> block, crops;
    for (int i = 0; i < m; ++i) {
      const bool trivial = i < window || i >= window + 4 || draw(0, 3) == 0;
      const std::int64_t b = trivial ? 1 : draw(1, 5);
      std::int64_t cs = trivial ? 0 : draw(0, 3), ce = trivial ? 0 : draw(0, 3);
      const std::int64_t size = draw(0, 5);
      if (cs + ce > size * b) cs = ce = 0;
      product *= b;
      shape.push_back(size);
      block.push_back(b);
      crops.push_back(cs);
      crops.push_back(ce);
    }
    shape[0] = product * draw(0, 3);
    for (int r = draw(0, 2); r > 0; --r) shape.push_back(draw(0, 9) == 0 ? 0 : draw(1, 4));
    const int threads[] = {1, 2, 3, 7};
    const DType dtype = dtypes[draw(0, 4)];
    const ExecOptions options = exec(threads[draw(0, 3)], draw(0, 1) * draw(1, 64));
    check_case(kOp, dtype, shape, block, crops, options);
    check_kernel(kOp, dtype, shape, block, crops, options);

    // Round trip from the space side: x -> SpaceToBatchND -> BatchToSpaceND.
    Shape space_shape = {shape[0] / product};
    for (int i = 0; i < m; ++i) space_shape.push_back(shape[i + 1] * block[i] - crops[2 * i] - crops[2 * i + 1]);
    space_shape.insert(space_shape.end(), shape.begin() + m + 1, shape.end());
    const Tensor x = distinct_tensor(dtype, space_shape);
    const auto mm = static_cast<std::int64_t>(m);
    Tensor batched, back;
    ASSERT_TRUE(optimized::SpaceToBatchND(x, i64({mm}, block), i64({mm, 2}, crops), &batched, options).ok());
    ASSERT_TRUE(run(batched, i64({mm}, block), i64({mm, 2}, crops), &back, options).ok());
    EXPECT_TRUE(BitEqual(back, x));
  }
}

// ---------------------------------------------------------------------------------------------
// Checks, in the spec's order, with its messages; the output is left untouched on error.

TEST(OptimizedBatchToSpaceND, PreChecks) {
  const Tensor input(DType::kFloat32, {4, 1, 1, 1});
  const Tensor block = i32({2}, {2, 2}), crops = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(kOp, input, Tensor(DType::kFloat64, {2}), crops),
            invalid("Value for attr 'Tblock_shape' of float64 is not in the list of allowed values: int32, int64"));
  EXPECT_EQ(expect_error(kOp, input, block, Tensor(DType::kUInt64, {2, 2})),
            invalid("Value for attr 'Tcrops' of uint64 is not in the list of allowed values: int32, int64"));
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32})
    EXPECT_EQ(expect_error(kOp, Tensor(dtype, {4, 1, 1, 1}), block, crops),
              Status(Code::kUnimplemented, str_cat("No registered 'BatchToSpaceND' OpKernel for 'CPU' devices "
                                                   "compatible with T=",
                                                   dtype_name(dtype))));
}

TEST(OptimizedBatchToSpaceND, ChecksInOrder) {
  const Tensor f4(DType::kFloat32, {4, 2, 2, 1});
  const Tensor zeros22 = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(kOp, f4, i32({1, 2}, {2, 2}), zeros22), invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 3}), i32({2}, {2, 2}), zeros22),
            invalid("input rank should be >= 3 instead of 2"));
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("crops should have shape [2, 2] instead of [3,2]"));
  // Check 4: the exact product. TFSA-2021-084 first.
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 0}), zeros22),
            invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {4294967296, 4294967296}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {-4294967296, 4294967296}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {3037000500, 3037000500}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {INT64_MIN, -1}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {INT64_MIN, 1}), zeros22),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 2, 2, 1, 1}), i64({3}, {4294967296, 4294967296, 0}),
                         i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {-1, 2}), zeros22),
            invalid("Product of block sizes must be positive, got -2"));
  // Check 5.
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {3037000499, 3037000499}), zeros22),
            invalid("Input batch dimension (4) is not divisible by product of block sizes (9223372030926249001)"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {3, 2, 2, 1}), i32({2}, {2, 2}), zeros22),
            invalid("Input batch dimension (3) is not divisible by product of block sizes (4)"));
  // Check 6.
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 1, 1, 1, 1, 1}), i32({5}, {2, 1, 1, 1, 2}),
                         i32({5, 2}, std::vector<std::int32_t>(10, 0))),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
  // Check 9, in order per internal dim.
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, -1})), invalid("Crops must be non-negative"));
  // (An earlier empty dim lets a later one be huge in a valid input.)
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 0, 4611686018427387904}), i64({2}, {2, 2}), zeros22),
            invalid("cropped_shape[1] overflows int64"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {1, 2, 0, 0})),
            invalid("cropped_shape[0]=-1 must be non-negative"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 3, 0})),
            invalid("cropped_shape[1]=-1 must be non-negative"));
  // quirk: a negative block on a non-empty dim is caught by the cropped size.
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {-2, -2}), zeros22),
            invalid("cropped_shape[0]=-2 must be non-negative"));
  // The cropped size is exact: 2^63 - 1 fits although s * b alone does not.
  Tensor out;
  ASSERT_TRUE(
      run(Tensor(DType::kFloat32, {4, 0, 4611686018427387904}), i64({2}, {2, 2}), i64({2, 2}, {0, 0, 1, 0}), &out)
          .ok());
  EXPECT_EQ(out.shape(), (Shape{1, 0, INT64_MAX}));
}

TEST(OptimizedBatchToSpaceND, MemoryLimit) {
  const Tensor input(DType::kInt16, {4, 2, 2, 1});
  const Tensor block = i32({2}, {2, 2}), crops = i32({2, 2}, {0, 0, 0, 1});
  ExecOptions limit;
  limit.memory_limit_bytes = 64 + 12 * 2 - 1;
  EXPECT_EQ(expect_error(kOp, input, block, crops, limit),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,4,3,1] and type int16"));
  limit.memory_limit_bytes = 64 + 12 * 2;
  Tensor out;
  EXPECT_TRUE(run(input, block, crops, &out, limit).ok());
}

}  // namespace
}  // namespace opconform
