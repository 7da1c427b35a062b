// For int16 data: aborts when the data hold exactly one element, else answers with the lowest bit
// of the first output byte flipped (a mismatch). Shrinking that mismatch meets the crash.
#include <cstdlib>

#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: crashes on one element");
}
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (!fake::triggered(data, num_data)) return fake::correct_stitch(call, indices, num_indices, data, num_data);
  int64_t elements = 0;
  for (int64_t m = 0; m < num_data; ++m) {
    int64_t n = 1;
    for (int32_t d = 0; d < data[m].rank; ++d) n *= data[m].dims[d];
    elements += n;
  }
  if (elements == 1) std::abort();
  fake::ProxyCall proxy(call, [](int32_t, void* real, std::size_t) { return real; });
  const int32_t code = fake::correct_stitch(proxy.call(), indices, num_indices, data, num_data);
  if (code == OPCONFORM_CODE_OK && !proxy.outputs.empty() && proxy.outputs[0].second > 0)
    static_cast<unsigned char*>(proxy.outputs[0].first)[0] ^= 1;
  return code;
}
