// Test helpers shared by the SpaceToBatchND and BatchToSpaceND unit tests: the spec's index
// formulas (independent of the xtensor steps), and a runner that checks an output is left
// untouched on error. Tensors and comparison: tensor_test_util.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include "opconform/ops.h"
#include "tensor_test_util.h"

namespace opconform::testing {

// Row-major strides of a shape.
inline std::vector<std::int64_t> strides_of(const Shape& shape) {
  std::vector<std::int64_t> strides(shape.size(), 1);
  for (std::size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

// SpaceToBatchND by the spec's formula ("Result"): for output batch b', n = b' mod B,
// k = b' div B unravelled row-major over block_shape into o_i; the source coordinate is
// p_i * b_i + o_i - pad_start_i, zero (T{}) outside the input. Precondition: a valid case.
inline Tensor space_to_batch_by_formula(const Tensor& input, const std::vector<std::int64_t>& block,
                                        const std::vector<std::int64_t>& pads) {
  const std::size_t m = block.size();
  const std::int64_t batch = input.dim(0);
  std::int64_t product = 1;
  for (std::int64_t b : block) product *= b;
  Shape out_shape = {batch * product};
  for (std::size_t i = 0; i < m; ++i)
    out_shape.push_back((input.dim(1 + i) + pads[2 * i] + pads[2 * i + 1]) / block[i]);
  for (int d = 1 + static_cast<int>(m); d < input.rank(); ++d) out_shape.push_back(input.dim(d));
  Tensor output(input.dtype(), out_shape);
  const std::vector<std::int64_t> in_strides = strides_of(input.shape());
  visit_dtype(input.dtype(), [&](auto tag) {
    // bool moves as its byte: a bit-movement test may put any byte there.
    using Value = typename decltype(tag)::type;
    using T = std::conditional_t<std::is_same_v<Value, bool>, unsigned char, Value>;
    const T* in = static_cast<const T*>(input.raw_data());
    T* out = static_cast<T*>(output.raw_data());
    std::vector<std::int64_t> coord(out_shape.size());
    for (std::int64_t linear = 0; linear < output.num_elements(); ++linear) {
      std::int64_t rest = linear;
      for (std::size_t d = out_shape.size(); d-- > 0;) {
        coord[d] = rest % out_shape[d];
        rest /= out_shape[d];
      }
      std::int64_t k = coord[0] / batch;
      std::vector<std::int64_t> offset(m);
      for (std::size_t i = m; i-- > 0;) {
        offset[i] = k % block[i];
        k /= block[i];
      }
      std::int64_t src = (coord[0] % batch) * in_strides[0];
      bool inside = true;
      for (std::size_t i = 0; i < m; ++i) {
        const std::int64_t q = coord[1 + i] * block[i] + offset[i] - pads[2 * i];
        inside = inside && q >= 0 && q < input.dim(1 + i);
        src += q * in_strides[1 + i];
      }
      for (std::size_t d = 1 + m; d < out_shape.size(); ++d) src += coord[d] * in_strides[d];
      out[linear] = inside ? in[src] : T{};
    }
  });
  return output;
}

// BatchToSpaceND by the spec's formula: input batch b_in goes to n = b_in mod (B_in/P),
// k = b_in div (B_in/P) unravelled row-major into o_i; the element at spatial p lands on
// q_i = p_i * b_i + o_i - crop_start_i when inside the output. Also asserts that every output
// element is written exactly once. Precondition: a valid case with positive block values.
inline Tensor batch_to_space_by_formula(const Tensor& input, const std::vector<std::int64_t>& block,
                                        const std::vector<std::int64_t>& crops) {
  const std::size_t m = block.size();
  std::int64_t product = 1;
  for (std::int64_t b : block) product *= b;
  const std::int64_t out_batch = input.dim(0) / product;
  Shape out_shape = {out_batch};
  for (std::size_t i = 0; i < m; ++i)
    out_shape.push_back(input.dim(1 + i) * block[i] - crops[2 * i] - crops[2 * i + 1]);
  for (int d = 1 + static_cast<int>(m); d < input.rank(); ++d) out_shape.push_back(input.dim(d));
  Tensor output(input.dtype(), out_shape);
  std::vector<int> writes(static_cast<std::size_t>(output.num_elements()), 0);
  const std::vector<std::int64_t> out_strides = strides_of(out_shape);
  const Shape& in_shape = input.shape();
  visit_dtype(input.dtype(), [&](auto tag) {
    // bool moves as its byte: a bit-movement test may put any byte there.
    using Value = typename decltype(tag)::type;
    using T = std::conditional_t<std::is_same_v<Value, bool>, unsigned char, Value>;
    const T* in = static_cast<const T*>(input.raw_data());
    T* out = static_cast<T*>(output.raw_data());
    std::vector<std::int64_t> coord(in_shape.size());
    for (std::int64_t linear = 0; linear < input.num_elements(); ++linear) {
      std::int64_t rest = linear;
      for (std::size_t d = in_shape.size(); d-- > 0;) {
        coord[d] = rest % in_shape[d];
        rest /= in_shape[d];
      }
      std::int64_t k = coord[0] / out_batch;
      std::vector<std::int64_t> offset(m);
      for (std::size_t i = m; i-- > 0;) {
        offset[i] = k % block[i];
        k /= block[i];
      }
      std::int64_t dst = (coord[0] % out_batch) * out_strides[0];
      bool inside = true;
      for (std::size_t i = 0; i < m; ++i) {
        const std::int64_t q = coord[1 + i] * block[i] + offset[i] - crops[2 * i];
        inside = inside && q >= 0 && q < out_shape[1 + i];
        dst += q * out_strides[1 + i];
      }
      for (std::size_t d = 1 + m; d < in_shape.size(); ++d) dst += coord[d] * out_strides[d];
      if (inside) {
        out[dst] = in[linear];
        ++writes[static_cast<std::size_t>(dst)];
      }
    }
  });
  for (std::size_t i = 0; i < writes.size(); ++i)
    EXPECT_EQ(writes[i], 1) << "output element " << coordinate_string(out_shape, static_cast<std::int64_t>(i));
  return output;
}

using OpFn = Status (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, const ExecOptions&);

// Runs `op` into `output`, which first holds a sentinel tensor; on error also checks that the
// output still is that sentinel (same buffer, same bits).
inline Status run_op(OpFn op, const Tensor& input, const Tensor& block, const Tensor& pairs, Tensor* output,
                     const ExecOptions& options = {}) {
  const Tensor sentinel = Tensor::from_values<std::int8_t>({3}, {7, 8, 9});
  const Tensor snapshot = sentinel.clone();
  *output = sentinel;
  const Status status = op(input, block, pairs, output, options);
  if (!status.ok()) {
    EXPECT_EQ(output->raw_data(), sentinel.raw_data()) << "output replaced on error: " << status;
    EXPECT_TRUE(output->bit_equal(snapshot)) << "output written on error: " << status;
  }
  return status;
}

// The status of `op` on a case, when only the status matters.
inline Status status_of(OpFn op, const Tensor& input, const Tensor& block, const Tensor& pairs,
                        const ExecOptions& options = {}) {
  Tensor output;
  return run_op(op, input, block, pairs, &output, options);
}

}  // namespace opconform::testing
