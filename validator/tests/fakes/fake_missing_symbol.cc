// Lists DynamicStitch in its manifest but does not export opconform_dynamic_stitch.
#include "fake_common.h"

FAKE_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
FAKE_EXPORT const opconform_manifest* opconform_manifest_get(void) {
  return fake::stitch_manifest("fake: missing symbol");
}
