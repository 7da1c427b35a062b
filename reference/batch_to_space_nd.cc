// Reference BatchToSpaceND: the spec's checks in order, then the inverse of SpaceToBatchND's
// documented steps (reshape, permute, reshape, crop) on xt::xarray, each step materialised, on
// the input seen through the collapsing rule. See docs/contract/space_to_batch_nd.md.
#include "opconform/reference/batch_to_space_nd.h"

#include <limits>
#include <optional>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
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
  std::vector<std::int64_t> block;       // internal dims only
  std::vector<std::int64_t> crop_start;  // internal dims only
  std::vector<std::int64_t> crop_end;    // internal dims only
};

bool fits_int64(__int128 v) {
  return v >= std::numeric_limits<std::int64_t>::min() && v <= std::numeric_limits<std::int64_t>::max();
}

// The exact product of block_shape (check 4): 0 when a factor is 0; nullopt when it lies
// outside int64. With no zero factor |product| never shrinks, so an __int128 overflow on the
// way means the final product is outside int64 too.
std::optional<std::int64_t> exact_block_product(const std::vector<std::int64_t>& block) {
  for (std::int64_t b : block)
    if (b == 0) return 0;
  __int128 product = 1;
  for (std::int64_t b : block)
    if (__builtin_mul_overflow(product, static_cast<__int128>(b), &product)) return std::nullopt;
  if (!fits_int64(product)) return std::nullopt;
  return static_cast<std::int64_t>(product);
}

// Checks 1-10 of the spec page, in order.
Status validate(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Plan* plan) {
  // 1. block_shape is a vector.
  if (block_shape.rank() != 1) return invalid_argument("block_shape rank should be 1 instead of ", block_shape.rank());
  const std::int64_t m = block_shape.dim(0);
  // 2. The input has a batch dim and M spatial dims.
  if (input.rank() < m + 1) return invalid_argument("input rank should be >= ", m + 1, " instead of ", input.rank());
  // 3. crops is [M, 2].
  if (!(crops.rank() == 2 && crops.dim(0) == m && crops.dim(1) == 2))
    return invalid_argument("crops should have shape [", m, ", 2] instead of ", shape_string(crops.shape()));
  const std::vector<std::int64_t> block = space_batch::index_values(block_shape);
  // mutant-site: b2s_int32_crops
  const std::vector<std::int64_t> crop_values = space_batch::index_values(crops);
  // mutant-site end
  plan->runs = space_batch::collapse_trivial_block_dims(block, crop_values);

  // 4. The exact product of block_shape fits in int64 (deviation) and is positive. Quirk: an
  // even number of negative values passes, as in TensorFlow.
  const std::optional<std::int64_t> product = exact_block_product(block);
  // mutant-site: b2s_checks_reordered
  if (!product) return invalid_argument("Product of block sizes overflows int64");
  if (*product <= 0) return invalid_argument("Product of block sizes must be positive, got ", *product);
  plan->block_product = *product;
  // 5. The input batch divides into P blocks.
  const std::int64_t input_batch = input.dim(0);
  if (input_batch % *product != 0)
    return invalid_argument("Input batch dimension (", input_batch, ") is not divisible by product of block sizes (",
                            *product, ")");
  // mutant-site end
  // 6. At most four internal block dims.
  // mutant-site: b2s_no_four_dim_limit
  if (plan->runs.internal > space_batch::kMaxInternalBlockDims)
    return space_batch::too_many_internal_block_dims(plan->runs.internal);
  // mutant-site end
  // 7. No internal block dims: the output is the input.
  if (plan->runs.internal == 0) {
    plan->identity = true;
    return Status();
  }
  // 8. The output shape: the batch B_in / P, then the prefix dims.
  ShapeBuilder shape;
  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input_batch / *product));
  const int first_internal = plan->runs.prefix;
  const int end_internal = first_internal + plan->runs.internal;
  for (int i = 0; i < first_internal; ++i) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input.dim(1 + i)));
  // 9. Each internal dim: crops, cropped size, output dim.
  for (int i = first_internal; i < end_internal; ++i) {
    // mutant-site: b2s_crops_swapped
    const std::int64_t start = crop_values[2 * i], end = crop_values[2 * i + 1];
    // mutant-site end
    // mutant-site: b2s_wrong_message
    if (start < 0 || end < 0) return invalid_argument("Crops must be non-negative");
    // mutant-site end
    // mutant-site: b2s_unchecked_cropped_size
    const __int128 cropped = static_cast<__int128>(input.dim(1 + i)) * block[i] - start - end;
    // mutant-site end
    if (!fits_int64(cropped)) return invalid_argument("cropped_shape[", i, "] overflows int64");  // deviation
    if (cropped < 0)
      return invalid_argument("cropped_shape[", i, "]=", static_cast<std::int64_t>(cropped), " must be non-negative");
    OPCONFORM_RETURN_IF_ERROR(shape.add_dim(static_cast<std::int64_t>(cropped)));
    plan->block.push_back(block[i]);
    plan->crop_start.push_back(start);
    plan->crop_end.push_back(end);
  }
  // 10. The remaining dims (the suffix block dims and R).
  for (int d = 1 + end_internal; d < input.rank(); ++d) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input.dim(d)));
  plan->output_shape = shape.dims();
  return Status();
}

// The four steps on the collapsed input [batch] + S + [depth]. Precondition: the plan passed
// validation and the output is not empty (so every internal block value is positive: a
// negative one passes validation only on a spatial dim of size 0); `output` has the plan's
// shape.
template <class T>
Status compute(const Tensor& input, const Plan& plan, Tensor* output) {
  const std::size_t m = plan.block.size();
  Dims in_shape;
  OPCONFORM_RETURN_IF_ERROR(space_batch::collapsed_input_shape(input, plan.runs, &in_shape));
  for (std::int64_t b : plan.block)
    if (b < 1) return internal_error("reference: non-positive block value on a non-empty output");
  const std::size_t batch = in_shape.front(), depth = in_shape.back();
  const std::size_t out_batch = batch / static_cast<std::size_t>(plan.block_product);
  OPCONFORM_RETURN_IF_ERROR(
      space_batch::expect_same_element_count(in_shape, static_cast<std::size_t>(input.num_elements()), "collapse"));
  const xt::xarray<T> collapsed = space_batch::to_xarray<T>(input, in_shape);

  // Step 1: reshape to block_shape + [batch / P] + S + [depth].
  // mutant-site: b2s_batch_order
  Dims split_shape;
  for (std::int64_t b : plan.block) split_shape.push_back(static_cast<std::size_t>(b));
  split_shape.push_back(out_batch);
  // mutant-site end
  for (std::size_t i = 0; i < m; ++i) split_shape.push_back(in_shape[1 + i]);
  split_shape.push_back(depth);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_same_element_count(split_shape, collapsed.size(), "reshape"));
  const xt::xarray<T> reshaped = xt::reshape_view(collapsed, split_shape);

  // Step 2: permute to [batch / P] + [s_0, b_0, ..., s_{m-1}, b_{m-1}] + [depth].
  // mutant-site: b2s_batch_order
  Dims axes = {m};
  for (std::size_t i = 0; i < m; ++i) {
    axes.push_back(m + 1 + i);
    axes.push_back(i);
  }
  // mutant-site end
  axes.push_back(2 * m + 1);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_permutation(axes, "permute"));
  const xt::xarray<T> permuted = xt::transpose(reshaped, axes, xt::check_policy::full());

  // Step 3: reshape to [batch / P] + [s_i * b_i ...] + [depth].
  Dims merged_shape = {out_batch};
  // mutant-site: b2s_batch_order
  for (std::size_t i = 0; i < m; ++i) merged_shape.push_back(in_shape[1 + i] * split_shape[i]);
  // mutant-site end
  merged_shape.push_back(depth);
  OPCONFORM_RETURN_IF_ERROR(space_batch::expect_same_element_count(merged_shape, permuted.size(), "merge"));
  const xt::xarray<T> merged = xt::reshape_view(permuted, merged_shape);

  // Step 4: crop [crop_start_i, s_i * b_i - crop_end_i) from each spatial dim.
  xt::xstrided_slice_vector window = {xt::all()};
  Dims cropped_shape = {out_batch};
  for (std::size_t i = 0; i < m; ++i) {
    const auto start = static_cast<std::size_t>(plan.crop_start[i]);
    const auto end = static_cast<std::size_t>(plan.crop_end[i]);
    if (start + end > merged_shape[1 + i])
      return internal_error("reference: crop window of dim ", static_cast<std::uint64_t>(i), " is out of range");
    window.push_back(xt::range(start, merged_shape[1 + i] - end));
    cropped_shape.push_back(merged_shape[1 + i] - start - end);
  }
  window.push_back(xt::all());
  cropped_shape.push_back(depth);
  OPCONFORM_RETURN_IF_ERROR(
      space_batch::expect_same_element_count(cropped_shape, static_cast<std::size_t>(output->num_elements()), "crop"));
  const xt::xarray<T> cropped = xt::strided_view(merged, window);

  space_batch::copy_to_tensor(cropped, output);
  return Status();
}

// Everything after the pre-checks: the op's own checks, memory accounting, compute.
Status run(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
           const ExecOptions& options) {
  Plan plan;
  OPCONFORM_RETURN_IF_ERROR(validate(input, block_shape, crops, &plan));
  if (plan.identity) {
    *output = input;
    return Status();
  }
  // Output allocation, within the caller's memory limit.
  return space_batch::allocate_and_compute(
      "BatchToSpaceND", input.dtype(), plan.output_shape, options, output,
      [&](auto tag, Tensor* result) { return compute<typename decltype(tag)::type>(input, plan, result); });
}

}  // namespace

namespace space_batch {

Status BatchToSpaceNDAnyDType(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
                              const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(check_index_dtype(block_shape, "Tblock_shape"));
  OPCONFORM_RETURN_IF_ERROR(check_index_dtype(crops, "Tcrops"));
  return run(input, block_shape, crops, output, options);
}

}  // namespace space_batch

Status BatchToSpaceND(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
                      const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_index_dtype(block_shape, "Tblock_shape"));
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_index_dtype(crops, "Tcrops"));
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_registered_on_cpu(input.dtype(), "BatchToSpaceND"));
  return run(input, block_shape, crops, output, options);
}

}  // namespace opconform::reference
