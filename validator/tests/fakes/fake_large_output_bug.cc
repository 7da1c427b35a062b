// A value bug only large outputs show: correct, except that byte 4096 of the merged output (from
// 1024 float32 elements up) has its lowest bit flipped, as a kernel whose second tile is off
// would. Any dtype but string.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: wrong from byte 4096");
}
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  fake::ProxyCall proxy(call, [](int32_t, void* real, std::size_t) { return real; });
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  if (code == OPCONFORM_CODE_OK && !fake::triggered(data, num_data, OPCONFORM_DTYPE_STRING) &&
      !fake::triggered(data, num_data, OPCONFORM_DTYPE_BOOL) && !proxy.outputs.empty() &&
      proxy.outputs[0].second > 4096)
    static_cast<unsigned char*>(proxy.outputs[0].first)[4096] ^= 1;
  return code;
}
