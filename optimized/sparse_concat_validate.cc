// Validation of the optimized SparseConcat (docs/contract/sparse_concat.md): the README
// pre-checks and the page's checks 2-10, each in order, and the plan they leave.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <span>

#include "sparse_concat_plan.h"

namespace opconform::optimized::sparse_concat {
namespace {

bool is_quantized(DType dtype) { return dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32; }

// Pre-check 1: argument types.
Status check_argument_types(std::span<const Tensor> indices, std::span<const Tensor> values,
                            std::span<const Tensor> shapes) {
  for (const Tensor& t : indices)
    if (t.dtype() != DType::kInt64)
      return invalid_argument("Input 'indices' of 'SparseConcat' Op has type ", dtype_name(t.dtype()),
                              " that does not match expected type of int64.");
  for (const Tensor& t : values)
    if (t.dtype() != values[0].dtype())
      return invalid_argument("Input 'values' of 'SparseConcat' Op has type ", dtype_name(t.dtype()),
                              " that does not match type ", dtype_name(values[0].dtype()), " of argument 'values'.");
  for (const Tensor& t : shapes)
    if (t.dtype() != DType::kInt64)
      return invalid_argument("Input 'shapes' of 'SparseConcat' Op has type ", dtype_name(t.dtype()),
                              " that does not match expected type of int64.");
  return Status();
}

// Pre-check 2 (check 1): N >= 2, list lengths, concat_dim an int32.
Status check_attrs(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                   std::int64_t concat_dim) {
  const auto n = static_cast<std::int64_t>(indices.size());
  if (n < 2) return invalid_argument("Value for attr 'N' of ", n, " must be at least minimum 2");
  if (static_cast<std::int64_t>(values.size()) != n)
    return invalid_argument("List argument 'values' to 'SparseConcat' Op with length ",
                            static_cast<std::int64_t>(values.size()), " must match length ", n,
                            " of argument 'indices'.");
  if (static_cast<std::int64_t>(shapes.size()) != n)
    return invalid_argument("List argument 'shapes' to 'SparseConcat' Op with length ",
                            static_cast<std::int64_t>(shapes.size()), " must match length ", n,
                            " of argument 'indices'.");
  if (concat_dim < std::numeric_limits<std::int32_t>::min() || concat_dim > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr concat_dim has value ", concat_dim, " out of range for an int32");
  return Status();
}

// Pre-check 3: registration.
Status check_registration(DType dtype) {
  if (is_quantized(dtype))
    return unimplemented("No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=",
                         dtype_name(dtype));
  return Status();
}

// Checks 2, 4 and 5: indices are matrices, values are vectors, shapes are vectors whose
// checked element count is >= 0.
Status check_tensor_ranks(std::span<const Tensor> indices, std::span<const Tensor> values,
                          std::span<const Tensor> shapes) {
  const auto n = static_cast<std::int64_t>(indices.size());
  for (std::int64_t i = 0; i < n; ++i)
    if (indices[i].rank() != 2)
      return invalid_argument("Input indices should be a matrix but received shape ", shape_string(indices[i].shape()),
                              " at position ", i);
  for (std::int64_t i = 0; i < n; ++i)
    if (values[i].rank() != 1)
      return invalid_argument("Input values should be a vector but received shape ", shape_string(values[i].shape()),
                              " at position ", i);
  for (std::int64_t i = 0; i < n; ++i) {
    if (shapes[i].rank() != 1)
      return invalid_argument("Input shapes should be a vector but received shape ", shape_string(shapes[i].shape()),
                              " at position ", i);
    std::int64_t elements = 1;
    for (const std::int64_t dim : shapes[i].values<std::int64_t>()) elements = multiply_without_overflow(elements, dim);
    if (elements < 0) return internal_error("Encountered overflow from large input shape.");
  }
  return Status();
}

// Checks 6 and 7: the rank (shape 0's length) and the concat dim in [0, rank), into plan.
Status resolve_concat_dim(std::span<const Tensor> shapes, std::int64_t concat_dim, Plan* plan) {
  const auto rank = static_cast<std::int64_t>(shapes[0].values<std::int64_t>().size());
  if (rank > kMaxDims) return invalid_argument("Too many dimensions in tensor");
  const std::int64_t cd = concat_dim < 0 ? rank + concat_dim : concat_dim;
  if (cd < 0 || cd >= rank)
    return invalid_argument("Concat dimension must be in range [", -rank, ", ", rank, "), got ", concat_dim);
  plan->rank = rank;
  plan->cd = cd;
  return Status();
}

// Check 8: the other shapes match shape 0 except on cd, whose sum (and the output's element
// count) must fit; the output shape into plan.
Status merge_shapes(std::span<const Tensor> shapes, Plan* plan) {
  const std::int64_t rank = plan->rank, cd = plan->cd;
  const std::span<const std::int64_t> shape0 = shapes[0].values<std::int64_t>();
  Shape output_shape(shape0.begin(), shape0.end());
  for (std::int64_t i = 1; i < static_cast<std::int64_t>(shapes.size()); ++i) {
    const std::span<const std::int64_t> shape = shapes[i].values<std::int64_t>();
    const auto rank_i = static_cast<std::int64_t>(shape.size());
    if (rank_i > kMaxDims) return invalid_argument("Too many dimensions in tensor");
    if (rank_i != rank)
      return invalid_argument("Ranks of all input tensors must match: expected ", rank, " but got ", rank_i,
                              " at position ", i);
    for (std::int64_t j = 0; j < rank; ++j) {
      if (j != cd) {
        if (shape[j] != shape0[j])
          return invalid_argument("Input shapes must match: expected ", shape0[j], " for dimension ", j, " but got ",
                                  shape[j], " at position ", i);
        continue;
      }
      if (__builtin_add_overflow(output_shape[cd], shape[cd], &output_shape[cd]))
        return invalid_argument("Concat dimension size overflows int64 at position ", i);
      std::int64_t elements = 1;
      for (const std::int64_t dim : output_shape) {
        const std::int64_t product = multiply_without_overflow(elements, dim);
        if (product < 0)
          return invalid_argument("Encountered overflow when multiplying ", elements, " with ", dim,
                                  ", result: ", product);
        elements = product;
      }
    }
  }
  plan->output_shape = std::move(output_shape);
  return Status();
}

// Check 9: the total entry count, into plan.
Status count_entries(std::span<const Tensor> indices, Plan* plan) {
  std::int64_t total = 0;
  for (const Tensor& index : indices)
    if (__builtin_add_overflow(total, index.dim(0), &total))
      return invalid_argument("Total number of entries overflows int64");
  plan->total = total;
  return Status();
}

// Check 10's row and column checks, input by input: each input that passes joins
// plan->inputs with its offset; the first failure is returned.
Status collect_inputs(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                      Plan* plan) {
  std::int64_t offset = 0;
  plan->inputs.clear();
  for (std::size_t i = 0; i < indices.size(); ++i) {
    const Tensor& index = indices[i];
    if (index.dim(0) != values[i].dim(0))
      return invalid_argument("indices and values rows (indexing dimension) must match. (indices = ", index.dim(0),
                              ", values = ", values[i].dim(0), ")");
    if (index.dim(1) != plan->rank) return invalid_argument("Order length must be SparseTensor rank.");
    const std::int64_t extent = shapes[i].data<std::int64_t>()[plan->cd];
    plan->inputs.push_back(
        {index.data<std::int64_t>(), index.dim(0), values[i].raw_data(), offset, shapes[i].data<std::int64_t>()});
    offset += extent;  // <= the output's concat dim, which fits
  }
  return Status();
}

// The first entry of `in` whose concat coordinate overflows int64 when offset, or in.nnz.
// The scan runs backwards, so that it ends at the input's first entries, which a pass that
// follows it at once may still find in cache.
std::int64_t first_overflow(const Input& in, std::int64_t rank, std::int64_t cd, int threads,
                            const ExecOptions& options) {
  if (in.offset == 0) return in.nnz;
  const std::int64_t limit = kInt64Max - in.offset;  // coordinates above overflow
  const Chunking ch = chunking(in.nnz, rank * 8, threads, options);
  // Chunk chunks - 1 - i's first overflowing entry, or nnz.
  const auto scan = [&](std::int64_t i) {
    const std::int64_t c = ch.chunks - 1 - i;
    const std::int64_t begin = ch.begin(c), end = ch.begin(c + 1);
    bool any = false;
    with_rank(rank, [&](auto kRank) {  // a compile-time stride, four independent ORs
      const std::int64_t r = kRank > 0 ? kRank : rank;
      const std::int64_t* column = in.index + cd;
      bool a0 = false, a1 = false, a2 = false, a3 = false;
      std::int64_t e = end;
      for (; e - 4 >= begin; e -= 4) {
        a0 |= column[(e - 1) * r] > limit;
        a1 |= column[(e - 2) * r] > limit;
        a2 |= column[(e - 3) * r] > limit;
        a3 |= column[(e - 4) * r] > limit;
      }
      for (; e > begin; --e) a0 |= column[(e - 1) * r] > limit;
      any = a0 | a1 | a2 | a3;
    });
    for (std::int64_t e = begin; any && e < end; ++e)
      if (in.index[e * rank + cd] > limit) return e;
    return in.nnz;
  };
  std::int64_t first = in.nnz;
  if (threads <= 1) {  // no OpenMP region (its reduction takes a lock)
    for (std::int64_t i = 0; i < ch.chunks; ++i) first = std::min(first, scan(i));
    return first;
  }
#pragma omp parallel for num_threads(threads) schedule(static) reduction(min : first)
  for (std::int64_t i = 0; i < ch.chunks; ++i) first = std::min(first, scan(i));
  return first;
}

}  // namespace

Status check_offsets(const Plan& plan, int threads, const ExecOptions& options) {
  for (std::size_t i = 0; i < plan.inputs.size(); ++i) {
    const Input& in = plan.inputs[i];
    const std::int64_t bad = first_overflow(in, plan.rank, plan.cd, threads, options);
    if (bad < in.nnz)
      return invalid_argument("Index ", in.index[bad * plan.rank + plan.cd], " at position ", i,
                              " overflows int64 when offset by ", in.offset);
  }
  return Status();
}

Status validate(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                std::int64_t concat_dim, Plan* plan, Status* deferred) {
  OPCONFORM_RETURN_IF_ERROR(check_argument_types(indices, values, shapes));
  OPCONFORM_RETURN_IF_ERROR(check_attrs(indices, values, shapes, concat_dim));
  OPCONFORM_RETURN_IF_ERROR(check_registration(values[0].dtype()));
  OPCONFORM_RETURN_IF_ERROR(check_tensor_ranks(indices, values, shapes));
  OPCONFORM_RETURN_IF_ERROR(resolve_concat_dim(shapes, concat_dim, plan));
  OPCONFORM_RETURN_IF_ERROR(merge_shapes(shapes, plan));
  OPCONFORM_RETURN_IF_ERROR(count_entries(indices, plan));
  if (plan->total == 0) return Status();
  *deferred = collect_inputs(indices, values, shapes, plan);
  return Status();
}

}  // namespace opconform::optimized::sparse_concat
