// Optimized SparseConcat (docs/contract/sparse_concat.md).
//
// Validation (sparse_concat_validate.cc) reads the entries once, for check 10's offset-overflow
// scan (the concat-dim column of every input with a nonzero offset), before anything is
// allocated. Then:
// - first, assuming every input is sorted row-major with its concat-dim coordinates inside its
//   shape, a linear merge copies the entries and checks that assumption on the way
//   (sparse_concat_merge.cc);
// - when the check fails: a stable LSD radix sort of all entries on packed keys
//   (sparse_concat_sort.cc).
// Both orders are the stable row-major sort of the concatenation (equal coordinates keep input
// order), one of the allowed outcomes, whatever the thread count or tile size.
#include "opconform/optimized/sparse_concat.h"

#include <algorithm>
#include <cstdint>
#include <new>
#include <optional>
#include <utility>

#include "sparse_concat_plan.h"
#include "thread_policy.h"

namespace opconform::optimized {

using sparse_concat::kInt64Max;

Status SparseConcat(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                    std::int64_t concat_dim, SparseTensor* output, const ExecOptions& options) {
  std::int64_t coordinates = 0;  // the size of the work, before validation (saturating)
  for (const Tensor& t : indices)
    coordinates = t.num_elements() > kInt64Max / 8 - coordinates ? kInt64Max / 8 : coordinates + t.num_elements();
  const int threads = thread_policy::threads_for(options, coordinates * 8);
  sparse_concat::Plan plan;
  Status deferred;
  OPCONFORM_RETURN_IF_ERROR(sparse_concat::validate(indices, values, shapes, concat_dim, &plan, &deferred));
  if (!deferred.ok()) {  // check 10 failed at input i: the overflow scan of inputs < i first
    OPCONFORM_RETURN_IF_ERROR(sparse_concat::check_offsets(plan, threads, options));
    return deferred;
  }

  // Check 10's offset-overflow scan, then check 11: the outputs' memory, in output order.
  // Nothing is allocated before both passed.
  OPCONFORM_RETURN_IF_ERROR(sparse_concat::check_offsets(plan, threads, options));
  const DType dtype = values[0].dtype();
  Shape index_shape{plan.total, plan.rank}, values_shape{plan.total}, shape_shape{plan.rank};
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, index_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, values_shape));
  OPCONFORM_RETURN_IF_ERROR(account.request(DType::kInt64, shape_shape));

  // Each output takes its shape (no copy; intact when its allocation throws) and is built in
  // place: no placeholder Tensor is allocated first.
  std::optional<Tensor> out_indices, out_values, out_shape;
  const Shape* allocating = &index_shape;
  try {
    out_indices.emplace(Tensor::uninitialized_taking(DType::kInt64, &index_shape));
    allocating = &values_shape;
    out_values.emplace(Tensor::uninitialized_taking(dtype, &values_shape));
    allocating = &shape_shape;
    out_shape.emplace(Tensor::uninitialized_taking(DType::kInt64, &shape_shape));  // every element written next
    allocating = &out_shape->shape();
    std::copy(plan.output_shape.begin(), plan.output_shape.end(), out_shape->data<std::int64_t>());
    if (plan.total > 0) {
      std::int64_t* out_index = out_indices->data<std::int64_t>();
      if (!sparse_concat::merge_entries(plan, out_index, *out_values, threads, options))
        sparse_concat::sort_entries(plan, out_index, *out_values, threads, options);
    }
  } catch (const std::bad_alloc&) {
    // The allocator refused what the limit allowed: reported like an over-limit request (a
    // refusal after the last output was allocated names that output, as before).
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(*allocating), " and type ",
                              dtype_name(allocating == &values_shape ? dtype : DType::kInt64));
  }
  output->indices = std::move(*out_indices);
  output->values = std::move(*out_values);
  output->shape = std::move(*out_shape);
  return Status();
}

}  // namespace opconform::optimized
