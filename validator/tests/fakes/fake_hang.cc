// For int16 data: never returns.
#include <unistd.h>

#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) { return fake::stitch_manifest("fake: hang"); }
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  while (fake::triggered(data, num_data)) ::pause();
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
