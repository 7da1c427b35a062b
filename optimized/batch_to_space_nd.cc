// Optimized BatchToSpaceND: the spec's checks in order (docs/contract/space_to_batch_nd.md),
// then the blocked kernel of space_batch_movers.h. Shares nothing with reference/.
#include "opconform/optimized/batch_to_space_nd.h"

#include <limits>
#include <optional>
#include <optional>
#include <utility>

#include "space_batch_movers.h"
#include "space_batch_plan.h"

namespace opconform::optimized {

namespace {

// The exact product of the block values, or nullopt outside int64 (check 4).
std::optional<std::int64_t> exact_product(const Tensor& values) {
  for (std::int64_t i = 0; i < values.num_elements(); ++i)
    if (values.index_value(i) == 0) return 0;  // exactly 0, however large the other factors
  constexpr __int128 kLimit = static_cast<__int128>(1) << 63;
  __int128 p = 1;
  for (std::int64_t i = 0; i < values.num_elements(); ++i) {
    p *= values.index_value(i);                          // |p| <= 2^63 and |v| < 2^63: no __int128 overflow
    if (p > kLimit || p < -kLimit) return std::nullopt;  // |p| never shrinks again
  }
  if (p > std::numeric_limits<std::int64_t>::max()) return std::nullopt;
  return static_cast<std::int64_t>(p);
}
}  // namespace

Status BatchToSpaceND(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
                      const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_signature("BatchToSpaceND", "Tcrops", input, block_shape, crops));
  // Checks 1-3: ranks and the crops shape.
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_ranks(input, block_shape, crops, "crops"));
  const std::int64_t m = block_shape.dim(0);
  const auto block = [&](int i) { return block_shape.index_value(i); };
  const auto crop = [&](int i) { return crops.index_value(i); };
  const int dims = static_cast<int>(m);

  // Checks 4-5: the exact block product (quirk: an even number of negative values passes).
  const std::optional<std::int64_t> product = exact_product(block_shape);
  if (!product) return invalid_argument("Product of block sizes overflows int64");
  const std::int64_t block_product = *product;
  if (block_product <= 0) return invalid_argument("Product of block sizes must be positive, got ", block_product);
  const std::int64_t input_batch = input.dim(0);
  if (input_batch % block_product != 0)
    return invalid_argument("Input batch dimension (", input_batch, ") is not divisible by product of block sizes (",
                            block_product, ")");

  // Checks 6-7: collapsing; no internal dim left is the identity (nothing is requested).
  const space_batch::BlockDimRuns runs = space_batch::collapse_trivial_block_dims(block_shape, crops);
  OPCONFORM_RETURN_IF_ERROR(space_batch::check_internal_block_dims(runs.internal));
  if (runs.internal == 0) {
    *output = input;
    return Status();
  }

  // Checks 8-10: the output shape, dim by dim, and the collapsed plan beside it.
  space_batch::OutputShape shape(input.rank());
  OPCONFORM_RETURN_IF_ERROR(shape.add_dim(input_batch / block_product));
  space_batch::Plan plan;
  plan.batch = input_batch / block_product;
  OPCONFORM_RETURN_IF_ERROR(space_batch::add_leading_dims(input, runs.prefix, &shape, &plan));
  for (int i = runs.prefix; i < dims - runs.suffix; ++i) {
    const std::int64_t crop_start = crop(2 * i), crop_end = crop(2 * i + 1);
    if (crop_start < 0 || crop_end < 0) return invalid_argument("Crops must be non-negative");
    const std::int64_t size = input.dim(i + 1);
    const __int128 exact = static_cast<__int128>(size) * block(i) - crop_start - crop_end;
    if (exact > std::numeric_limits<std::int64_t>::max() || exact < std::numeric_limits<std::int64_t>::min())
      return invalid_argument("cropped_shape[", i, "] overflows int64");
    const auto cropped = static_cast<std::int64_t>(exact);
    if (cropped < 0) return invalid_argument("cropped_shape[", i, "]=", cropped, " must be non-negative");
    OPCONFORM_RETURN_IF_ERROR(shape.add_dim(cropped));
    plan.space.push_back(cropped);
    plan.block.push_back(block(i));
    plan.start.push_back(crop_start);
    plan.blocked.push_back(size);
  }
  OPCONFORM_RETURN_IF_ERROR(space_batch::add_trailing_dims(input, dims - runs.suffix + 1, &shape, &plan));

  // Memory, then the kernel writes every output element once. A negative block value (quirk)
  // only gets here with an empty output, which the kernel never touches.
  std::optional<Tensor> result;
  OPCONFORM_RETURN_IF_ERROR(space_batch::allocate_output(input.dtype(), &shape.mutable_dims(), options, &result));
  space_batch::batch_to_space(plan, input, *result, options);
  *output = std::move(*result);
  return Status();
}

}  // namespace opconform::optimized
