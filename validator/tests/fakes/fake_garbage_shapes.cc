// For int16 data: asks for an output of shape [-5,2,1] and returns OK although it got NULL.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: garbage shapes");
}
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  const int64_t dims[] = {-5, 2, 1};
  call->allocate_output(call->caller, 0, OPCONFORM_DTYPE_INT16, 3, dims);
  return OPCONFORM_CODE_OK;
}
