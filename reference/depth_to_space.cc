// Reference DepthToSpace: the contract's checks in order, then the literal reshape
// [N, H, W, b, b, C/(b*b)], transpose (swap axes 2 and 3), reshape [N, H*b, W*b, C/(b*b)] on
// xt::xarray (DCR order: input depth index (by*b + bx)*C' + c). See
// docs/contract/space_to_depth.md.
#include "opconform/reference/depth_to_space.h"

#include "depth_space.h"

namespace opconform::reference {
namespace {

// TF_CALL_ALL_TYPES: every dtype of the vocabulary but the quantized ones.
bool registered_on_cpu(DType dtype) {
  // mutant-site: d2s_qint8_registered
  return dtype != DType::kQInt8 && dtype != DType::kQUInt8 && dtype != DType::kQInt32;
  // mutant-site end
}

}  // namespace

Status DepthToSpace(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(depth_space::check_common("DepthToSpace", input, block_size, data_format, registered_on_cpu,
                                                      "Input rank should be: 4 instead of: "));
  const std::int64_t b = block_size, b2 = block_size * block_size;  // b < 2^31: b*b fits
  const std::int64_t batch = input.dim(0), height = input.dim(1), width = input.dim(2), depth = input.dim(3);
  // Step 3: b*b divides the depth.
  // mutant-site: d2s_divisible_by_block
  if (depth % b2 != 0)
    // mutant-site end
    return invalid_argument("Input depth dimension ", depth, " should be divisible by: ", b2);
  // Step 4 (deviation): the output height H*b and width W*b fit in int64.
  std::int64_t output_height = 0, output_width = 0;
  if (__builtin_mul_overflow(height, b, &output_height))
    return invalid_argument("output height ", height, " * ", b, " overflows int64");
  // mutant-site: d2s_unchecked_output_width
  if (__builtin_mul_overflow(width, b, &output_width))
    return invalid_argument("output width ", width, " * ", b, " overflows int64");
  // mutant-site end
  // Step 5: the output shape, dim by dim.
  ShapeBuilder shape;
  for (std::int64_t d : {batch, output_height, output_width, depth / b2}) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(d));
  // Step 6: memory, then the three steps.
  using depth_space::Dims;
  const auto z = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  // mutant-site: d2s_crd_order
  const Dims split = {z(batch), z(height), z(width), z(b), z(b), z(depth / b2)};
  // mutant-site end
  return depth_space::allocate_and_move("DepthToSpace", input, shape.dims(), split, options, output);
}

}  // namespace opconform::reference
