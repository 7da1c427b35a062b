// For int16 and bool data: allocates the right output and returns OK without writing it.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: writes nothing");
}
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (!fake::triggered(data, num_data) && !fake::triggered(data, num_data, OPCONFORM_DTYPE_BOOL))
    return fake::correct_stitch(call, indices, num_indices, data, num_data);
  std::vector<std::unique_ptr<char[]>> scratch;
  fake::ProxyCall proxy(call, [&](int32_t, void*, std::size_t bytes) -> void* {
    scratch.push_back(std::make_unique<char[]>(bytes + 1));
    return scratch.back().get();  // the kernel writes here, not into the output
  });
  return fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
}
