// Optimized SpaceToBatchND against the spec (docs/contract/space_to_batch_nd.md): every check's
// code and message, the golden examples, and bit-exact equality with an independent index
// formula oracle (below) and with reference::SpaceToBatchND over a tile-boundary matrix,
// every element width (1, 2, 4, 8, 16 bytes, string), thread counts 1, 2, 3, 7, injected
// tile sizes, paddings, and M = 1..6 with trivial dims leading, in the middle and trailing.
#include "opconform/optimized/space_to_batch_nd.h"

#include <gtest/gtest.h>

#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "space_batch_plan.h"
#include "opconform/reference/space_to_batch_nd.h"

namespace opconform {
namespace {

using optimized::SpaceToBatchND;

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

// The spec's "Result" formula, element by element, on the full (uncollapsed) shapes.
// Precondition: a valid case.
Tensor oracle(const Tensor& input, const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& pads) {
  const std::size_t m = block.size();
  const Shape& in = input.shape();
  std::int64_t p = 1;
  for (std::int64_t b : block) p *= b;
  Shape out = {in[0] * p};
  for (std::size_t i = 0; i < m; ++i) out.push_back((in[i + 1] + pads[2 * i] + pads[2 * i + 1]) / block[i]);
  for (std::size_t d = m + 1; d < in.size(); ++d) out.push_back(in[d]);
  Tensor result(input.dtype(), out);  // T{} everywhere: the padding
  std::vector<std::int64_t> c(out.size());
  for (std::int64_t e = 0; e < result.num_elements(); ++e) {
    std::int64_t rest = e;
    for (std::size_t d = out.size(); d-- > 0;) {
      c[d] = rest % out[d];
      rest /= out[d];
    }
    const std::int64_t n = c[0] % in[0];
    std::int64_t k = c[0] / in[0];
    std::vector<std::int64_t> offset(m);
    for (std::size_t i = m; i-- > 0;) {
      offset[i] = k % block[i];
      k /= block[i];
    }
    std::int64_t src = n;
    bool inside = true;
    for (std::size_t i = 0; i < m; ++i) {
      const std::int64_t x = c[i + 1] * block[i] + offset[i] - pads[2 * i];
      inside = inside && x >= 0 && x < in[i + 1];
      src = src * in[i + 1] + x;
    }
    for (std::size_t d = m + 1; d < in.size(); ++d) src = src * in[d] + c[d];
    if (inside) copy_element(input, src, result, e);
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
                     const std::vector<std::int64_t>& pads, const ExecOptions& o) {
  return str_cat(dtype_name(dtype), shape_string(shape), " block ", shape_string(block), " paddings ",
                 shape_string(pads), " threads ", o.num_threads, " tile_bytes ", o.tile_bytes);
}

// Runs the op on a distinct-valued input and checks it against the oracle and the reference.
void check_case(DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                const std::vector<std::int64_t>& pads, const ExecOptions& options) {
  SCOPED_TRACE(describe(dtype, shape, block, pads, options));
  const Tensor input = distinct(dtype, shape);
  const auto m = static_cast<std::int64_t>(block.size());
  const Tensor block_t = i64({m}, block), pads_t = i64({m, 2}, pads);
  Tensor actual;
  const Status status = SpaceToBatchND(input, block_t, pads_t, &actual, options);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(bit_equal(actual, oracle(input, block, pads)));
  Tensor expected;
  ASSERT_TRUE(reference::SpaceToBatchND(input, block_t, pads_t, &expected).ok());
  EXPECT_TRUE(bit_equal(actual, expected));
}

// The kernel on any dtype (the op registers only real number types): a plan without
// collapsing, compared with the oracle, with cached and with streaming stores.
void check_kernel(DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                  const std::vector<std::int64_t>& pads, const ExecOptions& options) {
  SCOPED_TRACE(describe(dtype, shape, block, pads, options));
  const Tensor input = distinct(dtype, shape);
  const Tensor expected = oracle(input, block, pads);
  optimized::space_batch::Plan plan;
  plan.batch = shape[0];
  for (std::size_t i = 0; i < block.size(); ++i) {
    plan.space.push_back(shape[i + 1]);
    plan.block.push_back(block[i]);
    plan.start.push_back(pads[2 * i]);
    plan.blocked.push_back(expected.shape()[i + 1]);
  }
  for (std::size_t d = block.size() + 1; d < shape.size(); ++d) plan.depth *= shape[d];
  // Cached stores whatever the size, then streaming stores for every destination.
  for (std::int64_t streaming_min_bytes : {std::numeric_limits<std::int64_t>::max(), std::int64_t{1}}) {
    ExecOptions o = options;
    o.streaming_min_bytes = streaming_min_bytes;
    Tensor actual = Tensor::uninitialized(dtype, expected.shape());
    optimized::space_batch::space_to_batch(plan, input, actual, o);
    EXPECT_TRUE(bit_equal(actual, expected)) << (streaming_min_bytes == 1 ? "streaming stores" : "cached stores");
  }
}

Status run(const Tensor& input, const Tensor& block, const Tensor& pads, Tensor* out, ExecOptions o = {}) {
  return SpaceToBatchND(input, block, pads, out, o);
}

// ---------------------------------------------------------------------------------------------

TEST(OptimizedSpaceToBatchND, GoldenExamples) {
  const auto f32 = [](Shape s, std::vector<float> v) { return Tensor::from_values<float>(std::move(s), v); };
  std::vector<float> iota16(16);
  for (int i = 0; i < 16; ++i) iota16[i] = static_cast<float>(i + 1);
  Tensor out;
  ASSERT_TRUE(run(f32({1, 2, 2, 1}, {1, 2, 3, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({4, 1, 1, 1}, {1, 2, 3, 4})));
  ASSERT_TRUE(run(f32({1, 2, 2, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}), i32({2}, {2, 2}),
                  i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({4, 1, 1, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})));
  ASSERT_TRUE(run(f32({1, 4, 4, 1}, iota16), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({4, 2, 2, 1}, {1, 3, 9, 11, 2, 4, 10, 12, 5, 7, 13, 15, 6, 8, 14, 16})));
  ASSERT_TRUE(run(f32({2, 2, 4, 1}, iota16), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 2, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({8, 1, 3, 1}, {0, 1, 3, 0, 9, 11, 0, 2, 4, 0, 10, 12,
                                                0, 5, 7, 0, 13, 15, 0, 6, 8, 0, 14, 16})));
  ASSERT_TRUE(run(f32({2, 3}, {1, 2, 3, 4, 5, 6}), i64({1}, {2}), i64({1, 2}, {1, 0}), &out).ok());
  EXPECT_TRUE(bit_equal(out, f32({4, 2}, {0, 2, 0, 5, 1, 3, 4, 6})));
}

TEST(OptimizedSpaceToBatchND, EmptyShapes) {
  Tensor out;
  // A spatial dim of 0 padded up: all zeros.
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {3, 0, 2, 5}), i32({1}, {3}), i32({1, 2}, {1, 2}), &out).ok());
  EXPECT_TRUE(bit_equal(out, Tensor(DType::kFloat32, {9, 1, 2, 5})));
  // A remaining dim of 0, and B = 0.
  ASSERT_TRUE(run(Tensor(DType::kFloat32, {3, 1, 2, 0}), i32({2}, {1, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{6, 1, 1, 0}));
  ASSERT_TRUE(run(Tensor(DType::kInt8, {0, 4, 4}), i32({2}, {2, 2}), i32({2, 2}, {0, 0, 0, 0}), &out).ok());
  EXPECT_EQ(out.shape(), (Shape{0, 2, 2}));
}

TEST(OptimizedSpaceToBatchND, IdentityReturnsTheInputAndRequestsNothing) {
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

TEST(OptimizedSpaceToBatchND, EveryRegisteredDTypeMovesBits) {
  for (DType dtype : {DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64, DType::kInt8, DType::kInt16,
                      DType::kInt32, DType::kInt64, DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64})
    check_case(dtype, {2, 5, 6, 3}, {2, 3}, {1, 0, 2, 1}, exec(2, 0));
}

// Widths the op does not register (16 bytes, string) through the kernel itself.
TEST(OptimizedSpaceToBatchND, KernelMovesSixteenByteElementsAndStrings) {
  for (DType dtype : {DType::kComplex128, DType::kString, DType::kBool})
    for (int threads : {1, 3})
      for (std::int64_t tile : {0, 1, 64}) {
        check_kernel(dtype, {2, 7, 9, 2}, {2, 3}, {1, 2, 0, 0}, exec(threads, tile));
        check_kernel(dtype, {3, 5, 1}, {3}, {4, 0}, exec(threads, tile));
        check_kernel(dtype, {2, 4, 6}, {1, 2}, {1, 1, 2, 0}, exec(threads, tile));  // b = 1 with padding
        check_kernel(dtype, {1, 9, 1}, {5}, {1, 0}, exec(threads, tile));        // runtime block
      }
}

// The row dim (last internal block dim) is tiled: its output length at 0, 1, T-1, T, T+1,
// 2T+1 tiles of T positions, for every chunk width, block 1..5, with and without padding.
TEST(OptimizedSpaceToBatchND, TileBoundaryMatrix) {
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
        for (const auto& pad : std::vector<std::pair<std::int64_t, std::int64_t>>{{0, 0}, {1, 0}, {0, 2}, {b + 1, 2 * b - 1}}) {
          const std::int64_t padded = blocked * b;
          if (b == 1 && pad.first == 0 && pad.second == 0) continue;  // collapses into the depth
          const std::int64_t space = padded - pad.first - pad.second;
          if (space < 0) continue;
          Shape shape = {2, 3, space};
          shape.insert(shape.end(), w.depth.begin(), w.depth.end());
          for (int threads : {1, 2, 3, 7}) {
            check_case(w.dtype, shape, {2, b}, {1, 0, pad.first, pad.second}, exec(threads, t * chunk * b));
            check_kernel(w.dtype, shape, {2, b}, {1, 0, pad.first, pad.second}, exec(threads, t * chunk * b));
          }
        }
  }
}

// M = 1..6 with trivial dims (block 1, no padding) leading, in the middle and trailing.
TEST(OptimizedSpaceToBatchND, CollapsingAndManyBlockDims) {
  check_case(DType::kFloat32, {2, 6, 3}, {2}, {0, 0}, exec(1, 0));
  check_case(DType::kFloat32, {2, 1, 6, 3}, {1, 3}, {0, 0, 0, 0}, exec(2, 0));
  check_case(DType::kFloat32, {2, 4, 3, 5}, {2, 1, 1}, {0, 0, 0, 0, 0, 0}, exec(2, 0));
  check_case(DType::kInt16, {2, 4, 3, 6, 2}, {2, 1, 3}, {0, 0, 0, 0, 0, 0}, exec(3, 8));
  check_case(DType::kUInt8, {1, 2, 4, 3, 6, 2}, {1, 2, 1, 3, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, exec(7, 1));
  check_case(DType::kFloat64, {3, 2, 2, 4, 3, 2, 3}, {1, 2, 2, 3, 2, 1}, {0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0},
             exec(2, 16));
  // [1,1,3,4,2,2,1]: 4 internal dims succeed.
  check_case(DType::kFloat32, {2, 1, 1, 3, 4, 2, 2, 1}, {1, 1, 3, 4, 2, 2, 1},
             std::vector<std::int64_t>(14, 0), exec(2, 0));
  // Trivial block values with padding stay internal.
  check_case(DType::kFloat32, {2, 3, 4}, {1, 2}, {1, 0, 0, 0}, exec(2, 0));
  check_case(DType::kFloat32, {2, 3, 4, 2}, {2, 1, 1}, {1, 0, 0, 0, 0, 2}, exec(3, 4));
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
    check_case(dtype, shape, block, pads, options);
    check_kernel(dtype, shape, block, pads, options);
  }
}

// ---------------------------------------------------------------------------------------------
// Checks, in the spec's order, with its messages; the output is left untouched on error.

Status expect_error(const Tensor& input, const Tensor& block, const Tensor& pads, ExecOptions o = {}) {
  Tensor out = Tensor::from_values<float>({1}, {42.0f});
  const void* before = out.raw_data();
  const Status status = run(input, block, pads, &out, o);
  EXPECT_EQ(out.raw_data(), before);
  EXPECT_EQ(out.shape(), (Shape{1}));
  Tensor reference_out;
  EXPECT_EQ(status, reference::SpaceToBatchND(input, block, pads, &reference_out, o)) << "the reference disagrees";
  return status;
}

Status invalid(const std::string& message) { return Status(Code::kInvalidArgument, message); }

TEST(OptimizedSpaceToBatchND, PreChecks) {
  const Tensor input(DType::kFloat32, {1, 2, 2, 1});
  const Tensor block = i32({2}, {2, 2}), pads = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(input, Tensor(DType::kFloat32, {2}), pads),
            invalid("Value for attr 'Tblock_shape' of float32 is not in the list of allowed values: int32, int64"));
  EXPECT_EQ(expect_error(input, block, Tensor(DType::kInt16, {2, 2})),
            invalid("Value for attr 'Tpaddings' of int16 is not in the list of allowed values: int32, int64"));
  for (DType dtype : {DType::kBool, DType::kComplex64, DType::kComplex128, DType::kString, DType::kQInt8,
                      DType::kQUInt8, DType::kQInt32})
    EXPECT_EQ(expect_error(Tensor(dtype, {1, 2, 2, 1}), block, pads),
              Status(Code::kUnimplemented, str_cat("No registered 'SpaceToBatchND' OpKernel for 'CPU' devices "
                                                   "compatible with T=", dtype_name(dtype))));
  // Attr checks come before registration, which comes before the op's own checks.
  EXPECT_EQ(expect_error(Tensor(DType::kBool, {1}), Tensor(DType::kUInt8, {}), pads).code(), Code::kInvalidArgument);
  EXPECT_EQ(expect_error(Tensor(DType::kBool, {1}), i32({}, {2}), pads).code(), Code::kUnimplemented);
}

TEST(OptimizedSpaceToBatchND, ChecksInOrder) {
  const Tensor f4(DType::kFloat32, {1, 4, 4, 1});
  const Tensor zeros22 = i32({2, 2}, {0, 0, 0, 0});
  EXPECT_EQ(expect_error(f4, i32({1, 2}, {2, 2}), zeros22), invalid("block_shape rank should be 1 instead of 2"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {2, 3}), i32({2}, {2, 2}), zeros22),
            invalid("input rank should be >= 3 instead of 2"));
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("paddings should have shape [2, 2] instead of [3,2]"));
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({4}, {0, 0, 0, 0})),
            invalid("paddings should have shape [2, 2] instead of [4]"));
  // TFSA-2021-085 and TFSA-2022-076.
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 0}), zeros22),
            invalid("All values in block_shape must be positive, got value, 0 at index 1."));
  const Tensor big(DType::kFloat32, {10, 19, 22});
  EXPECT_EQ(expect_error(big, i64({2}, {-1879048192, -1879048192}), zeros22),
            invalid("All values in block_shape must be positive, got value, -1879048192 at index 0."));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {10, 20, 20}), i64({2}, {-10, -10}), zeros22),
            invalid("All values in block_shape must be positive, got value, -10 at index 0."));
  EXPECT_EQ(expect_error(big, i64({2}, {1879048192, 1879048192}), zeros22),
            invalid("Negative output dimension size caused by overflow when multiplying 10 and 3530822107858468864"));
  // Check 5: the checked product (a wrapped negative, or -1 once negative).
  EXPECT_EQ(expect_error(f4, i64({2}, {4294967295, 4294967295}), zeros22),
            invalid("Product of block sizes must be positive, got -8589934591"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {1, 1, 1, 1}), i64({3}, {4294967295, 4294967295, 2}),
                         i32({3, 2}, {0, 0, 0, 0, 0, 0})),
            invalid("Product of block sizes must be positive, got -1"));
  // Check 6: five internal dims.
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {1, 2, 1, 1, 1, 2}), i32({5}, {2, 1, 1, 1, 2}),
                         i32({5, 2}, std::vector<std::int32_t>(10, 0))),
            invalid("Maximum number of non-combined block dimensions is 5 but must not exceed 4"));
  // Check 9: element count overflow at a collapsed prefix dim (inputs are empty: a valid
  // tensor's row-major prefix products all fit).
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {2, 2305843009213693952, 0, 2}), i32({2}, {1, 2}),
                         i32({2, 2}, {0, 0, 1, 1})),
            invalid("Encountered overflow when multiplying 4 with 2305843009213693952, result: -9223372036854775808"));
  // Check 10, in order per internal dim.
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, -1, 1})), invalid("Paddings must be non-negative"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {1, 4611686018427387904, 0}), i64({1}, {2}),
                         i64({1, 2}, {4611686018427387904, 4611686018427387904})),
            invalid("padded_shape[0] overflows int64"));
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({2, 2}, {0, 0, 1, 0})),
            invalid("padded_shape[1]=5 is not divisible by block_shape[1]=2"));
  EXPECT_EQ(expect_error(f4, i32({2}, {2, 2}), i32({2, 2}, {1, 0, 0, 0})),
            invalid("padded_shape[0]=5 is not divisible by block_shape[0]=2"));
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {1, 0, 0}), i32({2}, {2, 2}),
                         i64({2, 2}, {4294967296, 4294967296, 4294967296, 4294967296})),
            invalid("Encountered overflow when multiplying 17179869184 with 4294967296, result: -1"));
  // Check 11: a remaining dim (the product read back as a wrapped negative).
  EXPECT_EQ(expect_error(Tensor(DType::kFloat32, {1, 0, 4611686018427387904, 4}), i32({1}, {2}), i32({1, 2}, {1, 1})),
            invalid("Encountered overflow when multiplying 2 with 4611686018427387904, result: -9223372036854775808"));
}

TEST(OptimizedSpaceToBatchND, MemoryLimit) {
  const Tensor input(DType::kFloat32, {1, 4, 4, 1});
  const Tensor block = i32({2}, {2, 2}), pads = i32({2, 2}, {0, 0, 0, 0});
  ExecOptions limit;
  limit.memory_limit_bytes = 64 + 16 * 4 - 1;
  EXPECT_EQ(expect_error(input, block, pads, limit),
            Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[4,2,2,1] and type float32"));
  limit.memory_limit_bytes = 64 + 16 * 4;
  Tensor out;
  EXPECT_TRUE(run(input, block, pads, &out, limit).ok());
  // An empty input padded up to an output whose byte count overflows: exhausted, not allocated.
  EXPECT_EQ(expect_error(Tensor(DType::kFloat64, {1, 0}), i32({1}, {2}),
                         i64({1, 2}, {2305843009213693952, 2305843009213693952})),
            Status(Code::kResourceExhausted,
                   "OOM when allocating tensor with shape[2,2305843009213693952] and type float64"));
}

}  // namespace
}  // namespace opconform
