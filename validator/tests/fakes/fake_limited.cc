// Declares DynamicStitch for float32/int32 data, int32 indices, rank <= 2. Answers other
// dtypes with UNIMPLEMENTED (a clean error), but crashes on data of rank > 2: a declared limit
// not met cleanly.
#include <csignal>

#include "fake_common.h"

namespace {
const opconform_op_caps kCaps[] = {
    {OPCONFORM_OP_DYNAMIC_STITCH, 0,
     OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT32) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT32),
     OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT32), 0, 2, 0, -1}};
const opconform_manifest kManifest = {
    OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), "fake: limited", "tf-cpu", 1, kCaps};
}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)
FAKE_DYNAMIC_STITCH {
  for (int64_t i = 0; i < num_data; ++i) {
    if (data[i].rank > 2) std::raise(SIGSEGV);
    if (data[i].dtype != OPCONFORM_DTYPE_FLOAT32 && data[i].dtype != OPCONFORM_DTYPE_INT32) {
      call->set_message(call->caller, "unsupported dtype", 17);
      return OPCONFORM_CODE_UNIMPLEMENTED;
    }
  }
  return fake::correct_stitch(call, indices, num_indices, data, num_data);
}
