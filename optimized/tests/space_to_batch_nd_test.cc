// Optimized SpaceToBatchND against the spec (docs/contract/space_to_batch_nd.md): every check's
// code and message, the golden examples, and bit-exact equality with an independent index
// formula oracle (tests/support) and with reference::SpaceToBatchND over a tile-boundary matrix,
// every element width (1, 2, 4, 8, 16 bytes, string), thread counts 1, 2, 3, 7, injected
// tile sizes, paddings, and M = 1..6 with trivial dims leading, in the middle and trailing.
#include "opconform/optimized/space_to_batch_nd.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "space_batch_op_test_util.h"
#include "opconform/reference/space_to_batch_nd.h"

namespace opconform {
namespace {

using optimized::SpaceToBatchND;

using namespace opconform::testing;  // the harness both ops' tests share
const SpaceBatchOp& kOp = kSpaceToBatch;

Status run(const Tensor& input, const Tensor& block, const Tensor& pads, Tensor* out, ExecOptions o = {}) {
  return SpaceToBatchND(input, block, pads, out, o);
}

// ---------------------------------------------------------------------------------------------

TEST(OptimizedSpaceToBatchND, GoldenExamples) {
  std::vector<float> iota16(16);
  for (int i = 0; i < 16; ++i) iota16[i] = static_cast<float>(i + 1);
  Tensor out;
  ASSERT_TRUE(run(f32({1, 2, 2, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(out, f32({4, 1, 1, 1}, {1, 2, 3, 4})));
  ASSERT_TRUE(
      run(f32({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out)
          .ok());
  EXPECT_TRUE(BitEqual(out, f32({4, 1, 1, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})));
  ASSERT_TRUE(run(f32({1, 4, 4, 1}, iota16), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(out, f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16})));
  ASSERT_TRUE(run(f32({2, 2, 4, 1}, iota16), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(
      out, f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16})));
  ASSERT_TRUE(run(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({1}, {2}), i64({1, 2}, {1, 0}), &out).ok());
  EXPECT_TRUE(BitEqual(out, f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6})));
}

TEST(OptimizedSpaceToBatchND, EmptyShapes) {
  Tensor out;
  // A spatial dim of 0 padded up: all zeros.
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {3, 0, 2, 5}), i32({1}, {3}), i32({1, 2}, {1, 2}), &out).ok());
  EXPECT_TRUE(BitEqual(out, Tensor(DType::kFloat32, {9, 1, 2, 5})));
  // A remaining dim of 0, and B = 0.
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {3, 1, 2, 0}), i32({2}, {1, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{6, 1, 1, 0}));
  ASSERT_TRUE(run(Tensor(DType::kInt8, {0, 4, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{0, 2, 2}));
}

TEST(OptimizedSpaceToBatchND, IdentityReturnsTheInputAndRequestsNothing) { check_identity(kOp); }

TEST(OptimizedSpaceToBatchND, EveryRegisteredDTypeMovesBits) {
  for (DType dtype : kRegisteredDtypes) check_case(kOp, dtype, {2, 5, 6, 3}, {2, 3}, {1, 0, 2, 1}, exec(2, 0));
}

// Widths the op does not register (16 bytes, string) through the kernel itself.
TEST(OptimizedSpaceToBatchND, KernelMovesSixteenByteElementsAndStrings) {
  for (DType dtype : {DType::kComplex128, DType::kString, DType::kBool})
    for (int threads : {1, 3})
      for (std::int64_t tile : {0, 1, 64}) {
        check_kernel(kOp, dtype, {2, 7, 9, 2}, {2, 3}, {1, 2, 0, 0}, exec(threads, tile));
        check_kernel(kOp, dtype, {3, 5, 1}, {3}, {4, 0}, exec(threads, tile));
        check_kernel(kOp, dtype, {2, 4, 6}, {1, 2}, {1, 1, 2, 0}, exec(threads, tile));  // b = 1 with padding
        check_kernel(kOp, dtype, {1, 9, 1}, {5}, {1, 0}, exec(threads, tile));           // runtime block
      }
}

// The row dim (last internal block dim) is tiled: its output length at 0, 1, T-1, T, T+1,
// 2T+1 tiles of T positions, for every chunk width, block 1..5, with and without padding.
TEST(OptimizedSpaceToBatchND, TileBoundaryMatrix) {
  const std::int64_t t = 3;  // positions per tile
  for (const Width& w : kMatrixWidths) {
    const std::int64_t chunk =
        static_cast<std::int64_t>(dtype_storage_size(w.dtype)) * (w.depth.empty() ? 1 : w.depth[0]);
    for (std::int64_t b : {1, 2, 3, 4, 5})
      for (std::int64_t blocked : {std::int64_t{0}, std::int64_t{1}, t - 1, t, t + 1, 2 * t + 1})
        for (const auto& pad :
             std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {1, 0}, {0, 2}, {b + 1, 2 * b - 1}}) {
          const std::int64_t padded = blocked * b;
          if (b == 1 && pad.first == 0 && pad.second == 0) continue;  // collapses into the depth
          const std::int64_t space = padded - pad.first - pad.second;
          if (space < 0) continue;
          Shape shape = {2, 3, space};
          shape.insert(shape.end(), w.depth.begin(), w.depth.end());
          for (int threads : {1, 2, 3, 7}) {
            check_case(kOp, w.dtype, shape, {2, b}, {1, 0, pad.first, pad.second}, exec(threads, t * chunk * b));
            check_kernel(kOp, w.dtype, shape, {2, b}, {1, 0, pad.first, pad.second}, exec(threads, t * chunk * b));
          }
        }
  }
}

// Whole rows (one tile per row) along lines of groups padded at both ends, split between
// threads so that a thread's first group sits at any phase of the block: the padded groups
// after the line's rows get their batch rows counted across the phase wraps.
TEST(OptimizedSpaceToBatchND, WholeRowLinesSplitMidBlock) {
  for (std::int64_t b : {2, 3, 4})
    for (const auto& pad : std::vector<std::pair<std::int64_t, std::int64_t>>{{1, 2 * b - 1}, {b + 1, b - 1}, {0, b}})
      for (int threads : {1, 2, 3, 5, 7}) {
        const std::int64_t h = 8 * b - pad.first - pad.second;
        check_case(kOp, DType::kFloat32, {2, h, 4, 3}, {b, 2}, {pad.first, pad.second, 0, 0}, exec(threads, 1 << 20));
        check_kernel(kOp, DType::kFloat32, {2, h, 4, 3}, {b, 2}, {pad.first, pad.second, 0, 0}, exec(threads, 1 << 20));
      }
}

// Whole rows along short lines without padding: the walk goes on from one batch entry's line
// to the next (fewer than 8 groups group by group, more through one line call), from any
// group a thread starts at.
TEST(OptimizedSpaceToBatchND, WholeRowLinesChainAcrossBatchEntries) {
  for (std::int64_t b : {2, 3})
    for (std::int64_t h : {b, 2 * b, 3 * b})
      for (std::int64_t n : {1, 2, 3, 9})
        for (int threads : {1, 2, 3, 5, 7}) {
          check_case(kOp, DType::kFloat32, {n, h, 4, 3}, {b, 2}, {0, 0, 0, 0}, exec(threads, 1 << 20));
          check_kernel(kOp, DType::kFloat32, {n, h, 4, 3}, {b, 2}, {0, 0, 0, 0}, exec(threads, 1 << 20));
        }
}

// Small unpadded outputs of one or two block dims: one line of whole rows (the one-line path).
TEST(OptimizedSpaceToBatchND, OneLineOutputs) { check_one_line_outputs(kOp); }

// M = 1..6 with trivial dims (block 1, no padding) leading, in the middle and trailing.
TEST(OptimizedSpaceToBatchND, CollapsingAndManyBlockDims) {
  check_case(kOp, DType::kFloat32, {2, 6, 3}, {2}, {0, 0}, exec(1, 0));
  check_case(kOp, DType::kFloat32, {2, 1, 6, 3}, {1, 3}, {0, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kFloat32, {2, 4, 3, 5}, {2, 1, 1}, {0, 0, 0, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kInt16, {2, 4, 3, 6, 2}, {2, 1, 3}, {0, 0, 0, 0, 0, 0}, exec(3, 8));
  check_case(kOp, DType::kUInt8, {1, 2, 4, 3, 6, 2}, {1, 2, 1, 3, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, exec(7, 1));
  check_case(kOp, DType::kFloat64, {3, 2, 2, 4, 3, 2, 3}, {1, 2, 2, 3, 2, 1}, {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
             exec(2, 16));
  // [1,1,3,4,2,2,1]: 4 internal dims succeed.
  check_case(kOp, DType::kFloat32, {2, 1, 1, 3, 4, 2, 2, 1}, {1, 1, 3, 4, 2, 2, 1}, std::vector<std::int64_t>(14, 0),
             exec(2, 0));
  // Trivial block values with padding stay internal.
  check_case(kOp, DType::kFloat32, {2, 3, 4}, {1, 2}, {1, 0, 0, 0}, exec(2, 0));
  check_case(kOp, DType::kFloat32, {2, 3, 4, 2}, {2, 1, 1}, {1, 0, 0, 0, 0, 2}, exec(3, 4));
}

// Valid cases drawn at random (M = 1..6, block 1..5, paddings 0..3, depth 0..2 dims, batch
// 0..3), each against the oracle and the reference with random threads and tiles.
TEST(OptimizedSpaceToBatchND, RandomValidCases) {
  const DType dtypes[] = {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kFloat64, DType::kBFloat16};
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    SCOPED_TRACE(str_cat("seed ", seed));
    std::mt19937 rng(seed);
    const auto draw = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    const int m = draw(1, 6);
    // Dims outside a window of at most 4 are trivial, so at most 4 internal dims remain.
    const int window = draw(0, m - 1);
    Shape shape = {draw(0, 3)};
    std::vector<std::int64_t> block, pads;
    for (int i = 0; i < m; ++i) {
      const bool trivial = i < window || i >= window + 4 || draw(0, 3) == 0;
      const std::int64_t b = trivial ? 1 : draw(1, 5);
      const std::int64_t ps = trivial ? 0 : draw(0, 3), pe = trivial ? 0 : draw(0, 3);
      std::int64_t padded = b * draw(0, 5);
      if (padded < ps + pe) padded += b * ((ps + pe - padded + b - 1) / b);
      shape.push_back(padded - ps - pe);
      block.push_back(b);
      pads.push_back(ps);
      pads.push_back(pe);
    }
    for (int r = draw(0, 2); r > 0; --r) shape.push_back(draw(0, 9) == 0 ? 0 : draw(1, 4));
    const int threads[] = {1, 2, 3, 7};
    const DType dtype = dtypes[draw(0, 4)];
    const ExecOptions options = exec(threads[draw(0, 3)], draw(0, 1) * draw(1, 64));
    check_case(kOp, dtype, shape, block, pads, options);
    check_kernel(kOp, dtype, shape, block, pads, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Checks, in the spec's order, with its messages; the output is left untouched on error.

TEST(OptimizedSpaceToBatchND, PreChecks) {
  const Tensor input(DType::kFloat32, {1, 2, 2, 1});
  const Tensor block = i32({2}, {2, 2}), pads = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(kOp, input, Tensor(DType::kFloat32, {2}), pads),
            invalid("Value for attr 'Tblock_shape' of float32 is not in the list of allowed values: int32, int64"));
  EXPECT_EQ(expect_error(kOp, input, block, Tensor(DType::kInt16, {2, 2})),
            invalid("Value for attr 'Tpaddings' of int16 is not in the list of allowed values: int32, int64"));
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32})
    EXPECT_EQ(expect_error(kOp, Tensor(dtype, {1, 2, 2, 1}), block, pads),
              Status(Code::kUnimplemented, str_cat("No registered 'SpaceToBatchND' OpKernel for 'CPU' devices "
                                                   "compatible with T=",
                                                   dtype_name(dtype))));
  // Attr checks come before registration, which comes before the op's own checks.
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kBool, {1}), Tensor(DType::kUInt8, {}), pads).code(),
            Code::kInvalidArgument);
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kBool, {1}), i32({}, {2}), pads).code(), Code::kUnimplemented);
}

TEST(OptimizedSpaceToBatchND, ChecksInOrder) {
  const Tensor f4(DType::kFloat32, {1, 4, 4, 1});
  const Tensor zeros22 = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(kOp, f4, i32({1, 2}, {2, 2}), zeros22), invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {2, 3}), i32({2}, {2, 2}), zeros22),
            invalid("input rank should be >= 3 instead of 2"));
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("paddings should have shape [2, 2] instead of [3,2]"));
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({4}, {0, 0, 0, 0})),
            invalid("paddings should have shape [2, 2] instead of [4]"));
  // TFSA-2021-085 and TFSA-2022-076.
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 0}), zeros22),
            invalid("All values in block_shape must be positive, got value, 0 at index 1."));
  const Tensor big(DType::kFloat32, {10, 19, 22});
  EXPECT_EQ(expect_error(kOp, big, i64({2}, {-1879048192, -1879048192}), zeros22),
            invalid("All values in block_shape must be positive, got value, -1879048192 at index 0."));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {10, 20, 20}), i64({2}, {-10, -10}), zeros22),
            invalid("All values in block_shape must be positive, got value, -10 at index 0."));
  EXPECT_EQ(expect_error(kOp, big, i64({2}, {1879048192, 1879048192}), zeros22),
            invalid("Negative output dimension size caused by overflow when multiplying 10 and 3530822107858468864"));
  // Check 5: the checked product (a wrapped negative, or -1 once negative).
  EXPECT_EQ(expect_error(kOp, f4, i64({2}, {4294967295, 4294967295}), zeros22),
            invalid("Product of block sizes must be positive, got -8589934591"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {1, 1, 1, 1}), i64({3}, {4294967295, 4294967295, 2}),
                         i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("Product of block sizes must be positive, got -1"));
  // Check 6: five internal dims.
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {1, 2, 1, 1, 1, 2}), i32({5}, {2, 1, 1, 1, 2}),
                         i32({5, 2}, std::vector<std::int32_t>(10, 0))),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
  // Check 9: element count overflow at a collapsed prefix dim (inputs are empty: a valid
  // tensor's row-major prefix products all fit).
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {2, 2305843009213693952, 0, 2}), i32({2}, {1, 2}),
                         i32({2, 2}, {0, 0, 1, 1})),
            invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: -9223372036854775808"));
  // Check 10, in order per internal dim.
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, -1, 1})),
            invalid("Paddings must be non-negative"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {1, 4611686018427387904, 0}), i64({1}, {2}),
                         i64({1, 2}, {4611686018427387904, 4611686018427387904})),
            invalid("padded_shape[0] overflows int64"));
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 1, 0})),
            invalid("padded_shape[1]=5 is not divisible by block_shape[1]=2"));
  EXPECT_EQ(expect_error(kOp, f4, i32({2}, {2, 2}), i32({2, 2}, {1, 0, 0, 0})),
            invalid("padded_shape[0]=5 is not divisible by block_shape[0]=2"));
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat32, {1, 0, 0}), i32({2}, {2, 2}),
                         i64({2, 2}, {4294967296, 4294967296, 4294967296, 4294967296})),
            invalid("Encountered overflow when multiplying 17179869184 with 4294967296, result: -1"));
  // Check 11: a remaining dim (the product read back as a wrapped negative).
  EXPECT_EQ(
      expect_error(kOp, Tensor(DType::kFloat32, {1, 0, 4611686018427387904, 4}), i32({1}, {2}), i32({1, 2}, {1, 1})),
      invalid("Encountered overflow when multiplying 2 with 4611686018427387904, result: -9223372036854775808"));
}

TEST(OptimizedSpaceToBatchND, MemoryLimit) {
  const Tensor input(DType::kFloat32, {1, 4, 4, 1});
  const Tensor block = i32({2}, {2, 2}), pads = i32({2, 2}, {0, 0, 0, 0});
  ExecOptions limit;
  limit.memory_limit_bytes = 64 + 16 * 4 - 1;
  EXPECT_EQ(expect_error(kOp, input, block, pads, limit),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[4,2,2,1] and type float32"));
  limit.memory_limit_bytes = 64 + 16 * 4;
  Tensor out;
  EXPECT_TRUE(run(input, block, pads, &out, limit).ok());
  // An empty input padded up to an output whose byte count overflows: exhausted, not allocated.
  EXPECT_EQ(expect_error(kOp, Tensor(DType::kFloat64, {1, 0}), i32({1}, {2}),
                         i64({1, 2}, {2305843009213693952, 2305843009213693952})),
            Status(Code::kResourceExhausted,
                   "OOM when allocating tensor with shape[2,2305843009213693952] and type float64"));
}

// The wide loops (row_copy.h) run where the CPU has AVX2 and the output and its source fit in
// the L1 data cache (on Intel, outputs up to the L2's size), and never once a test turns them
// off.
TEST(OptimizedSpaceToBatchND, WideMovesFollowTheCpuAndTheSize) {
  namespace row_copy = optimized::row_copy;
#if defined(__x86_64__)
  EXPECT_EQ(row_copy::cpu_has_wide_moves(), __builtin_cpu_supports("avx2") != 0);
#endif
  EXPECT_EQ(row_copy::takes_wide_moves(4096), row_copy::cpu_has_wide_moves());
  EXPECT_FALSE(row_copy::takes_wide_moves(std::max<std::int64_t>(row_copy::cache_sizes().l2, 1 << 20) + 1));
  constexpr std::int64_t kKiB = 1024;
  EXPECT_EQ(row_copy::wide_moves_max_bytes(32 * kKiB, 1024 * kKiB, false), 16 * kKiB);   // AMD Zen 4: half the L1
  EXPECT_EQ(row_copy::wide_moves_max_bytes(48 * kKiB, 2048 * kKiB, true), 2048 * kKiB);  // Intel: the L2
  EXPECT_EQ(row_copy::wide_moves_max_bytes(48 * kKiB, 0, true), 24 * kKiB);              // L2 unknown
  EXPECT_EQ(row_copy::wide_moves_max_bytes(-1, -1, false), 16 * kKiB);                   // L1 unknown: 32 KiB
  {
    const row_copy::ScopedWideMovesSetting off(0);
    EXPECT_FALSE(row_copy::takes_wide_moves(4096));
  }
  EXPECT_EQ(row_copy::takes_wide_moves(4096), row_copy::cpu_has_wide_moves());
}

// The kernels treat as beyond the caches what glibc's memcpy streams: on Intel 3/4 of the L3's
// share per thread plus the L2, elsewhere 3/4 of the whole L3 (the values `ld.so
// --list-diagnostics` reports on the Intel Xeon and AMD Zen 4 guests), at least 4 MiB.
TEST(OptimizedSpaceToBatchND, BeyondTheCachesIsWhereMemcpyStreams) {
  using optimized::row_copy::memcpy_streaming_min_bytes;
  constexpr std::int64_t kMiB = std::int64_t{1} << 20;
  EXPECT_EQ(memcpy_streaming_min_bytes(480 * kMiB, 2 * kMiB, 2, true), 0xb580000);
  EXPECT_EQ(memcpy_streaming_min_bytes(480 * kMiB, 2 * kMiB, 2, false), 360 * kMiB);
  EXPECT_EQ(memcpy_streaming_min_bytes(320 * kMiB, 1 * kMiB, 2, false), 240 * kMiB);
  EXPECT_EQ(memcpy_streaming_min_bytes(30 * kMiB, 2 * kMiB, 0, true), 24 * kMiB);  // sharing unknown: 1
  EXPECT_EQ(memcpy_streaming_min_bytes(-1, 16 * kMiB, 1, true), 12 * kMiB);        // no L3: the L2
  EXPECT_EQ(memcpy_streaming_min_bytes(4 * kMiB, 1 * kMiB, 4, true), 4 * kMiB);    // at least 4 MiB
  EXPECT_EQ(memcpy_streaming_min_bytes(-1, -1, 1, false), 32 * kMiB);              // nothing known
  EXPECT_GE(optimized::row_copy::memcpy_streaming_min_bytes(), 4 * kMiB);
}

}  // namespace
}  // namespace opconform
