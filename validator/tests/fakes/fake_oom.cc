// For int16 data: allocates and touches 64 MiB blocks until allocation fails (a runaway
// allocation; std::bad_alloc leaves through the entry point).
#include <cstring>

#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) { return fake::stitch_manifest("fake: oom"); }
FAKE_EXPORT int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                             int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  static std::vector<char*> hoard;
  while (fake::triggered(data, num_data)) {
    constexpr std::size_t kBlock = std::size_t{64} << 20;
    char* block = new char[kBlock];
    std::memset(block, 1, kBlock);
    hoard.push_back(block);
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
