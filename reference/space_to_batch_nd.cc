// Reference SpaceToBatchND: the spec's checks in order, then its four documented steps
// (zero-pad, reshape, permute, reshape) on xt::xarray, each step materialised, on the input
// seen through the collapsing rule. See docs/contract/space_to_batch_nd.md.
#include "opconform/reference/space_to_batch_nd.h"

#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xnoalias.hpp>
#include <xtensor/xslice.hpp>
#include <xtensor/xstrided_view.hpp>

#include "space_batch_common.h"

namespace opconform::reference {
namespace {

using space_batch::BlockDimRuns;
using Dims = std::vector<std::size_t>;

// What validation found: the output shape and, for the compute, the internal block dims.
struct Plan {
  bool identity = false;  // no internal block dims: the output is the input
  Shape output_shape;
  BlockDimRuns runs;
  std::int64_t block_product = 1;
  std::vector<std::int64_t> block;      // internal dims only
  std::vector<std::int64_t> pad_start;  // internal dims only
  std::vector<std::int64_t> pad_end;    // internal dims only
};

// Checks 1-11 of the spec page, in order.
Status validate(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Plan* plan) {
  // 1. block_shape is a vector.
  if (block_shape.rank() != 1) return invalid_argument("block_shape rank should be 1 instead of ", block_shape.rank());
  const std::int64_t m = block_shape.dim(0);
  // 2. The input has a batch dim and M spatial dims.
  if (input.rank() < m + 1) return invalid_argument("input rank should be >= ", m + 1, " instead of ", input.rank());
  // 3. paddings is [M, 2].
  if (!(paddings.rank() == 2 && paddings.dim(0) == m && paddings.dim(1) == 2))
    return invalid_argument("paddings should have shape [", m, ", 2] instead of ", shape_string(paddings.shape()));
  const std::vector<std::int64_t> block = space_batch::index_values(block_shape);
  // mutant-site: s2b_int32_paddings
  const std::vector<std::int64_t> pads = space_batch::index_values(paddings);
  // mutant-site end
  plan->runs = space_batch::collapse_trivial_block_dims(block, pads);

  // 4. Every block value is positive.
  for (std::int64_t i = 0; i < m; ++i)
    if (block[i] < 1)
      return invalid_argument("All values in block_shape must be positive, got value, ", block[i], " at index ", i,
                              ".");
  // 5. The checked product of block_shape did not overflow.
  std::int64_t product = 1;
  // mutant-site: s2b_unchecked_block_product
  for (std::int64_t b : block) product = multiply_without_overflow(product, b);
  // mutant-site end
  if (product <= 0) return invalid_argument("Product of block sizes must be positive, got ", product);
  plan->block_product = product;
  // 6. At most four internal block dims.
  // mutant-site: s2b_four_dim_limit_off_by_one s2b_limit_before_collapsing
  if (plan->runs.internal > space_batch::kMaxInternalBlockDims)
    return space_batch::too_many_internal_block_dims(plan->runs.internal);
  // mutant-site end
  // 7. No internal block dims: the output is the input.
  if (plan->runs.internal == 0) {
    plan->identity = true;
    return Status();
  }
  // 8. The output batch B * P.
  const std::int64_t batch = input.dim(0);
  const std::int64_t output_batch = multiply_without_overflow(batch, product);
  if (output_batch < 0)
    return invalid_argument("Negative output dimension size caused by overflow when multiplying ", batch, " and ",
                            product);
  // 9. The output shape: the batch, then the prefix dims.
  ShapeBuilder shape;
  // mutant-site: s2b_int32_output_batch
  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(output_batch));
  // mutant-site end
  const int first_internal = plan->runs.prefix;
  const int end_internal = first_internal + plan->runs.internal;
  for (int i = 0; i < first_internal; ++i) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input.dim(1 + i)));
  // 10. Each internal dim: paddings, padded size, divisibility, output dim.
  for (int i = first_internal; i < end_internal; ++i) {
    const std::int64_t start = pads[2 * i], end = pads[2 * i + 1];
    // mutant-site: s2b_no_negative_padding_check
    if (start < 0 || end < 0) return invalid_argument("Paddings must be non-negative");
    // mutant-site end
    std::int64_t padded = 0;
    if (__builtin_add_overflow(input.dim(1 + i), start, &padded) || __builtin_add_overflow(padded, end, &padded))
      return invalid_argument("padded_shape[", i, "] overflows int64");  // deviation
    // mutant-site: s2b_no_divisibility_check
    if (padded % block[i] != 0)
      return invalid_argument("padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i, "]=", block[i]);
    // mutant-site end
    OPCONFORM_RETURN_IF_ERROR(shape.add_dim(padded / block[i]));
    plan->block.push_back(block[i]);
    plan->pad_start.push_back(start);
    plan->pad_end.push_back(end);
  }
  // 11. The remaining dims (the suffix block dims and R).
  for (int d = 1 + end_internal; d < input.rank(); ++d) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input.dim(d)));
  plan->output_shape = shape.dims();
  return Status();
}

// The four documented steps on the collapsed input [batch] + S + [depth]. Precondition: the
// plan passed validation and the output is not empty; `output` has the plan's shape.
template <class T>
Status compute(const Tensor& input, const Plan& plan, Tensor* output) {
  const std::size_t m = plan.block.size();
  Dims in_shape;
  OPCONFORM_RETURN_IF_ERROR(space_batch::collapsed_input_shape(input, plan.runs, &in_shape));
  const std::size_t batch = in_shape.front(), depth = in_shape.back();
  OPCONFORM_RETURN_IF_ERROR(
      space_batch::expect_same_element_count(in_shape, static_cast<std::size_t>(input.num_elements()), "collapse"));
  const xt::xarray<T> collapsed = space_batch::to_xarray<T>(input, in_shape);

  // Step 1: zero-pad the start and end of the spatial dims (T{} is every dtype's zero): a
  // zero array of the padded shape with the input written into its interior. (xt::pad would
  // do this, but in xtensor 0.24.3 its interior assignment goes through an xtensor<T, 4>
  // temporary whatever the rank: wrong results and a heap overflow for rank != 4.)
  Dims padded_shape = {batch};
  xt::xstrided_slice_vector interior = {xt::all()};
  for (std::size_t i = 0; i < m; ++i) {
    const auto start = static_cast<std::size_t>(plan.pad_start[i]);
    const auto end = static_cast<std::size_t>(plan.pad_end[i]);
    padded_shape.push_back(start + in_shape[1 + i] + end);
    // mutant-site: s2b_padding_wrong_end
    interior.push_back(xt::range(start, start + in_shape[1 + i]));
    // mutant-site end
  }
  padded_shape.push_back(depth);
  interior.push_back(xt::all());
  OPCONFORM_RETURN_IF_ERROR(
      space_batch::expect_same_element_count(padded_shape, static_cast<std::size_t>(output->num_elements()), "pad"));
  xt::xarray<T> padded(padded_shape, T{});
  xt::noalias(xt::strided_view(padded, interior)) = collapsed;

  // Step 2: reshape to [batch] + [padded_0/b_0, b_0, ..., padded_{m-1}/b_{m-1}, b_{m-1}] + [depth].
  Dims split_shape = {batch};
  for (std::size_t i = 0; i < m; ++i) {
    const auto b = static_cast<std::size_t>(plan.block[i]);
    split_shape.push_back(padded_shape[1 + i] / b);
    split_shape.push_back(b);
  }
  split_shape.push_back(depth);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_same_element_count(split_shape, padded.size(), "reshape"));
  const xt::xarray<T> reshaped = xt::reshape_view(padded, split_shape);

  // Step 3: permute to block_shape + [batch] + [padded_i/b_i ...] + [depth].
  Dims axes;
  // mutant-site: s2b_offset_direction s2b_batch_order
  for (std::size_t i = 0; i < m; ++i) axes.push_back(2 + 2 * i);
  axes.push_back(0);
  // mutant-site end
  for (std::size_t i = 0; i < m; ++i) axes.push_back(1 + 2 * i);
  axes.push_back(2 * m + 1);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_permutation(axes, "permute"));
  const xt::xarray<T> permuted = xt::transpose(reshaped, axes, xt::check_policy::full());

  // Step 4: reshape, folding block_shape into the batch: [P*batch] + [padded_i/b_i ...] + [depth].
  Dims folded_shape = {static_cast<std::size_t>(plan.block_product) * batch};
  for (std::size_t i = 0; i < m; ++i) folded_shape.push_back(split_shape[1 + 2 * i]);
  folded_shape.push_back(depth);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_same_element_count(folded_shape, permuted.size(), "fold"));
  const xt::xarray<T> folded = xt::reshape_view(permuted, folded_shape);

  space_batch::copy_to_tensor(folded, output);
  return Status();
}

// Everything after the pre-checks: the op's own checks, memory accounting, compute.
Status run(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
           const ExecOptions& options) {
  Plan plan;
  OPCONFORM_RETURN_IF_ERROR(validate(input, block_shape, paddings, &plan));
  if (plan.identity) {
    *output = input;
    return Status();
  }
  // 12. Output allocation, within the caller's memory limit.
  return space_batch::allocate_and_compute(
      "SpaceToBatchND", input.dtype(), plan.output_shape, options, output,
      [&](auto tag, Tensor* result) { return compute<typename decltype(tag)::type>(input, plan, result); });
}

}  // namespace

namespace space_batch {

Status SpaceToBatchNDAnyDType(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                              const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(check_index_dtype(block_shape, "Tblock_shape"));
  OPCONFORM_RETURN_IF_ERROR(check_index_dtype(paddings, "Tpaddings"));
  return run(input, block_shape, paddings, output, options);
}

}  // namespace space_batch

Status SpaceToBatchND(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                      const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_index_dtype(block_shape, "Tblock_shape"));
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_index_dtype(paddings, "Tpaddings"));
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_registered_on_cpu(input.dtype(), "SpaceToBatchND"));
  return run(input, block_shape, paddings, output, options);
}

}  // namespace opconform::reference
