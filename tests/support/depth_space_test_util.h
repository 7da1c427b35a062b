// Test helpers shared by the SpaceToDepth and DepthToSpace unit tests of every layer: the
// contract's index formula (independent of the xtensor steps and of the optimized kernel),
// a runner that checks an output is left untouched on error, and TensorFlow's own test cases
// (tensorflow/python/kernel_tests/array_ops/spacetodepth_op_test.py, depthtospace_op_test.py).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/ops.h"
#include "space_batch_test_util.h"

namespace opconform::testing {

using DepthSpaceFn = DepthSpaceKernel*;  // ops.h

// Runs `op` into `output`, which first holds a sentinel; on error also checks the output still
// is that sentinel (same buffer, same bits).
inline Status run_depth_space(DepthSpaceFn op, const Tensor& input, std::int64_t block, std::string_view format,
                              Tensor* output, const ExecOptions& options = {}) {
  const Tensor sentinel = Tensor::from_values<std::int8_t>({3}, {7, 8, 9});
  const Tensor snapshot = sentinel.clone();
  *output = sentinel;
  const Status status = op(input, block, format, output, options);
  if (!status.ok()) {
    EXPECT_EQ(output->raw_data(), sentinel.raw_data()) << "output replaced on error: " << status;
    EXPECT_TRUE(output->bit_equal(snapshot)) << "output written on error: " << status;
  }
  return status;
}

inline Status depth_space_status(DepthSpaceFn op, const Tensor& input, std::int64_t block,
                                 std::string_view format = "NHWC", const ExecOptions& options = {}) {
  Tensor output;
  return run_depth_space(op, input, block, format, &output, options);
}

// The contract's formula, both directions: space [N, H, W, C] element (n, y, x, c) is depth
// [N, H/b, W/b, b*b*C] element (n, y/b, x/b, ((y%b)*b + x%b)*C + c). `to_depth`: the input
// is the space side. Precondition: a valid NHWC case.
inline Tensor depth_space_by_formula(const Tensor& input, std::int64_t b, bool to_depth) {
  const Shape& s = input.shape();
  const Shape space = to_depth ? s : Shape{s[0], s[1] * b, s[2] * b, s[3] / (b * b)};
  const Shape depth = {space[0], space[1] / b, space[2] / b, space[3] * b * b};
  Tensor output(input.dtype(), to_depth ? depth : space);
  visit_dtype(input.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = input.data<T>();
    T* out = output.data<T>();
    for (std::int64_t n = 0; n < space[0]; ++n)
      for (std::int64_t y = 0; y < space[1]; ++y)
        for (std::int64_t x = 0; x < space[2]; ++x)
          for (std::int64_t c = 0; c < space[3]; ++c) {
            const std::int64_t si = ((n * space[1] + y) * space[2] + x) * space[3] + c;
            const std::int64_t di =
                ((n * depth[1] + y / b) * depth[2] + x / b) * depth[3] + ((y % b) * b + x % b) * space[3] + c;
            if (to_depth)
              out[di] = in[si];
            else
              out[si] = in[di];
          }
  });
  return output;
}

// One of TensorFlow's Python test cases with literal input and output (float32 values).
struct TfCase {
  const char* test;
  Shape in_shape;
  std::vector<float> in;
  std::int64_t block;
  Shape out_shape;
  std::vector<float> out;
};

// 1..16 of testLargerInput2x2 / testBlockSize2, as an NHWC [1, 4, 4, 1] image.
inline std::vector<float> tf_image16() { return {1, 2, 5, 6, 3, 4, 7, 8, 9, 10, 13, 14, 11, 12, 15, 16}; }
inline std::vector<float> tf_range(int n) {
  std::vector<float> v;
  for (int i = 1; i <= n; ++i) v.push_back(static_cast<float>(i));
  return v;
}
// testBlockSize2Batch10: batch element i is tf_image16() times i (space side) and 1..16 times
// i (depth side).
inline std::vector<float> tf_batch10(bool space) {
  std::vector<float> v;
  for (int i = 0; i < 10; ++i)
    for (float x : space ? tf_image16() : tf_range(16)) v.push_back(x * static_cast<float>(i));
  return v;
}

inline std::vector<TfCase> tf_space_to_depth_cases() {
  return {
      {"testBasic", {1, 2, 2, 1}, {1, 2, 3, 4}, 2, {1, 1, 1, 4}, {1, 2, 3, 4}},
      {"testLargerInput2x2", {1, 4, 4, 1}, tf_image16(), 2, {1, 2, 2, 4}, tf_range(16)},
      {"testLargerInput4x4", {1, 4, 4, 1}, tf_image16(), 4, {1, 1, 1, 16}, tf_image16()},
      {"testDepthInterleaved",
       {1, 2, 2, 2},
       {1, 10, 2, 20, 3, 30, 4, 40},
       2,
       {1, 1, 1, 8},
       {1, 10, 2, 20, 3, 30, 4, 40}},
      {"testDepthInterleavedDepth3", {1, 2, 2, 3}, tf_range(12), 2, {1, 1, 1, 12}, tf_range(12)},
      {"testDepthInterleavedLarge",
       {1, 4, 4, 2},
       {1, 10, 2,  20,  5,  50,  6,  60,  3,  30,  4,  40,  7,  70,  8,  80,
        9, 90, 10, 100, 13, 130, 14, 140, 11, 110, 12, 120, 15, 150, 16, 160},
       2,
       {1, 2, 2, 8},
       {1, 10, 2,  20,  3,  30,  4,  40,  5,  50,  6,  60,  7,  70,  8,  80,
        9, 90, 10, 100, 11, 110, 12, 120, 13, 130, 14, 140, 15, 150, 16, 160}},
      {"testBlockSize2Batch10", {10, 4, 4, 1}, tf_batch10(true), 2, {10, 2, 2, 4}, tf_batch10(false)},
      {"testBatchSize0", {0, 4, 6, 3}, {}, 2, {0, 2, 3, 12}, {}},
      {"testNonSquare",
       {1, 6, 2, 2},
       {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80, 9, 90, 10, 100, 11, 110, 12, 120},
       2,
       {1, 3, 1, 8},
       {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80, 9, 90, 10, 100, 11, 110, 12, 120}},
  };
}

inline std::vector<TfCase> tf_depth_to_space_cases() {
  return {
      {"testBasic", {1, 1, 1, 4}, {1, 2, 3, 4}, 2, {1, 2, 2, 1}, {1, 2, 3, 4}},
      {"testBlockSize2", {1, 2, 2, 4}, tf_range(16), 2, {1, 4, 4, 1}, tf_image16()},
      {"testBlockSize2Batch10", {10, 2, 2, 4}, tf_batch10(false), 2, {10, 4, 4, 1}, tf_batch10(true)},
      {"testBatchSize0", {0, 2, 3, 12}, {}, 2, {0, 4, 6, 3}, {}},
      {"testNonSquare",
       {1, 3, 1, 8},
       {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80, 9, 90, 10, 100, 11, 110, 12, 120},
       2,
       {1, 6, 2, 2},
       {1, 10, 2, 20, 3, 30, 4, 40, 5, 50, 6, 60, 7, 70, 8, 80, 9, 90, 10, 100, 11, 110, 12, 120}},
      {"testBlockSize4FlatInput", {1, 1, 1, 16}, tf_image16(), 4, {1, 4, 4, 1}, tf_image16()},
      {"testDepthInterleaved",
       {1, 1, 1, 8},
       {1, 10, 2, 20, 3, 30, 4, 40},
       2,
       {1, 2, 2, 2},
       {1, 10, 2, 20, 3, 30, 4, 40}},
      {"testDepthInterleavedDepth3", {1, 1, 1, 12}, tf_range(12), 2, {1, 2, 2, 3}, tf_range(12)},
      {"testDepthInterleavedLarger",
       {1, 2, 2, 8},
       {1, 10, 2,  20,  3,  30,  4,  40,  5,  50,  6,  60,  7,  70,  8,  80,
        9, 90, 10, 100, 11, 110, 12, 120, 13, 130, 14, 140, 15, 150, 16, 160},
       2,
       {1, 4, 4, 2},
       {1, 10, 2,  20,  5,  50,  6,  60,  3,  30,  4,  40,  7,  70,  8,  80,
        9, 90, 10, 100, 13, 130, 14, 140, 11, 110, 12, 120, 15, 150, 16, 160}},
  };
}

}  // namespace opconform::testing
