// SPDX-License-Identifier: Apache-2.0
// Exports an OpTable through the plug-in C ABI (opconform/plugin_abi.h): converts the
// caller's tensor descriptors to Tensors, runs the op, and copies each output into a buffer from
// call->allocate_output. When the op fails after allocating outputs (Tensors), those outputs
// are requested through call->allocate_output before the error is returned, so the caller sees
// what a plug-in allocating from the caller would have done. The bundled plug-in, the mutants
// and the test fakes are built on it.
//
//   extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_dynamic_stitch(
//       const opconform_call* call, const opconform_tensor* indices, int64_t n,
//       const opconform_tensor* data, int64_t m) {
//     return abi_export::dynamic_stitch(optimized::op_table(), call, indices, n, data, m);
//   }
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "opconform/ops.h"
#include "opconform/plugin_abi.h"
#include "opconform/plugin_sdk/plugin_entry.h"

namespace opconform::plugin_sdk::abi_export {

// Each returns the op's code (OPCONFORM_CODE_*) and sets the message through the call. A
// malformed descriptor gives INVALID_ARGUMENT "bad tensor descriptor: ...", a refused output
// allocation RESOURCE_EXHAUSTED, an exception INTERNAL.
std::int32_t space_to_batch_nd(const OpTable& table, const opconform_call* call, const opconform_tensor* input,
                               const opconform_tensor* block_shape, const opconform_tensor* paddings);
std::int32_t batch_to_space_nd(const OpTable& table, const opconform_call* call, const opconform_tensor* input,
                               const opconform_tensor* block_shape, const opconform_tensor* crops);
std::int32_t dynamic_stitch(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                            std::int64_t num_indices, const opconform_tensor* data, std::int64_t num_data);
std::int32_t parallel_dynamic_stitch(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                                     std::int64_t num_indices, const opconform_tensor* data, std::int64_t num_data);
std::int32_t dynamic_partition(const OpTable& table, const opconform_call* call, const opconform_tensor* data,
                               const opconform_tensor* partitions, std::int64_t num_partitions);
std::int32_t sparse_concat(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                           std::int64_t num_indices, const opconform_tensor* values, std::int64_t num_values,
                           const opconform_tensor* shapes, std::int64_t num_shapes, std::int64_t concat_dim);

// The generic entry point (opconform_run_op) over any op of the registry: the inputs and
// attrs in op_signature(op)'s order (integer attrs, then string attrs), the outputs written in
// order. An op the table does not provide gives UNIMPLEMENTED; a call whose counts do not match
// the signature INVALID_ARGUMENT "bad call: ...".
std::int32_t run_op(const OpTable& table, const opconform_call* call, std::int32_t op, const opconform_input* inputs,
                    std::int32_t num_inputs, const opconform_attr* attrs, std::int32_t num_attrs);

// A manifest entry for `op` accepting every dtype (data and index-like: the kernels answer
// the argument-type and registration checks themselves) and any rank.
opconform_op_caps unlimited_caps(int op);

// The plumbing, for fakes that sabotage one step.
// Reads a descriptor into a Tensor (deep copy); false with *error set when malformed.
bool tensor_from_abi(const opconform_tensor& t, Tensor* out, std::string* error);
// Allocates output `index` through the call and copies `t` into it; false when refused.
bool write_output(const opconform_call* call, std::int32_t index, const Tensor& t);
// Sets the message and returns the code of `status`.
std::int32_t finish(const opconform_call* call, const Status& status);

// Returns f(): the `wrap` of the entry-point macros below for a plug-in that adds nothing.
template <class F>
std::int32_t direct(F f) {
  return f();
}

}  // namespace opconform::plugin_sdk::abi_export

// A plug-in's op entry points, defined at global scope: each OPCONFORM_PLUGIN_<OP>(table, wrap)
// defines opconform_<op>, which returns wrap([&] { return abi_export::<op>(table, call, <its
// arguments>); }); wrap is abi_export::direct or a plug-in's own function of such a callable.
// (OPCONFORM_PLUGIN_MANIFEST: plugin_entry.h.)
#define OPCONFORM_PLUGIN_SPACE_TO_BATCH_ND(table, wrap) \
  OPCONFORM_PLUGIN_SPACE_BATCH_(space_to_batch_nd, paddings, table, wrap)
#define OPCONFORM_PLUGIN_BATCH_TO_SPACE_ND(table, wrap) \
  OPCONFORM_PLUGIN_SPACE_BATCH_(batch_to_space_nd, crops, table, wrap)
#define OPCONFORM_PLUGIN_DYNAMIC_STITCH(table, wrap) OPCONFORM_PLUGIN_STITCH_(dynamic_stitch, table, wrap)
#define OPCONFORM_PLUGIN_PARALLEL_DYNAMIC_STITCH(table, wrap) \
  OPCONFORM_PLUGIN_STITCH_(parallel_dynamic_stitch, table, wrap)
#define OPCONFORM_PLUGIN_DYNAMIC_PARTITION(table, wrap)                                                             \
  extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_dynamic_partition(                                           \
      const opconform_call* call, const opconform_tensor* data, const opconform_tensor* partitions,                 \
      int64_t num_partitions) {                                                                                     \
    return wrap([&] {                                                                                               \
      return ::opconform::plugin_sdk::abi_export::dynamic_partition(table, call, data, partitions, num_partitions); \
    });                                                                                                             \
  }
#define OPCONFORM_PLUGIN_SPARSE_CONCAT(table, wrap)                                                                    \
  extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_sparse_concat(                                                  \
      const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,                                \
      const opconform_tensor* values, int64_t num_values, const opconform_tensor* shapes, int64_t num_shapes,          \
      int64_t concat_dim) {                                                                                            \
    return wrap([&] {                                                                                                  \
      return ::opconform::plugin_sdk::abi_export::sparse_concat(table, call, indices, num_indices, values, num_values, \
                                                                shapes, num_shapes, concat_dim);                       \
    });                                                                                                                \
  }
#define OPCONFORM_PLUGIN_RUN_OP(table, wrap)                                                                     \
  extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_run_op(const opconform_call* call, int32_t op,            \
                                                              const opconform_input* inputs, int32_t num_inputs, \
                                                              const opconform_attr* attrs, int32_t num_attrs) {  \
    return wrap([&] {                                                                                            \
      return ::opconform::plugin_sdk::abi_export::run_op(table, call, op, inputs, num_inputs, attrs, num_attrs); \
    });                                                                                                          \
  }
// The two ops of each signature.
#define OPCONFORM_PLUGIN_SPACE_BATCH_(op, amounts, table, wrap)                                                        \
  extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_##op(const opconform_call* call, const opconform_tensor* input, \
                                                            const opconform_tensor* block_shape,                       \
                                                            const opconform_tensor* amounts) {                         \
    return wrap([&] { return ::opconform::plugin_sdk::abi_export::op(table, call, input, block_shape, amounts); });    \
  }
#define OPCONFORM_PLUGIN_STITCH_(op, table, wrap)                                                                    \
  extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_##op(const opconform_call* call,                              \
                                                            const opconform_tensor* indices, int64_t num_indices,    \
                                                            const opconform_tensor* data, int64_t num_data) {        \
    return wrap(                                                                                                     \
        [&] { return ::opconform::plugin_sdk::abi_export::op(table, call, indices, num_indices, data, num_data); }); \
  }
