// Optimized DepthToSpace: the contract's checks in order (docs/contract/space_to_depth.md),
// then the run permutation of depth_space_kernel.h, space side = output.
#include "opconform/optimized/depth_to_space.h"

#include <utility>

#include "depth_space_kernel.h"

namespace opconform::optimized {

Status DepthToSpace(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(depth_space::check_common("DepthToSpace", input, block_size, data_format,
                                                      "Input rank should be: 4 instead of: "));
  const std::int64_t b = block_size, b2 = b * b;  // b < 2^31: b*b fits
  const std::int64_t height = input.dim(1), width = input.dim(2), depth = input.dim(3);
  // Step 3: b*b divides C.
  if (depth % b2 != 0) return invalid_argument("Input depth dimension ", depth, " should be divisible by: ", b2);
  // Step 4 (deviation): H*b and W*b fit in int64 (they can only overflow on an empty tensor).
  std::int64_t out_height = 0, out_width = 0;
  if (__builtin_mul_overflow(height, b, &out_height))
    return invalid_argument("output height ", height, " * ", b, " overflows int64");
  if (__builtin_mul_overflow(width, b, &out_width))
    return invalid_argument("output width ", width, " * ", b, " overflows int64");
  // Step 5: the output shape.
  const depth_space::Geometry g{input.dim(0), out_height, out_width, depth / b2, b};
  ShapeBuilder shape(4);
  for (std::int64_t d : {g.batch, g.height, g.width, g.depth}) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(d));
  // Step 6: memory; then every output element is written once.
  std::optional<Tensor> result;
  OPCONFORM_RETURN_IF_ERROR(depth_space::allocate_output(input.dtype(), &shape.mutable_dims(), options, &result));
  depth_space::move_runs(g, /*to_depth=*/false, input, *result, options);
  *output = std::move(*result);
  return Status();
}

}  // namespace opconform::optimized
