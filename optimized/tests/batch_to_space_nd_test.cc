// Optimized BatchToSpaceND against the spec (docs/contract/space_to_batch_nd.md): every check's
// code and message, and bit-exact equality with an independent index-formula oracle (below)
// and with reference::BatchToSpaceND over a tile-boundary matrix, every element width (1, 2, 4,
// 8, 16 bytes, string), thread counts 1, 2, 3, 7, injected tile sizes, crops, and M = 1..6 with
// trivial dims leading, in the middle and trailing; and BatchToSpaceND(SpaceToBatchND(x)) == x.
#include "opconform/optimized/batch_to_space_nd.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "space_batch_plan.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/reference/batch_to_space_nd.h"

namespace opconform {
namespace {

using optimized::BatchToSpaceND;

Tensor i32(Shape shape, std::vector<std::int32_t> v) { return Tensor::from_values<std::int32_t>(std::move(shape), v); }
Tensor i64(Shape shape, std::vector<std::int64_t> v) { return Tensor::from_values<std::int64_t>(std::move(shape), v); }

// Elements are pairwise distinct (as far as the width allows) and never T{}, so a wrong
// permutation or a missed zero cannot go unseen. Strings are "e<i>".
Tensor distinct(DType dtype, const Shape& shape) {
  Tensor t(dtype, shape);
  if (dtype == DType::kString) {
    for (std::int64_t i = 0; i < t.num_elements(); ++i) t.data<std::string>()[i] = "e" + std::to_string(i);
    return t;
  }
  const std::size_t w = dtype_storage_size(dtype);
  auto* bytes = static_cast<unsigned char*>(t.raw_data());
  for (std::int64_t i = 0; i < t.num_elements(); ++i) {
    std::uint64_t v = static_cast<std::uint64_t>(i) + 1;
    for (std::size_t k = 0; k < w; ++k) bytes[i * w + k] = static_cast<unsigned char>(k < 8 ? v >> (8 * k) : 0xA5 ^ k);
    if (w == 1 && bytes[i] == 0) bytes[i] = 1;
  }
  return t;
}

std::string element_string(const Tensor& t, std::int64_t i) {
  if (t.dtype() == DType::kString) return '"' + t.data<std::string>()[i] + '"';
  const std::size_t w = dtype_storage_size(t.dtype());
  std::ostringstream os;
  os << "0x" << std::hex;
  for (std::size_t k = w; k-- > 0;)
    os << static_cast<int>(static_cast<const unsigned char*>(t.raw_data())[i * w + k] >> 4)
       << static_cast<int>(static_cast<const unsigned char*>(t.raw_data())[i * w + k] & 15);
  return os.str();
}

std::string coordinate(const Shape& shape, std::int64_t i) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = i % shape[d];
    i /= shape[d];
  }
  return shape_string(c);
}

// Same dtype, shape and bits; otherwise names the first differing coordinate.
::testing::AssertionResult bit_equal(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype() || actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "got " << dtype_name(actual.dtype()) << shape_string(actual.shape())
                                         << ", want " << dtype_name(expected.dtype()) << shape_string(expected.shape());
  const std::size_t w = dtype_storage_size(actual.dtype());
  for (std::int64_t i = 0; i < actual.num_elements(); ++i) {
    const bool same = actual.dtype() == DType::kString
                          ? actual.data<std::string>()[i] == expected.data<std::string>()[i]
                          : std::memcmp(static_cast<const char*>(actual.raw_data()) + i * w,
                                        static_cast<const char*>(expected.raw_data()) + i * w, w) == 0;
    if (!same)
      return ::testing::AssertionFailure() << "at " << coordinate(actual.shape(), i) << ": got "
                                           << element_string(actual, i) << ", want " << element_string(expected, i);
  }
  return ::testing::AssertionSuccess();
}

void copy_element(const Tensor& from, std::int64_t i, Tensor& to, std::int64_t j) {
  if (from.dtype() == DType::kString) {
    to.data<std::string>()[j] = from.data<std::string>()[i];
    return;
  }
  const std::size_t w = dtype_storage_size(from.dtype());
  std::memcpy(static_cast<char*>(to.raw_data()) + j * w, static_cast<const char*>(from.raw_data()) + i * w, w);
}

// The spec's formula, element by element on the full (uncollapsed) shapes: output
// (n, x, r) = input (k*B + n, (x_i + crop_start_i) div b_i, r) with k the row-major index of
// the offsets (x_i + crop_start_i) mod b_i. Precondition: a valid case with a non-empty output.
Tensor oracle(const Tensor& input, const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& crops) {
  const std::size_t m = block.size();
  const Shape& in = input.shape();
  std::int64_t p = 1;
  for (std::int64_t b : block) p *= b;
  Shape out = {in[0] / p};
  for (std::size_t i = 0; i < m; ++i) out.push_back(in[i + 1] * block[i] - crops[2 * i] - crops[2 * i + 1]);
  for (std::size_t d = m + 1; d < in.size(); ++d) out.push_back(in[d]);
  Tensor result(input.dtype(), out);
  std::vector<std::int64_t> c(out.size());
  for (std::int64_t e = 0; e < result.num_elements(); ++e) {
    std::int64_t rest = e;
    for (std::size_t d = out.size(); d-- > 0;) {
      c[d] = rest % out[d];
      rest /= out[d];
    }
    std::int64_t k = 0;
    for (std::size_t i = 0; i < m; ++i) k = k * block[i] + (c[i + 1] + crops[2 * i]) % block[i];
    std::int64_t src = k * out[0] + c[0];
    for (std::size_t i = 0; i < m; ++i) src = src * in[i + 1] + (c[i + 1] + crops[2 * i]) / block[i];
    for (std::size_t d = m + 1; d < in.size(); ++d) src = src * in[d] + c[d];
    copy_element(input, src, result, e);
  }
  return result;
}

ExecOptions exec(int threads, std::int64_t tile_bytes) {
  ExecOptions o;
  o.num_threads = threads;
  o.tile_bytes = tile_bytes;
  return o;
}

std::string describe(DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                     const std::vector<std::int64_t>& crops, const ExecOptions& o) {
  return str_cat(dtype_name(dtype), shape_string(shape), " block ", shape_string(block), " crops ",
                 shape_string(crops), " threads ", o.num_threads, " tile_bytes ", o.tile_bytes);
}

// Runs the op on a distinct-valued input and checks it against the oracle and the reference.
void check_case(DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                const std::vector<std::int64_t>& crops, const ExecOptions& options) {
  SCOPED_TRACE(describe(dtype, shape, block, crops, options));
  const Tensor input = distinct(dtype, shape);
  const auto m = static_cast<std::int64_t>(block.size());
  const Tensor block_t = i64({m}, block), crops_t = i64({m, 2}, crops);
  Tensor actual;
  const Status status = BatchToSpaceND(input, block_t, crops_t, &actual, options);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(bit_equal(actual, oracle(input, block, crops)));
  Tensor expected;
  ASSERT_TRUE(reference::BatchToSpaceND(input, block_t, crops_t, &expected).ok());
  EXPECT_TRUE(bit_equal(actual, expected));
}

// The kernel on any dtype (the op registers only real number types): a plan without
// collapsing, compared with the oracle, with cached and with streaming stores.
void check_kernel(DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                  const std::vector<std::int64_t>& crops, const ExecOptions& options) {
  SCOPED_TRACE(describe(dtype, shape, block, crops, options));
  const Tensor input = distinct(dtype, shape);
  const Tensor expected = oracle(input, block, crops);
  optimized::space_batch::Plan plan;
  plan.batch = expected.shape()[0];
  for (std::size_t i = 0; i < block.size(); ++i) {
    plan.space.push_back(expected.shape()[i + 1]);
    plan.block.push_back(block[i]);
    plan.start.push_back(crops[2 * i]);
    plan.blocked.push_back(shape[i + 1]);
  }
  for (std::size_t d = block.size() + 1; d < shape.size(); ++d) plan.depth *= shape[d];
  // Cached stores whatever the size, then streaming stores for every destination.
  for (std::int64_t streaming_min_bytes : {std::numeric_limits<std::int64_t>::max(), std::int64_t{1}}) {
    ExecOptions o = options;
    o.streaming_min_bytes = streaming_min_bytes;
    Tensor actual = Tensor::uninitialized(dtype, expected.shape());
    optimized::space_batch::batch_to_space(plan, input, actual, o);
    EXPECT_TRUE(bit_equal(actual, expected)) << (streaming_min_bytes == 1 ? "streaming stores" : "cached stores");
  }
}

Status run(const Tensor& input, const Tensor& block, const Tensor& crops, Tensor* out, ExecOptions o = {}) {
  return BatchToSpaceND(input, block, crops, out, o);
}

// ---------------------------------------------------------------------------------------------

TEST(OptimizedBatchToSpaceND, GoldenExamplesInverted) {
  const auto f32 = [](Shape s, std::vector<float> v) { return Tensor::from_values<float>(std::move(s), v); };
  std::vector<float> iota16(16);
  for (int i = 0; i < 16; ++i) iota16[i] = static_cast<float>(i + 1);
  Tensor out;
  ASSERT_TRUE(run(f32({4, 1, 1, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({1, 2, 2, 1}, {1, 2, 3, 4})));
  ASSERT_TRUE(run(f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16}), i32({2}, {2, 2}),
                  i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({1, 4, 4, 1}, iota16)));
  ASSERT_TRUE(run(f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12, 0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16}),
                  i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({2, 2, 4, 1}, iota16)));
  ASSERT_TRUE(run(f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6}), i64({1}, {2}), i64({1, 2}, {1, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({2, 3}, {1, 2, 3, 4, 5, 6})));
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

TEST(OptimizedBatchToSpaceND, IdentityReturnsTheInputAndRequestsNothing) {
  const Tensor input = distinct(DType::kFloat32, {2, 3, 4});
  ExecOptions no_memory;
  no_memory.memory_limit_bytes = 0;
  for (const Tensor& block : {i32({0}, {}), i32({2}, {1, 1})}) {
    const auto m = block.num_elements();
    Tensor out;
    ASSERT_TRUE(run(input, block, i32({m, 2}, std::vector<std::int32_t>(2 * m, 0)), &out, no_memory).ok());
    EXPECT_EQ(out.raw_data(), input.raw_data());
    EXPECT_EQ(out.shape(), input.shape());
  }
}

TEST(OptimizedBatchToSpaceND, EveryRegisteredDTypeMovesBits) {
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kInt8, DType::kInt16,
                      DType::kInt32, DType::kInt64, DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64})
    check_case(dtype, {12, 3, 3, 3}, {2, 3}, {1, 0, 2, 1}, exec(2, 0));
}

TEST(OptimizedBatchToSpaceND, KernelMovesSixteenByteElementsAndStrings) {
  for (DType dtype : {DType::kComplex128, DType::kString, DType::kBool})
    for (int threads : {1, 3})
      for (std::int64_t tile : {0, 1, 64}) {
        check_kernel(dtype, {12, 4, 3, 2}, {2, 3}, {1, 2, 0, 0}, exec(threads, tile));
        check_kernel(dtype, {9, 3, 1}, {3}, {4, 0}, exec(threads, tile));
        check_kernel(dtype, {4, 3, 3}, {1, 2}, {1, 1, 2, 0}, exec(threads, tile));  // b = 1 with crops
        check_kernel(dtype, {5, 2, 1}, {5}, {1, 0}, exec(threads, tile));        // runtime block
        // Rows of 9 positions per stream, block 2: tiles of 1, 2 and all 9 positions, with
        // and without crops at the row's ends; 2-element chunks of 16-byte dtypes.
        check_kernel(dtype, {8, 2, 9}, {2, 2}, {0, 1, 0, 0}, exec(threads, tile));
        check_kernel(dtype, {8, 2, 9}, {2, 2}, {1, 0, 1, 2}, exec(threads, tile));
        check_kernel(dtype, {8, 2, 9, 2}, {2, 2}, {0, 0, 3, 0}, exec(threads, tile));
      }
}

// The row dim (last internal block dim) is tiled by its input length: 0, 1, T-1, T, T+1,
// 2T+1 tiles of T positions, for every chunk width, block 1..5, with and without crops.
TEST(OptimizedBatchToSpaceND, TileBoundaryMatrix) {
  const std::int64_t t = 3;  // positions per tile
  struct Width {
    DType dtype;
    Shape depth;
  };
  const std::vector<Width> widths = {
      {DType::kUInt8, {}},    {DType::kUInt16, {}},   {DType::kFloat32, {}},  {DType::kFloat64, {}},
      {DType::kFloat32, {4}},  // 16-byte chunks
      {DType::kUInt8, {3}},   {DType::kInt16, {5}},   {DType::kFloat32, {3}}, {DType::kFloat32, {32}},
      {DType::kFloat64, {40}},  // 320-byte chunks: memcpy per chunk
  };
  for (const Width& w : widths) {
    const std::int64_t chunk = static_cast<std::int64_t>(dtype_storage_size(w.dtype)) *
                               (w.depth.empty() ? 1 : w.depth[0]);
    for (std::int64_t b : {1, 2, 3, 4, 5})
      for (std::int64_t blocked : {std::int64_t{0}, std::int64_t{1}, t - 1, t, t + 1, 2 * t + 1})
        for (const auto& crop : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {1, 0}, {0, 2}, {b + 1, 2 * b - 1}}) {
          if (b == 1 && crop.first == 0 && crop.second == 0) continue;  // collapses into the depth
          if (blocked * b < crop.first + crop.second) continue;
          Shape shape = {2 * 2 * b, 3, blocked};
          shape.insert(shape.end(), w.depth.begin(), w.depth.end());
          for (int threads : {1, 2, 3, 7}) {
            check_case(w.dtype, shape, {2, b}, {1, 0, crop.first, crop.second}, exec(threads, t * chunk * b));
            check_kernel(w.dtype, shape, {2, b}, {1, 0, crop.first, crop.second}, exec(threads, t * chunk * b));
          }
        }
  }
}

// M = 1..6 with trivial dims (block 1, no crops) leading, in the middle and trailing.
TEST(OptimizedBatchToSpaceND, CollapsingAndManyBlockDims) {
  check_case(DType::kFloat32, {4, 3, 3}, {2}, {0, 0}, exec(1, 0));
  check_case(DType::kFloat32, {6, 1, 2, 3}, {1, 3}, {0, 0, 0, 0}, exec(2, 0));
  check_case(DType::kFloat32, {4, 2, 3, 5}, {2, 1, 1}, {0, 0, 0, 0, 0, 0}, exec(2, 0));
  check_case(DType::kInt16, {12, 2, 3, 2, 2}, {2, 1, 3}, {0, 0, 0, 0, 0, 0}, exec(3, 8));
  check_case(DType::kUInt8, {6, 2, 2, 3, 2, 2}, {1, 2, 1, 3, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, exec(7, 1));
  check_case(DType::kFloat64, {72, 2, 1, 3, 1, 2, 3}, {1, 2, 2, 3, 2, 1}, {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
             exec(2, 16));
  check_case(DType::kFloat32, {96, 1, 1, 1, 1, 1, 1, 1}, {1, 1, 3, 4, 2, 2, 1}, std::vector<std::int64_t>(14, 0),
             exec(2, 0));
  check_case(DType::kFloat32, {2, 3, 4}, {1, 2}, {1, 0, 0, 0}, exec(2, 0));
  check_case(DType::kFloat32, {4, 3, 4, 2}, {2, 1, 1}, {1, 0, 0, 0, 0, 2}, exec(3, 4));
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
    check_case(dtype, shape, block, crops, options);
    check_kernel(dtype, shape, block, crops, options);

    // Round trip from the space side: x -> SpaceToBatchND -> BatchToSpaceND.
    Shape space_shape = {shape[0] / product};
    for (int i = 0; i < m; ++i) space_shape.push_back(shape[i + 1] * block[i] - crops[2 * i] - crops[2 * i + 1]);
    space_shape.insert(space_shape.end(), shape.begin() + m + 1, shape.end());
    const Tensor x = distinct(dtype, space_shape);
    const auto mm = static_cast<std::int64_t>(m);
    Tensor batched, back;
    ASSERT_TRUE(optimized::SpaceToBatchND(x, i64({mm}, block), i64({mm, 2}, crops), &batched, options).ok());
    ASSERT_TRUE(run(batched, i64({mm}, block), i64({mm, 2}, crops), &back, options).ok());
    EXPECT_TRUE(bit_equal(back, x));
  }
}

// ---------------------------------------------------------------------------------------------
// Checks, in the spec's order, with its messages; the output is left untouched on error.

Status expect_error(const Tensor& input, const Tensor& block, const Tensor& crops, ExecOptions o = {}) {
  Tensor out = Tensor::from_values<float>({1}, {42.0f});
  const void* before = out.raw_data();
  const Status status = run(input, block, crops, &out, o);
  EXPECT_EQ(out.raw_data(), before);
  EXPECT_EQ(out.shape(), (Shape{1}));
  Tensor reference_out;
  EXPECT_EQ(status, reference::BatchToSpaceND(input, block, crops, &reference_out, o)) << "the reference disagrees";
  return status;
}

Status invalid(const std::string& message) { return Status(Code::kInvalidArgument, message); }

TEST(OptimizedBatchToSpaceND, PreChecks) {
  const Tensor input(DType::kFloat32, {4, 1, 1, 1});
  const Tensor block = i32({2}, {2, 2}), crops = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(input, Tensor(DType::kFloat64, {2}), crops),
            invalid("Value for attr 'Tblock_shape' of float64 is not in the list of allowed values: int32, int64"));
  EXPECT_EQ(expect_error(input, block, Tensor(DType::kUInt64, {2, 2})),
            invalid("Value for attr 'Tcrops' of uint64 is not in the list of allowed values: int32, int64"));
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32})
    EXPECT_EQ(expect_error(Tensor(dtype, {4, 1, 1, 1}), block, crops),
              Status(Code::kUnimplemented, str_cat("No registered 'BatchToSpaceND' OpKernel for 'CPU' devices "
                                                   "compatible with T=", dtype_name(dtype))));
}

TEST(OptimizedBatchToSpaceND, ChecksInOrder) {
  const Tensor f4(DType::kFloat32, {4, 2, 2, 1});
  const Tensor zeros22 = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(f4, i32({1, 2}, {2, 2}), zeros22), invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 3}), i32({2}, {2, 2}), zeros22),
            invalid("input rank should be >= 3 instead of 2"));
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("crops should have shape [2, 2] instead of [3,2]"));
  // Check 4: the exact product. TFSA-2021-084 first.
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 0}), zeros22), invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(expect_error(f4, i64({2}, {4294967296, 4294967296}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(f4, i64({2}, {-4294967296, 4294967296}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(f4, i64({2}, {3037000500, 3037000500}), zeros22),
            invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(f4, i64({2}, {INT64_MIN, -1}), zeros22), invalid("Product of block sizes overflows int64"));
  EXPECT_EQ(expect_error(f4, i64({2}, {INT64_MIN, 1}), zeros22),
            invalid("Product of block sizes must be positive, got -9223372036854775808"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 2, 2, 1, 1}), i64({3}, {4294967296, 4294967296, 0}),
                         i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("Product of block sizes must be positive, got 0"));
  EXPECT_EQ(expect_error(f4, i64({2}, {-1, 2}), zeros22), invalid("Product of block sizes must be positive, got -2"));
  // Check 5.
  EXPECT_EQ(expect_error(f4, i64({2}, {3037000499, 3037000499}), zeros22),
            invalid("Input batch dimension (4) is not divisible by product of block sizes (9223372030926249001)"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {3, 2, 2, 1}), i32({2}, {2, 2}), zeros22),
            invalid("Input batch dimension (3) is not divisible by product of block sizes (4)"));
  // Check 6.
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 1, 1, 1, 1, 1}), i32({5}, {2, 1, 1, 1, 2}),
                         i32({5, 2}, std::vector<std::int32_t>(10, 0))),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
  // Check 9, in order per internal dim.
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, -1})), invalid("Crops must be non-negative"));
  // (An earlier empty dim lets a later one be huge in a valid input.)
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 0, 4611686018427387904}), i64({2}, {2, 2}), zeros22),
            invalid("cropped_shape[1] overflows int64"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {1, 2, 0, 0})),
            invalid("cropped_shape[0]=-1 must be non-negative"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 3, 0})),
            invalid("cropped_shape[1]=-1 must be non-negative"));
  // quirk: a negative block on a non-empty dim is caught by the cropped size.
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {4, 1, 1, 1}), i32({2}, {-2, -2}), zeros22),
            invalid("cropped_shape[0]=-2 must be non-negative"));
  // The cropped size is exact: 2^63 - 1 fits although s * b alone does not.
  Tensor out;
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {4, 0, 4611686018427387904}), i64({2}, {2, 2}), i64({2, 2}, {0, 0, 1, 0}),
                  &out).ok());
  EXPECT_EQ(out.shape(), (Shape{1, 0, INT64_MAX}));
}

TEST(OptimizedBatchToSpaceND, MemoryLimit) {
  const Tensor input(DType::kInt16, {4, 2, 2, 1});
  const Tensor block = i32({2}, {2, 2}), crops = i32({2, 2}, {0, 0, 0, 1});
  ExecOptions limit;
  limit.memory_limit_bytes = 64 + 12 * 2 - 1;
  EXPECT_EQ(expect_error(input, block, crops, limit),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[1,4,3,1] and type int16"));
  limit.memory_limit_bytes = 64 + 12 * 2;
  Tensor out;
  EXPECT_TRUE(run(input, block, crops, &out, limit).ok());
}

}  // namespace
}  // namespace opconform
