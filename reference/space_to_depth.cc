// Reference SpaceToDepth: the contract's checks in order, then the literal reshape
// [N, H/b, b, W/b, b, C], transpose (swap axes 2 and 3), reshape [N, H/b, W/b, b*b*C] on
// xt::xarray. See docs/contract/space_to_depth.md.
#include "opconform/reference/space_to_depth.h"

#include "depth_space.h"

namespace opconform::reference {
namespace {

// TF_CALL_ALL_TYPES plus qint8: every dtype of the vocabulary but quint8 and qint32.
// mutant-site: s2d_qint8_unregistered
bool registered_on_cpu(DType dtype) { return dtype != DType::kQUInt8 && dtype != DType::kQInt32; }
// mutant-site end

}  // namespace

Status SpaceToDepth(const Tensor& input, std::int64_t block_size, std::string_view data_format, Tensor* output,
                    const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(depth_space::check_common("SpaceToDepth", input, block_size, data_format, registered_on_cpu,
                                                      "Input rank should be 4 instead of "));
  const std::int64_t b = block_size;
  const std::int64_t batch = input.dim(0), height = input.dim(1), width = input.dim(2), depth = input.dim(3);
  // Step 3: b divides the width and the height.
  // mutant-site: s2d_width_not_checked
  if (width % b != 0 || height % b != 0)
    // mutant-site end
    return invalid_argument("Image width ", width, " and height ", height, " should be divisible by block_size: ", b);
  // Step 4 (deviation): the output depth C*b*b fits in int64 (b*b does: b < 2^31).
  std::int64_t output_depth = 0;
  // mutant-site: s2d_unchecked_output_depth
  if (__builtin_mul_overflow(depth, b * b, &output_depth))
    return invalid_argument("output depth ", depth, " * ", b, " * ", b, " overflows int64");
  // mutant-site end
  // Step 5: the output shape, dim by dim.
  ShapeBuilder shape;
  // mutant-site: s2d_height_width_swapped
  for (std::int64_t d : {batch, height / b, width / b, output_depth}) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(d));
  // mutant-site end
  // Step 6: memory, then the three steps.
  using depth_space::Dims;
  const auto z = [](std::int64_t v) { return static_cast<std::size_t>(v); };
  // mutant-site: s2d_block_row_outermost
  const Dims split = {z(batch), z(height / b), z(b), z(width / b), z(b), z(depth)};
  // mutant-site end
  return depth_space::allocate_and_move("SpaceToDepth", input, shape.dims(), split, options, output);
}

}  // namespace opconform::reference
