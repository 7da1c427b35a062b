// Says it speaks ABI version 2.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return 2; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) { return fake::stitch_manifest("fake: wrong ABI"); }
FAKE_DYNAMIC_STITCH { return fake::correct_stitch(call, indices, num_indices, data, num_data); }
