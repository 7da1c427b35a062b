// SPDX-License-Identifier: Apache-2.0
// Private helpers of the reference SpaceToBatchND and BatchToSpaceND (these two ops only):
// the pre-checks of spec README, the collapsing rule, copies between Tensor and xt::xarray,
// and the output's allocation. See docs/contract/space_to_batch_nd.md.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <new>
#include <span>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>

#include "opconform/ops.h"

namespace opconform::reference::space_batch {

inline constexpr int kMaxInternalBlockDims = 4;

// Pre-check 1 (argument types): `t` must be int32 or int64, else INVALID_ARGUMENT
// "Value for attr '<attr>' of <dtype> is not in the list of allowed values: int32, int64".
Status check_index_dtype(const Tensor& t, const char* attr);

// Pre-check 3 (tf-cpu kernel registration): T must be a real number type, else UNIMPLEMENTED
// "No registered '<op>' OpKernel for 'CPU' devices compatible with T=<dtype>".
Status check_registered_on_cpu(DType dtype, const char* op);

// The values of an int32/int64 tensor, row-major, widened to int64.
std::vector<std::int64_t> index_values(const Tensor& t);

// The collapsing rule: the leading run of block dims with b_i = 1 and a zero pair [start, end]
// merges into the batch, then the trailing run with the same property merges into the
// remaining dims. `paddings_or_crops` holds [start_0, end_0, start_1, ...].
struct BlockDimRuns {
  int prefix = 0;    // block dims [0, prefix) merge into the batch
  int suffix = 0;    // block dims [M - suffix, M) merge into the remaining dims
  int internal = 0;  // M - prefix - suffix
};
BlockDimRuns collapse_trivial_block_dims(std::span<const std::int64_t> block,
                                         std::span<const std::int64_t> paddings_or_crops);

// "Maximum number of non-combined block dimensions is <internal> but must not exceed 4".
Status too_many_internal_block_dims(int internal);

// The input of either op seen through the collapsing rule, as a shape of rank internal + 2:
// [batch * prefix dims] + [internal spatial dims] + [suffix spatial dims * remaining dims].
// Precondition: the product of each group fits in int64 (true when the op's output is not
// empty and the input is a valid tensor); returns INTERNAL otherwise.
Status collapsed_input_shape(const Tensor& input, const BlockDimRuns& runs, std::vector<std::size_t>* shape);

// Internal-consistency checks run before each xtensor call (xtensor checks nothing). They
// hold whenever validation passed; a failure is a bug in the reference, reported as INTERNAL.
Status expect_same_element_count(const std::vector<std::size_t>& shape, std::size_t count, const char* step);
Status expect_permutation(const std::vector<std::size_t>& axes, const char* step);

// The buffer of `t` as an xarray of `shape`. Precondition: element counts match.
template <class T>
xt::xarray<T> to_xarray(const Tensor& t, const std::vector<std::size_t>& shape) {
  xt::xarray<T> a = xt::xarray<T>::from_shape(shape);
  std::copy_n(t.data<T>(), t.num_elements(), a.data());
  return a;
}

// Copies a row-major xarray into `out`. Precondition: element counts and dtype match.
template <class T>
void copy_to_tensor(const xt::xarray<T>& a, Tensor* out) {
  std::copy_n(a.data(), out->num_elements(), out->data<T>());
}

// The last step of either op: the output's memory against options.memory_limit_bytes, then a
// value-initialised output of `shape` that compute(tag, &result) fills (tag from visit_dtype)
// unless it is empty. std::bad_alloc answers RESOURCE_EXHAUSTED, any other exception INTERNAL
// "reference <op>: <what>".
template <class Compute>
Status allocate_and_compute(const char* op, DType dtype, const Shape& shape, const ExecOptions& options, Tensor* output,
                            Compute&& compute) {
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape));
  try {
    Tensor result(dtype, shape);
    if (result.num_elements() > 0) {  // an empty output has nothing to move
      OPCONFORM_RETURN_IF_ERROR(visit_dtype(dtype, [&](auto tag) { return compute(tag, &result); }));
    }
    *output = std::move(result);
    return Status();
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(shape), " and type ",
                              dtype_name(dtype));
  } catch (const std::exception& e) {
    return internal_error("reference ", op, ": ", e.what());
  }
}

// The ops without pre-check 3 (tf-cpu registration): they move every dtype, string and
// bool included. The public ops are these plus that check; unit tests use these to show
// the data movement is generic (T{} as the zero of every dtype).
Status SpaceToBatchNDAnyDType(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                              const ExecOptions& options);
Status BatchToSpaceNDAnyDType(const Tensor& input, const Tensor& block_shape, const Tensor& crops, Tensor* output,
                              const ExecOptions& options);

}  // namespace opconform::reference::space_batch
