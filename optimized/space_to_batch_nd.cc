// Optimized SpaceToBatchND: the spec's checks in order (docs/contract/space_to_batch_nd.md),
// then the blocked kernel of space_batch_movers.h. Shares nothing with reference/.
#include "opconform/optimized/space_to_batch_nd.h"

#include <optional>
#include <utility>

#include "space_batch_movers.h"
#include "space_batch_plan.h"

namespace opconform::optimized {

Status SpaceToBatchND(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                      const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_signature("SpaceToBatchND", "Tpaddings", input, block_shape, paddings));
  // Checks 1-3: ranks and the paddings shape.
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_ranks(input, block_shape, paddings, "paddings"));
  const std::int64_t m = block_shape.dim(0);
  const auto block = [&](int i) { return block_shape.index_value(i); };
  const auto pads = [&](int i) { return paddings.index_value(i); };
  const int dims = static_cast<int>(m);

  // Checks 4-5: positive block values, then their checked product.
  std::int64_t block_product = 1;
  for (int i = 0; i < dims; ++i) {
    if (block(i) < 1)
      return invalid_argument("All values in block_shape must be positive, got value, ", block(i), " at index ", i,
                              ".");
    block_product = multiply_without_overflow(block_product, block(i));
  }
  if (block_product <= 0) return invalid_argument("Product of block sizes must be positive, got ", block_product);

  // Checks 6-7: collapsing; no internal dim left is the identity (nothing is requested).
  const space_batch::BlockDimRuns runs = space_batch::collapse_trivial_block_dims(block_shape, paddings);
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_internal_block_dims(runs.internal));
  if (runs.internal == 0) {
    *output = input;
    return Status();
  }

  // Checks 8-11: the output shape, dim by dim, and the collapsed plan beside it.
  const std::int64_t batch = input.dim(0);
  const std::int64_t output_batch = multiply_without_overflow(batch, block_product);
  if (output_batch < 0)
    return invalid_argument("Negative output dimension size caused by overflow when multiplying ", batch, " and ",
                            block_product);
  space_batch::OutputShape shape(input.rank());
  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(output_batch));
  space_batch::Plan plan;
  plan.batch = batch;
  OPCONFORM_RETURN_IF_ERROR(space_batch::add_leading_dims(input, runs.prefix, &shape, &plan));
  for (int i = runs.prefix; i < dims - runs.suffix; ++i) {
    const std::int64_t pad_start = pads(2 * i), pad_end = pads(2 * i + 1);
    if (pad_start < 0 || pad_end < 0) return invalid_argument("Paddings must be non-negative");
    const std::int64_t size = input.dim(i + 1);
    std::int64_t padded = 0;
    if (__builtin_add_overflow(size, pad_start, &padded) || __builtin_add_overflow(padded, pad_end, &padded))
      return invalid_argument("padded_shape[", i, "] overflows int64");
    if (padded % block(i) != 0)
      return invalid_argument("padded_shape[", i, "]=", padded, " is not divisible by block_shape[", i, "]=", block(i));
    OPCONFORM_RETURN_IF_ERROR(shape.add_dim(padded / block(i)));
    plan.space.push_back(size);
    plan.block.push_back(block(i));
    plan.start.push_back(pad_start);
    plan.blocked.push_back(padded / block(i));
  }
  OPCONFORM_RETURN_IF_ERROR(space_batch::add_trailing_dims(input, dims - runs.suffix + 1, &shape, &plan));

  // Check 12: memory, then the kernel writes every output element once.
  std::optional<Tensor> result;
  OPCONFORM_RETURN_IF_ERROR(space_batch::allocate_output(input.dtype(), &shape.mutable_dims(), options, &result));
  space_batch::space_to_batch(plan, input, *result, options);
  *output = std::move(*result);
  return Status();
}

}  // namespace opconform::optimized
