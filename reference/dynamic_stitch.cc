// Reference DynamicStitch and ParallelDynamicStitch: a literal transcription of
// docs/contract/dynamic_stitch.md. Checks run in the page's order (after the README's
// pre-checks), then rows are copied in order over m, then over the flat position i, so the
// last (m, i) wins. ParallelDynamicStitch takes the same path (processing the lists in order is
// one of its allowed outcomes) and names itself in its messages.
#include "opconform/reference/dynamic_stitch.h"

// mutant-site: ds_one_byte_word_copy
#include <algorithm>
// mutant-site end
#include <cstdint>
#include <new>
#include <string_view>

namespace opconform::reference {
namespace {

// Spec page: TensorFlow CPU registers T for all number types, bool, string, qint8, quint8,
// qint32: every dtype of the README list.
bool registered_on_cpu(DType dtype) {
  switch (dtype) {
    case DType::kFloat32:
    case DType::kFloat64:
    case DType::kFloat16:
    case DType::kBFloat16:
    case DType::kInt8:
    case DType::kInt16:
    case DType::kInt32:
    case DType::kInt64:
    case DType::kUInt8:
    case DType::kUInt16:
    case DType::kUInt32:
    case DType::kUInt64:
    case DType::kComplex64:
    case DType::kComplex128:
    case DType::kBool:
    case DType::kString:
    case DType::kQInt8:
    case DType::kQUInt8:
    case DType::kQInt32: return true;
  }
  return false;
}

// TensorShapeUtils::StartsWith: shape's first rank(prefix) dims equal prefix.
bool starts_with(const Shape& shape, const Shape& prefix) {
  if (shape.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), shape.begin());
}

// data0.shape[rank(indices0):] == data.shape[rank(indices):]
bool same_trailing_shape(const Tensor& data0, const Tensor& indices0, const Tensor& data, const Tensor& indices) {
  const Shape trailing0(data0.shape().begin() + indices0.rank(), data0.shape().end());
  const Shape trailing(data.shape().begin() + indices.rank(), data.shape().end());
  return trailing0 == trailing;
}

Status stitch(std::string_view op, std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
              const ExecOptions& options) {
  // Pre-check 1 (README): argument types. indices are int32; data members share data[0]'s dtype.
  for (const Tensor& member : indices)
    if (member.dtype() != DType::kInt32)
      return invalid_argument("Input 'indices' of '", op, "' Op has type ", dtype_name(member.dtype()),
                              " that does not match expected type of int32.");
  // mutant-site: pds_empty_list_unchecked
  for (const Tensor& member : data)
    if (member.dtype() != data[0].dtype())
      // mutant-site end
      return invalid_argument("Input 'data' of '", op, "' Op has type ", dtype_name(member.dtype()),
                              " that does not match type ", dtype_name(data[0].dtype()), " of argument 'data'.");

  // Pre-check 2 / check 0: N = len(indices) >= 1, and len(data) == N.
  const auto n = static_cast<std::int64_t>(indices.size());
  if (n < 1) return invalid_argument("Value for attr 'N' of ", n, " must be at least minimum 1");
  if (static_cast<std::int64_t>(data.size()) != n)
    return invalid_argument("List argument 'data' to '", op, "' Op with length ",
                            static_cast<std::int64_t>(data.size()), " must match length ", n,
                            " of argument 'indices'.");

  // Pre-check 3: kernel registration for T.
  const DType dtype = data[0].dtype();
  if (!registered_on_cpu(dtype))
    return unimplemented("No registered '", op, "' OpKernel for 'CPU' devices compatible with T=", dtype_name(dtype));

  // Check 1: every index, in order over m then flat i, is >= 0 (<i> is the position inside
  // indices[m]). The maximum is taken in int64 (-1 when there is no index at all).
  std::int64_t max_index = -1;
  // mutant-site: ds_size_from_first_list ds_no_negative_index_check ds_wrong_message
  for (std::int64_t m = 0; m < n; ++m) {
    const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i) {
      if (index[i] < 0) return invalid_argument("indices[", i, "] is out of range");
      // mutant-site end
      max_index = std::max<std::int64_t>(max_index, index[i]);
    }
  }

  // Check 2: data[m].shape = indices[m].shape + C, with C the trailing shape of data[0].
  const Tensor& data0 = data[0];
  const Tensor& indices0 = indices[0];
  for (std::int64_t m = 0; m < n; ++m) {
    // mutant-site: ds_no_prefix_check
    if (!starts_with(data[m].shape(), indices[m].shape()))
      return invalid_argument("data[", m, "].shape = ", shape_string(data[m].shape()), " does not start with indices[",
                              m, "].shape = ", shape_string(indices[m].shape()));
    // mutant-site end
    // mutant-site: pds_no_trailing_shape_check
    if (m > 0 && !same_trailing_shape(data0, indices0, data[m], indices[m]))
      return invalid_argument(
          // mutant-site end
          "Need data[0].shape[", indices0.rank(), ":] = data[", m, "].shape[", indices[m].rank(),
          ":], got data[0].shape = ", shape_string(data0.shape()), ", data[", m,
          "].shape = ", shape_string(data[m].shape()), ", indices[0].shape = ", shape_string(indices0.shape()),
          ", indices[", m, "].shape = ", shape_string(indices[m].shape()));
  }

  // Check 3: output shape [max_index + 1] + C, then its memory request.
  ShapeBuilder merged_shape;
  // mutant-site: ds_int32_row_count
  const std::int64_t rows = max_index + 1;
  // mutant-site end
  OPCONFORM_RETURN_IF_ERROR(merged_shape.add_dim(rows));
  for (int d = indices0.rank(); d < data0.rank(); ++d) OPCONFORM_RETURN_IF_ERROR(merged_shape.add_dim(data0.dim(d)));
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, merged_shape.dims()));

  // Result: merged[indices[m][i], ...] = data[m][i, ...]. The new tensor holds T{} everywhere,
  // so rows that no index names stay zero (the empty string for string).
  try {
    // mutant-site: ds_gaps_uninitialised pds_gaps_uninitialised
    Tensor result(dtype, merged_shape.dims());
    // mutant-site end
    const std::int64_t row_size = rows > 0 ? result.num_elements() / rows : 0;
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* out = result.data<T>();
      // mutant-site: ds_first_wins
      for (std::int64_t m = 0; m < n; ++m) {
        const std::span<const std::int32_t> index = indices[m].values<std::int32_t>();
        const T* in = data[m].data<T>();
        // mutant-site end
        // mutant-site: ds_first_wins ds_one_byte_word_copy
        for (std::int64_t i = 0; i < static_cast<std::int64_t>(index.size()); ++i)
          for (std::int64_t k = 0; k < row_size; ++k) out[index[i] * row_size + k] = in[i * row_size + k];
        // mutant-site end
      }
    });
    *merged = std::move(result);
  } catch (const std::bad_alloc&) {
    // The allocator refused what the limit allowed: the same error as an over-limit request.
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(merged_shape.dims()), " and type ",
                              dtype_name(dtype));
  }
  return Status();
}

}  // namespace

Status DynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                     const ExecOptions& options) {
  return stitch("DynamicStitch", indices, data, merged, options);
}

Status ParallelDynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                             const ExecOptions& options) {
  // mutant-site: pds_wrong_op_name
  return stitch("ParallelDynamicStitch", indices, data, merged, options);
  // mutant-site end
}

}  // namespace opconform::reference
