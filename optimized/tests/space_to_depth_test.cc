// Unit tests of the optimized SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md):
// TensorFlow's own cases, every check against the reference (code and message, outputs
// untouched on error), and results bit for bit equal to the reference and to the contract's
// formula on random shapes, dtypes and knobs (thread counts 1-4, tiles down to one run).
#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <utility>

#include "depth_space_test_util.h"
#include "opconform/optimized/depth_to_space.h"
#include "opconform/optimized/space_to_depth.h"
#include "opconform/reference/depth_to_space.h"
#include "opconform/reference/space_to_depth.h"

namespace opconform::optimized {
namespace {

using namespace opconform::testing;

struct OpPair {
  const char* name;
  DepthSpaceFn optimized, reference;
  bool to_depth;
};
const OpPair kS2D{"SpaceToDepth", &optimized::SpaceToDepth, &reference::SpaceToDepth, true};
const OpPair kD2S{"DepthToSpace", &optimized::DepthToSpace, &reference::DepthToSpace, false};

Tensor run_ok(DepthSpaceFn op, const Tensor& input, std::int64_t block, const ExecOptions& options = {}) {
  Tensor output;
  const Status status = run_depth_space(op, input, block, "NHWC", &output, options);
  EXPECT_TRUE(status.ok()) << status;
  return output;
}

// The optimized op answers exactly what the reference answers (code, message, outputs).
void expect_same_outcome(const OpPair& op, const Tensor& input, std::int64_t block, std::string_view format = "NHWC",
                         const ExecOptions& options = {}) {
  Tensor mine, theirs;
  const Status s = run_depth_space(op.optimized, input, block, format, &mine, options);
  const Status r = run_depth_space(op.reference, input, block, format, &theirs, options);
  EXPECT_EQ(s, r) << op.name << " input " << shape_string(input.shape()) << " " << dtype_name(input.dtype())
                  << " block " << block << " " << format;
  if (s.ok() && r.ok()) {
    EXPECT_TRUE(BitEqual(mine, theirs));
  }
}

TEST(DepthSpaceOptimized, TensorFlowLiteralCases) {
  for (const TfCase& c : tf_space_to_depth_cases()) {
    SCOPED_TRACE(c.test);
    EXPECT_TRUE(BitEqual(run_ok(kS2D.optimized, f32(c.in_shape, c.in), c.block), f32(c.out_shape, c.out)));
  }
  for (const TfCase& c : tf_depth_to_space_cases()) {
    SCOPED_TRACE(c.test);
    EXPECT_TRUE(BitEqual(run_ok(kD2S.optimized, f32(c.in_shape, c.in), c.block), f32(c.out_shape, c.out)));
  }
}

TEST(DepthSpaceOptimized, EveryCheckAsTheReference) {
  constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
  const std::int64_t big = std::int64_t{1} << 40, m = std::int64_t{1} << 20;
  const std::vector<Shape> shapes = {{},           {4},          {1, 2, 2},      {1, 2, 2, 1, 1}, {1, 2, 2, 1},
                                     {1, 2, 3, 1}, {1, 3, 2, 1}, {1, 1, 1, 4},   {1, 2, 2, 4},    {1, 1, 1, 6},
                                     {0, 4, 0, 5}, {1, 0, 0, 1}, {1, 0, 0, big}, {1, big, 1, 0},  {1, 1, big, 0},
                                     {m, m, m, 0}, {0, 1, 1, 4}, {2, 0, 6, 3},   {2, 5, 3, 0}};
  const std::vector<std::int64_t> blocks = {
      kInt64Min, -1, 0, 1, 2, 3, 4, 10, 1 << 10, 1 << 30, 100000, kInt32Max, kInt32Max + 1, kInt64Max};
  for (const OpPair* op : {&kS2D, &kD2S})
    for (const Shape& shape : shapes)
      for (std::int64_t block : blocks) {
        expect_same_outcome(*op, Tensor(DType::kFloat32, shape), block);
        for (const char* format : {"NCHW", "NCHW_VECT_C", "nhwc"})
          expect_same_outcome(*op, Tensor(DType::kFloat32, shape), block, format);
      }
  for (int i = 0; i < kNumDTypes; ++i)
    for (const OpPair* op : {&kS2D, &kD2S}) {
      expect_same_outcome(*op, Tensor(all_dtypes()[i], {1, 2, 2, 4}), 2);
      expect_same_outcome(*op, Tensor(all_dtypes()[i], {1, 2, 2, 4}), 2, "NCHW");
    }
}

TEST(DepthSpaceOptimized, MemoryLimitAsTheReference) {
  for (std::int64_t limit : {0, 63, 64, 127, 128, 64 + 64 * 8 - 1, 64 + 64 * 8}) {
    ExecOptions options;
    options.memory_limit_bytes = limit;
    expect_same_outcome(kS2D, distinct_tensor(DType::kFloat64, {2, 4, 4, 2}), 2, "NHWC", options);
    expect_same_outcome(kD2S, distinct_tensor(DType::kFloat64, {2, 2, 2, 8}), 2, "NHWC", options);
    expect_same_outcome(kS2D, distinct_tensor(DType::kString, {1, 2, 2, 1}), 2, "NHWC", options);
    expect_same_outcome(kD2S, Tensor(DType::kInt8, {0, 3, 3, 4}), 2, "NHWC", options);
  }
}

// Random shapes, dtypes and knobs: equal to the reference and to the formula, bit for bit,
// and DepthToSpace undoes SpaceToDepth.
TEST(DepthSpaceOptimized, RandomCasesMatchReferenceFormulaAndRoundTrip) {
  std::mt19937 rng(2026);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 600; ++trial) {
    const std::int64_t b = pick(2, 5);
    const Shape space = {pick(0, 3), b * pick(0, 4), b * pick(0, 5), pick(0, 6)};
    const DType dtype = all_dtypes()[pick(0, kNumDTypes - 1)];
    if (dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32) continue;
    ExecOptions options;
    options.num_threads = pick(0, 4);
    const int tiles[] = {0, 1, 7, 16, 64, 1000};
    options.tile_bytes = tiles[pick(0, 5)];
    SCOPED_TRACE(shape_string(space) + " b=" + std::to_string(b) + " " + std::string(dtype_name(dtype)) + " " +
                 knobs_string(options));
    const Tensor x = distinct_tensor(dtype, space);
    const Tensor depth = run_ok(kS2D.optimized, x, b, options);
    EXPECT_TRUE(BitEqual(depth, depth_space_by_formula(x, b, true)));
    EXPECT_TRUE(BitEqual(depth, run_ok(kS2D.reference, x, b)));
    const Tensor back = run_ok(kD2S.optimized, depth, b, options);
    EXPECT_TRUE(BitEqual(back, x));
    const Tensor packed = distinct_tensor(dtype, depth.shape());
    EXPECT_TRUE(BitEqual(run_ok(kD2S.optimized, packed, b, options), run_ok(kD2S.reference, packed, b)));
  }
}

// Every mover of the kernel: chunks (b*C*width bytes) of 2-128 bytes, fixed, with blocks 2
// and 4 unrolled and others looped; other chunks in pieces of 1-16 bytes or, from 256 bytes,
// one memcpy; strings. On 1 and 3 threads, with tiles of one position and of a few.
TEST(DepthSpaceOptimized, EveryChunkWidthAndBlockMatchesTheFormula) {
  const std::pair<int, std::int64_t> knobs[] = {{1, 0}, {3, 1}, {3, 100}};  // threads, tile bytes
  for (DType dtype : {DType::kUInt8, DType::kInt16, DType::kFloat32, DType::kComplex128, DType::kString})
    for (std::int64_t b : {2, 3, 4, 5, 8})
      for (std::int64_t c : {1, 2, 3, 4, 8, 16}) {
        const Tensor x = distinct_tensor(dtype, {2, 2 * b, 3 * b, c});
        const Tensor packed = distinct_tensor(dtype, {2, 2, 3, b * b * c});
        for (const auto& [threads, tile] : knobs) {
          SCOPED_TRACE(std::string(dtype_name(dtype)) + " b=" + std::to_string(b) + " C=" + std::to_string(c) +
                       " threads=" + std::to_string(threads) + " tile=" + std::to_string(tile));
          ExecOptions options;
          options.num_threads = threads;
          options.tile_bytes = tile;
          EXPECT_TRUE(BitEqual(run_ok(kS2D.optimized, x, b, options), depth_space_by_formula(x, b, true)));
          EXPECT_TRUE(BitEqual(run_ok(kD2S.optimized, packed, b, options), depth_space_by_formula(packed, b, false)));
        }
      }
}

// Large enough for the thread policy's own decision (no tile given) and for several tiles per
// row at the default tile size; every element written once (poisoned output buffers).
TEST(DepthSpaceOptimized, LargeInputsWithDefaultKnobs) {
  BufferChecks checks;
  checks.enabled = true;
  set_buffer_checks(checks);
  for (DType dtype : {DType::kUInt8, DType::kFloat32, DType::kComplex128}) {
    const Tensor x = distinct_tensor(dtype, {2, 64, 96, 5});
    for (int threads : {0, 1, 3}) {
      ExecOptions options;
      options.num_threads = threads;
      const Tensor depth = run_ok(kS2D.optimized, x, 4, options);
      EXPECT_TRUE(BitEqual(depth, run_ok(kS2D.reference, x, 4)));
      EXPECT_TRUE(BitEqual(run_ok(kD2S.optimized, depth, 4, options), x));
      const Tensor wide = distinct_tensor(dtype, {1, 3, 2049, 2});
      EXPECT_TRUE(BitEqual(run_ok(kS2D.optimized, wide, 3, options), depth_space_by_formula(wide, 3, true)));
    }
  }
  set_buffer_checks(BufferChecks{});
}

}  // namespace
}  // namespace opconform::optimized
