// Optimized SpaceToDepth: the contract's checks in order (docs/contract/space_to_depth.md),
// then the run permutation of depth_space_kernel.h, space side = input.
#include "opconform/optimized/space_to_depth.h"

#include <utility>

#include "depth_space_kernel.h"

namespace opconform::optimized {

Status SpaceToDepth(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(
      depth_space::check_common("SpaceToDepth", input, block_size, data_format, "Input rank should be 4 instead of "));
  const depth_space::Geometry g{input.dim(0), input.dim(1), input.dim(2), input.dim(3), block_size};
  // Step 3: b divides W and H.
  if (g.width % g.block != 0 || g.height % g.block != 0)
    return invalid_argument("Image width ", g.width, " and height ", g.height,
                            " should be divisible by block_size: ", g.block);
  // Step 4 (deviation): C*b*b fits in int64 (b*b does, b < 2^31). It can only overflow when
  // the tensor is empty.
  std::int64_t output_depth = 0;
  if (__builtin_mul_overflow(g.depth, g.block * g.block, &output_depth))
    return invalid_argument("output depth ", g.depth, " * ", g.block, " * ", g.block, " overflows int64");
  // Step 5: the output shape.
  ShapeBuilder shape(4);
  for (std::int64_t d : {g.batch, g.height / g.block, g.width / g.block, output_depth})
    OPCONFORM_RETURN_IF_ERROR(shape.add_dim(d));
  // Step 6: memory; then every output element is written once.
  std::optional<Tensor> result;
  OPCONFORM_RETURN_IF_ERROR(depth_space::allocate_output(input.dtype(), &shape.mutable_dims(), options, &result));
  depth_space::move_runs(g, /*to_depth=*/true, input, *result, options);
  *output = std::move(*result);
  return Status();
}

}  // namespace opconform::optimized
