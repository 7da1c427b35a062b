// For int16 data: computes the right output, then writes one byte past its end.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: out of bounds");
}
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  fake::ProxyCall proxy(call, [](int32_t, void* real, std::size_t) { return real; });
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  for (const auto& [buffer, bytes] : proxy.outputs) static_cast<char*>(buffer)[bytes] = 0x5a;
  return code;
}
