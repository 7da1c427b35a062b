// Private helpers of the reference SpaceToDepth and DepthToSpace (these two ops only): the
// checks both share (pre-checks 2 and 3, steps 1 and 2 of docs/contract/space_to_depth.md),
// and the literal reshape, transpose, reshape on xt::xarray that both ops are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <limits>
#include <new>
#include <string_view>
#include <utility>
#include <vector>

#include <xtensor/xarray.hpp>
#include <xtensor/xmanipulation.hpp>
#include <xtensor/xstrided_view.hpp>

#include "opconform/ops.h"

namespace opconform::reference::depth_space {

// Pre-check 2 (the op definition's attrs), pre-check 3 (the CPU kernel's registration: dtype,
// then data_format), then the op's steps 1 (block_size fits int32) and 2 (rank 4), in order.
// `registered` says whether the op's CPU kernel is registered for a dtype; `rank_message` is
// the op's text before the rank, e.g. "Input rank should be 4 instead of ".
template <class Registered>
Status check_common(const char* op, const Tensor& input, std::int64_t block_size, std::string_view data_format,
                    Registered registered, std::string_view rank_message) {
  if (block_size < 2)
    return invalid_argument("Value for attr 'block_size' of ", block_size, " must be at least minimum 2");
  if (data_format != "NHWC" && data_format != "NCHW" && data_format != "NCHW_VECT_C")
    return invalid_argument("Value for attr 'data_format' of \"", data_format,
                            "\" is not in the list of allowed values: \"NHWC\", \"NCHW\", \"NCHW_VECT_C\"");
  if (!registered(input.dtype()))
    return unimplemented("No registered '", op,
                         "' OpKernel for 'CPU' devices compatible with T=", dtype_name(input.dtype()));
  if (data_format != "NHWC") return invalid_argument("Only NHWC data_format supported on CPU. Got ", data_format);
  if (block_size > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr block_size has value ", block_size, " out of range for an int32");
  if (input.rank() != 4) return invalid_argument(rank_message, input.rank());
  return Status();
}

using Dims = std::vector<std::size_t>;

// Both ops are this: view the input as `split` (rank 6), swap axes 2 and 3, and read the
// result as `out_shape`. SpaceToDepth splits [N, H, W, C] into [N, H/b, b, W/b, b, C];
// DepthToSpace splits it into [N, H, W, b, b, C/(b*b)]. Returns INTERNAL when the shapes do
// not hold the same element count (a bug in the caller: validation guarantees it).
template <class T>
Status reshape_transpose_reshape(const Tensor& input, const Dims& split, Tensor* output) {
  std::size_t count = 1;
  for (std::size_t d : split) count *= d;
  if (count != static_cast<std::size_t>(input.num_elements()) ||
      count != static_cast<std::size_t>(output->num_elements()))
    return internal_error("reference depth/space: element counts differ");
  xt::xarray<T> a = xt::xarray<T>::from_shape(split);
  std::copy_n(input.data<T>(), count, a.data());
  const xt::xarray<T> swapped = xt::transpose(a, Dims{0, 1, 3, 2, 4, 5}, xt::check_policy::full());
  Dims out_shape(output->shape().begin(), output->shape().end());
  const xt::xarray<T> result = xt::reshape_view(swapped, out_shape);
  std::copy_n(result.data(), count, output->data<T>());
  return Status();
}

// The memory request, then a value-initialised output of `shape` filled by the three steps
// unless it is empty. std::bad_alloc answers RESOURCE_EXHAUSTED, any other exception INTERNAL.
inline Status allocate_and_move(const char* op, const Tensor& input, const Shape& shape, const Dims& split,
                                const ExecOptions& options, Tensor* output) {
  MemoryAccount account(options.memory_limit_bytes);
  OPCONFORM_RETURN_IF_ERROR(account.request(input.dtype(), shape));
  try {
    Tensor result(input.dtype(), shape);
    if (result.num_elements() > 0) {
      OPCONFORM_RETURN_IF_ERROR(visit_dtype(input.dtype(), [&](auto tag) {
        return reshape_transpose_reshape<typename decltype(tag)::type>(input, split, &result);
      }));
    }
    *output = std::move(result);
    return Status();
  } catch (const std::bad_alloc&) {
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(shape), " and type ",
                              dtype_name(input.dtype()));
  } catch (const std::exception& e) {
    return internal_error("reference ", op, ": ", e.what());
  }
}

}  // namespace opconform::reference::depth_space
