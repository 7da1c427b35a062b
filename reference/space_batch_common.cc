#include "space_batch_common.h"

#include <algorithm>

namespace opconform::reference::space_batch {

Status check_index_dtype(const Tensor& t, const char* attr) {
  if (t.dtype() == DType::kInt32 || t.dtype() == DType::kInt64) return Status();
  return invalid_argument("Value for attr '", attr, "' of ", dtype_name(t.dtype()),
                          " is not in the list of allowed values: int32, int64");
}

Status check_registered_on_cpu(DType dtype, const char* op) {
  // TF_CALL_REAL_NUMBER_TYPES: the integral types, half, bfloat16, float, double.
  switch (dtype) {
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
      // mutant-site: s2b_wrong_code_registration
      return unimplemented("No registered '", op, "' OpKernel for 'CPU' devices compatible with T=",
                           // mutant-site end
                           dtype_name(dtype));
  }
}

std::vector<std::int64_t> index_values(const Tensor& t) {
  std::vector<std::int64_t> values(static_cast<std::size_t>(t.num_elements()));
  for (std::int64_t i = 0; i < t.num_elements(); ++i) values[i] = t.index_value(i);
  return values;
}

BlockDimRuns collapse_trivial_block_dims(std::span<const std::int64_t> block,
                                         std::span<const std::int64_t> paddings_or_crops) {
  const int m = static_cast<int>(block.size());
  // mutant-site: b2s_collapse_ignores_crops
  auto trivial = [&](int i) {
    return block[i] == 1 && paddings_or_crops[2 * i] == 0 && paddings_or_crops[2 * i + 1] == 0;
  };
  // mutant-site end
  BlockDimRuns runs;
  while (runs.prefix < m && trivial(runs.prefix)) ++runs.prefix;
  while (runs.suffix < m - runs.prefix && trivial(m - 1 - runs.suffix)) ++runs.suffix;
  runs.internal = m - runs.prefix - runs.suffix;
  return runs;
}

Status too_many_internal_block_dims(int internal) {
  return invalid_argument("Maximum number of non-combined block dimensions is ", internal, " but must not exceed ",
                          kMaxInternalBlockDims);
}

Status collapsed_input_shape(const Tensor& input, const BlockDimRuns& runs, std::vector<std::size_t>* shape) {
  const int first_internal = 1 + runs.prefix;
  const int end_internal = first_internal + runs.internal;
  const std::int64_t batch =
      checked_num_elements(std::span<const std::int64_t>(input.shape()).subspan(0, first_internal));
  const std::int64_t depth = checked_num_elements(std::span<const std::int64_t>(input.shape()).subspan(end_internal));
  if (batch < 0 || depth < 0)
    return internal_error("reference: collapsed input shape of ", shape_string(input.shape()), " overflows int64");
  shape->assign({static_cast<std::size_t>(batch)});
  for (int d = first_internal; d < end_internal; ++d) shape->push_back(static_cast<std::size_t>(input.dim(d)));
  shape->push_back(static_cast<std::size_t>(depth));
  return Status();
}

Status expect_same_element_count(const std::vector<std::size_t>& shape, std::size_t count, const char* step) {
  std::size_t product = 1;
  for (std::size_t d : shape)
    if (__builtin_mul_overflow(product, d, &product))
      return internal_error("reference: shape of step '", step, "' overflows");
  if (product != count)
    return internal_error("reference: step '", step, "' has ", static_cast<std::uint64_t>(product),
                          " elements instead of ", static_cast<std::uint64_t>(count));
  return Status();
}

Status expect_permutation(const std::vector<std::size_t>& axes, const char* step) {
  std::vector<std::size_t> sorted = axes;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i)
    if (sorted[i] != i) return internal_error("reference: step '", step, "' is not a permutation");
  return Status();
}

}  // namespace opconform::reference::space_batch
