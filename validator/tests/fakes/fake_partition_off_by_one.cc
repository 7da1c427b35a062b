// DynamicPartition whose range check is off by one: a partition value equal to num_partitions
// passes the check and lands in the last partition. Correct otherwise.
#include <vector>

#include "fake_common.h"

namespace {
const opconform_op_caps kCaps[] = {opconform::plugin_sdk::abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_PARTITION)};
const opconform_manifest kManifest = {
    OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), "fake: partition range check off by one", "tf-cpu", 1, kCaps};
}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)
FAKE_EXPORT int32_t opconform_dynamic_partition(const opconform_call* call, const opconform_tensor* data,
                                                const opconform_tensor* partitions, int64_t num_partitions) {
  if (partitions->dtype != OPCONFORM_DTYPE_INT32 || num_partitions < 1)
    return opconform::plugin_sdk::abi_export::dynamic_partition(fake::table(), call, data, partitions, num_partitions);
  int64_t n = 1;
  for (int32_t d = 0; d < partitions->rank; ++d) n *= partitions->dims[d];
  const auto* values = static_cast<const int32_t*>(partitions->data);
  std::vector<int32_t> clamped(values, values + n);
  for (int32_t& p : clamped)
    if (p == num_partitions) p = static_cast<int32_t>(num_partitions - 1);  // `p > num_partitions` rejects
  opconform_tensor checked = *partitions;
  checked.data = clamped.empty() ? partitions->data : clamped.data();
  return opconform::plugin_sdk::abi_export::dynamic_partition(fake::table(), call, data, &checked, num_partitions);
}
