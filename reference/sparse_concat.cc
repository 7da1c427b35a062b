// Reference SparseConcat: a literal transcription of docs/contract/sparse_concat.md.
//
// Validation runs the spec's checks in its order (README pre-checks, then steps 1-11); the
// compute step offsets the concat-dim coordinate of every entry of input k by the sum of the
// previous inputs' sizes on that dim, gathers all entries (inputs in order, entries in
// order), and stable-sorts them row-major.
#include "opconform/reference/sparse_concat.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/exec.h"
#include "opconform/shape.h"

namespace opconform::reference {

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

bool is_quantized(DType dtype) { return dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32; }

std::span<const std::int64_t> dims_of(const Tensor& shape_vector) { return shape_vector.values<std::int64_t>(); }

// README "Checks that come before", 1: argument types (indices, values, shapes in op order).
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

// Step 1: the op definition's attribute minimum, list lengths and concat_dim's int32 range.
Status check_op_definition(std::span<const Tensor> indices, std::span<const Tensor> values,
                           std::span<const Tensor> shapes, std::int64_t concat_dim) {
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

// What validation establishes for the compute step.
struct ValidatedConcat {
  int rank = 0;                       // r
  int concat_dim = 0;                 // cd, in [0, r)
  Shape output_shape;                 // shapes[0] with dim cd summed over the inputs
  std::vector<std::int64_t> offsets;  // offsets[k] = sum of shapes[k'][cd] for k' < k
  std::int64_t total_nnz = 0;
};

// Steps 2-9 (step 3 is unreachable after step 1).
Status check_shapes(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                    std::int64_t concat_dim, ValidatedConcat* v) {
  const std::size_t n = indices.size();
  // Step 2.
  for (std::size_t i = 0; i < n; ++i)
    if (indices[i].rank() != 2)
      return invalid_argument("Input indices should be a matrix but received shape ", shape_string(indices[i].shape()),
                              " at position ", i);
  // mutant-site: sc_shapes_before_values
  // Step 4.
  for (std::size_t i = 0; i < n; ++i)
    if (values[i].rank() != 1)
      return invalid_argument("Input values should be a vector but received shape ", shape_string(values[i].shape()),
                              " at position ", i);
  // mutant-site end
  // Step 5: each shapes[i] a vector whose checked product is not negative.
  for (std::size_t i = 0; i < n; ++i) {
    if (shapes[i].rank() != 1)
      return invalid_argument("Input shapes should be a vector but received shape ", shape_string(shapes[i].shape()),
                              " at position ", i);
    std::int64_t product = 1;
    for (std::int64_t d : dims_of(shapes[i])) {
      product = multiply_without_overflow(product, d);
      // mutant-site: sc_wrong_code_shape_overflow
      if (product < 0) return internal_error("Encountered overflow from large input shape.");
      // mutant-site end
    }
  }
  // mutant-site: sc_shapes_before_values
  // Step 6 (deviation).
  // mutant-site end
  const std::span<const std::int64_t> shape0 = dims_of(shapes[0]);
  if (shape0.size() > static_cast<std::size_t>(kMaxDims)) return invalid_argument("Too many dimensions in tensor");
  // Step 7.
  const int r = static_cast<int>(shape0.size());
  // mutant-site: sc_negative_concat_dim_abs
  const std::int64_t cd = concat_dim < 0 ? r + concat_dim : concat_dim;
  // mutant-site end
  if (cd < 0 || cd >= r)
    return invalid_argument("Concat dimension must be in range [", -r, ", ", r, "), got ", concat_dim);
  // Step 8: the other shapes against shapes[0]; the output size on cd builds up as we go.
  Shape output_shape(shape0.begin(), shape0.end());
  std::vector<std::int64_t> offsets = {0, shape0[cd]};
  for (std::size_t i = 1; i < n; ++i) {
    const std::span<const std::int64_t> shape_i = dims_of(shapes[i]);
    if (shape_i.size() > static_cast<std::size_t>(kMaxDims)) return invalid_argument("Too many dimensions in tensor");
    if (static_cast<int>(shape_i.size()) != r)
      return invalid_argument("Ranks of all input tensors must match: expected ", r, " but got ",
                              static_cast<std::int64_t>(shape_i.size()), " at position ", i);
    for (int j = 0; j < r; ++j) {
      if (j != cd) {
        if (shape_i[j] != shape0[j])
          return invalid_argument("Input shapes must match: expected ", shape0[j], " for dimension ", j, " but got ",
                                  shape_i[j], " at position ", i);
        continue;
      }
      // mutant-site: sc_unchecked_concat_sum
      if (__builtin_add_overflow(output_shape[cd], shape_i[cd], &output_shape[cd]))
        return invalid_argument("Concat dimension size overflows int64 at position ", i);
      // mutant-site end
      ShapeBuilder element_count;  // reports the first dim where the product turns negative
      for (std::int64_t d : output_shape) OPCONFORM_RETURN_IF_ERROR(element_count.add_dim(d));
    }
    // mutant-site: sc_offsets_not_accumulated
    offsets.push_back(output_shape[cd]);
    // mutant-site end
  }
  offsets.pop_back();  // the last running sum is the output size, no input's offset
  // Step 9 (the overflow is a deviation).
  std::int64_t total_nnz = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (__builtin_add_overflow(total_nnz, indices[i].dim(0), &total_nnz))
      return invalid_argument("Total number of entries overflows int64");

  v->rank = r;
  v->concat_dim = static_cast<int>(cd);
  v->output_shape = std::move(output_shape);
  v->offsets = std::move(offsets);
  v->total_nnz = total_nnz;
  return Status();
}

// Step 10: per input, rows of indices and values, the column count, and (deviation) no
// concat-dim coordinate overflowing when offset. Only runs when the total nnz is not 0.
Status check_entries(std::span<const Tensor> indices, std::span<const Tensor> values, const ValidatedConcat& v) {
  for (std::size_t i = 0; i < indices.size(); ++i) {
    if (indices[i].dim(0) != values[i].dim(0))
      return invalid_argument("indices and values rows (indexing dimension) must match. (indices = ", indices[i].dim(0),
                              ", values = ", values[i].dim(0), ")");
    // mutant-site: sc_no_rank_check
    if (indices[i].dim(1) != v.rank) return invalid_argument("Order length must be SparseTensor rank.");
    // mutant-site end
    const std::int64_t* coords = indices[i].data<std::int64_t>();
    const std::int64_t offset = v.offsets[i];
    for (std::int64_t row = 0; row < indices[i].dim(0); ++row) {
      const std::int64_t c = coords[row * v.rank + v.concat_dim];
      if (c > kInt64Max - offset)  // offset >= 0, so only a positive overflow is possible
        return invalid_argument("Index ", c, " at position ", i, " overflows int64 when offset by ", offset);
    }
  }
  return Status();
}

// The result: entries offset and gathered in input order, then stable-sorted row-major.
// Preconditions: everything above validated; outputs sized [nnz, r], [nnz], [r].
template <class T>
void concat_sorted(std::span<const Tensor> indices, std::span<const Tensor> values, const ValidatedConcat& v,
                   SparseTensor* out) {
  const auto r = static_cast<std::size_t>(v.rank);
  const auto cd = static_cast<std::size_t>(v.concat_dim);
  const auto nnz = static_cast<std::size_t>(v.total_nnz);

  // Gather: entry e has coordinates gathered[e*r, e*r + r) and value values[input[e]][row[e]].
  std::vector<std::int64_t> gathered;
  std::vector<std::size_t> source_input, source_row;
  gathered.reserve(nnz * r);
  source_input.reserve(nnz);
  source_row.reserve(nnz);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::int64_t* coords = indices[k].data<std::int64_t>();
    const auto rows = static_cast<std::size_t>(indices[k].dim(0));
    for (std::size_t row = 0; row < rows; ++row) {
      for (std::size_t j = 0; j < r; ++j) {
        const std::int64_t c = coords[row * r + j];
        gathered.push_back(j == cd ? c + v.offsets[k] : c);
      }
      source_input.push_back(k);
      source_row.push_back(row);
    }
  }

  // Stable row-major (lexicographic) sort of the entry numbers.
  std::vector<std::size_t> order(nnz);
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto coords_of = [&](std::size_t e) { return gathered.begin() + e * r; };
  // mutant-site: sc_missing_sort sc_int32_linear_index sc_sort_first_dim_only
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::lexicographical_compare(coords_of(a), coords_of(a) + r, coords_of(b), coords_of(b) + r);
  });
  // mutant-site end

  // mutant-site: sc_dedup_coordinates
  std::int64_t* out_indices = out->indices.data<std::int64_t>();
  // mutant-site end
  T* out_values = out->values.data<T>();
  // mutant-site: sc_dedup_coordinates
  for (std::size_t p = 0; p < nnz; ++p) {
    const std::size_t e = order[p];
    // mutant-site end
    std::copy(coords_of(e), coords_of(e) + r, out_indices + p * r);
    out_values[p] = values[source_input[e]].data<T>()[source_row[e]];
  }
}

}  // namespace

Status SparseConcat(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                    std::int64_t concat_dim, SparseTensor* output, const ExecOptions& options) {
  OPCONFORM_RETURN_IF_ERROR(check_argument_types(indices, values, shapes));
  OPCONFORM_RETURN_IF_ERROR(check_op_definition(indices, values, shapes, concat_dim));
  const DType dtype = values[0].dtype();
  if (is_quantized(dtype))
    return unimplemented("No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=",
                         dtype_name(dtype));

  ValidatedConcat v;
  OPCONFORM_RETURN_IF_ERROR(check_shapes(indices, values, shapes, concat_dim, &v));
  // mutant-site: sc_entry_checks_on_empty
  if (v.total_nnz != 0) OPCONFORM_RETURN_IF_ERROR(check_entries(indices, values, v));
  // mutant-site end

  // Step 11 (also for the empty result of step 9): request, then allocate, in output order.
  const Shape indices_shape = {v.total_nnz, v.rank};
  const Shape values_shape = {v.total_nnz};
  const Shape shape_shape = {v.rank};
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, indices_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, values_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, shape_shape));

  SparseTensor result{Tensor(DType::kInt64, indices_shape), Tensor(dtype, values_shape),
                      Tensor(DType::kInt64, shape_shape)};
  std::copy(v.output_shape.begin(), v.output_shape.end(), result.shape.data<std::int64_t>());
  if (v.total_nnz > 0) {
    visit_dtype(dtype, [&](auto tag) { concat_sorted<typename decltype(tag)::type>(indices, values, v, &result); });
  }
  *output = std::move(result);
  return Status();
}

}  // namespace opconform::reference
