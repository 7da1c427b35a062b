// The checks optimized SpaceToBatchND and BatchToSpaceND share, and the building of their
// collapsed plan and output (space_batch_plan.h).
#include "space_batch_plan.h"

#include <new>

namespace opconform::optimized::space_batch {

Status check_signature(const char* op_name, const char* paddings_or_crops_attr, const Tensor& input,
                       const Tensor& block_shape, const Tensor& paddings_or_crops) {
  const auto is_index = [](DType d) { return d == DType::kInt32 || d == DType::kInt64; };
  if (!is_index(block_shape.dtype()))
    return invalid_argument("Value for attr 'Tblock_shape' of ", dtype_name(block_shape.dtype()),
                            " is not in the list of allowed values: int32, int64");
  if (!is_index(paddings_or_crops.dtype()))
    return invalid_argument("Value for attr '", paddings_or_crops_attr, "' of ", dtype_name(paddings_or_crops.dtype()),
                            " is not in the list of allowed values: int32, int64");
  switch (input.dtype()) {
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kFloat32:
    case DType::kFloat64: return Status();
    default:
      return unimplemented("No registered '", op_name,
                           "' OpKernel for 'CPU' devices compatible with T=", dtype_name(input.dtype()));
  }
}

Status check_ranks(const Tensor& input, const Tensor& block_shape, const Tensor& paddings_or_crops,
                   const char* paddings_or_crops_name) {
  if (block_shape.rank() != 1) return invalid_argument("block_shape rank should be 1 instead of ", block_shape.rank());
  const std::int64_t m = block_shape.dim(0);
  if (input.rank() < m + 1) return invalid_argument("input rank should be >= ", m + 1, " instead of ", input.rank());
  if (paddings_or_crops.rank() != 2 || paddings_or_crops.dim(0) != m || paddings_or_crops.dim(1) != 2)
    return invalid_argument(paddings_or_crops_name, " should have shape [", m, ", 2] instead of ",
                            shape_string(paddings_or_crops.shape()));
  return Status();
}

BlockDimRuns collapse_trivial_block_dims(const Tensor& block, const Tensor& paddings_or_crops) {
  const int m = static_cast<int>(block.num_elements());
  const auto trivial = [&](int i) {
    return block.index_value(i) == 1 && paddings_or_crops.index_value(2 * i) == 0 &&
           paddings_or_crops.index_value(2 * i + 1) == 0;
  };
  BlockDimRuns runs;
  while (runs.prefix < m && trivial(runs.prefix)) ++runs.prefix;
  while (runs.suffix < m - runs.prefix && trivial(m - 1 - runs.suffix)) ++runs.suffix;
  runs.internal = m - runs.prefix - runs.suffix;
  return runs;
}

Status check_internal_block_dims(int internal) {
  if (internal > kMaxInternalBlockDims)
    return invalid_argument("Maximum number of non-combined block dimensions is ", internal, " but must not exceed ",
                            kMaxInternalBlockDims);
  return Status();
}

Status OutputShape::add_dim_error(std::int64_t size) const {
  if (size < 0) return invalid_argument("Expected a non-negative size, got ", size);
  if (static_cast<int>(dims_.size()) >= kMaxDims) return invalid_argument("Too many dimensions in tensor");
  return invalid_argument("Encountered overflow when multiplying ", num_elements_, " with ", size,
                          ", result: ", multiply_without_overflow(num_elements_, size));
}

Status add_leading_dims(const Tensor& input, int prefix, OutputShape* shape, Plan* plan) {
  for (int i = 0; i < prefix; ++i) {
    OPCONFORM_RETURN_IF_ERROR(shape->add_dim(input.dim(i + 1)));
    plan->batch = multiply_without_overflow(plan->batch, input.dim(i + 1));
  }
  return Status();
}

Status add_trailing_dims(const Tensor& input, int first, OutputShape* shape, Plan* plan) {
  for (int d = first; d < input.rank(); ++d) {
    OPCONFORM_RETURN_IF_ERROR(shape->add_dim(input.dim(d)));
    plan->depth = multiply_without_overflow(plan->depth, input.dim(d));
  }
  return Status();
}

Status allocate_output(DType dtype, Shape* dims, const ExecOptions& options, std::optional<Tensor>* output) {
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, *dims));
  try {
    output->emplace(Tensor::uninitialized_taking(dtype, dims));
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(*dims), " and type ",
                              dtype_name(dtype));
  }
  return Status();
}

}  // namespace opconform::optimized::space_batch
