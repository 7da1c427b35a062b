// The bundled optimized kernels (optimized::op_table()) as a plug-in: every op, every dtype
// (the kernels answer UNIMPLEMENTED themselves where tf-cpu does), any rank. The default
// --impl of `opconform validate`, so the validator's main path always runs.
#include "opconform/optimized/op_table.h"
#include "opconform/validator/abi_export.h"

namespace {

using namespace opconform::validator;
const opconform::OpTable& table() { return opconform::optimized::op_table(); }

const opconform_op_caps kCaps[] = {
    abi_export::unlimited_caps(OPCONFORM_OP_SPACE_TO_BATCH_ND),
    abi_export::unlimited_caps(OPCONFORM_OP_BATCH_TO_SPACE_ND),
    abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_STITCH),
    abi_export::unlimited_caps(OPCONFORM_OP_PARALLEL_DYNAMIC_STITCH),
    abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_PARTITION),
    abi_export::unlimited_caps(OPCONFORM_OP_SPARSE_CONCAT),
};
const opconform_manifest kManifest = {OPCONFORM_ABI_VERSION, sizeof(opconform_manifest),
                                      "opconform optimized (bundled)", "tf-cpu",
                                      OPCONFORM_NUM_OPS, kCaps};

}  // namespace

extern "C" {

OPCONFORM_PLUGIN_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
OPCONFORM_PLUGIN_EXPORT const opconform_manifest* opconform_manifest_get(void) { return &kManifest; }

OPCONFORM_PLUGIN_EXPORT int32_t opconform_space_to_batch_nd(const opconform_call* call,
                                                            const opconform_tensor* input,
                                                            const opconform_tensor* block_shape,
                                                            const opconform_tensor* paddings) {
  return abi_export::space_to_batch_nd(table(), call, input, block_shape, paddings);
}
OPCONFORM_PLUGIN_EXPORT int32_t opconform_batch_to_space_nd(const opconform_call* call,
                                                            const opconform_tensor* input,
                                                            const opconform_tensor* block_shape,
                                                            const opconform_tensor* crops) {
  return abi_export::batch_to_space_nd(table(), call, input, block_shape, crops);
}
OPCONFORM_PLUGIN_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call,
                                                         const opconform_tensor* indices,
                                                         int64_t num_indices,
                                                         const opconform_tensor* data,
                                                         int64_t num_data) {
  return abi_export::dynamic_stitch(table(), call, indices, num_indices, data, num_data);
}
OPCONFORM_PLUGIN_EXPORT int32_t opconform_parallel_dynamic_stitch(const opconform_call* call,
                                                                  const opconform_tensor* indices,
                                                                  int64_t num_indices,
                                                                  const opconform_tensor* data,
                                                                  int64_t num_data) {
  return abi_export::parallel_dynamic_stitch(table(), call, indices, num_indices, data, num_data);
}
OPCONFORM_PLUGIN_EXPORT int32_t opconform_dynamic_partition(const opconform_call* call,
                                                            const opconform_tensor* data,
                                                            const opconform_tensor* partitions,
                                                            int64_t num_partitions) {
  return abi_export::dynamic_partition(table(), call, data, partitions, num_partitions);
}
OPCONFORM_PLUGIN_EXPORT int32_t opconform_sparse_concat(const opconform_call* call,
                                                        const opconform_tensor* indices,
                                                        int64_t num_indices,
                                                        const opconform_tensor* values,
                                                        int64_t num_values,
                                                        const opconform_tensor* shapes,
                                                        int64_t num_shapes, int64_t concat_dim) {
  return abi_export::sparse_concat(table(), call, indices, num_indices, values, num_values,
                                   shapes, num_shapes, concat_dim);
}

}  // extern "C"
