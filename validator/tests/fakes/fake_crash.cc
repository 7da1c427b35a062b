// For int16 data: dies of SIGSEGV; for int8 data: abort(). Correct otherwise.
#include <csignal>
#include <cstdlib>

#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) { return fake::stitch_manifest("fake: crash"); }
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (fake::triggered(data, num_data)) std::raise(SIGSEGV);
  if (fake::triggered(data, num_data, OPCONFORM_DTYPE_INT8)) std::abort();
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
