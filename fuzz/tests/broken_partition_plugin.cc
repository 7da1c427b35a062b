// A deliberately broken plug-in for the fuzz-impl ctest: the bundled optimized kernels'
// DynamicPartition behind a pre-pass that counts the rows of each partition, as a kernel sizing
// its outputs would, with a range check off by one: a partition value equal to num_partitions
// is counted one past the end of the histogram (a heap-buffer-overflow under ASan). Correct for
// every other input. `opconform fuzz` must find it.
#include <cstdint>
#include <vector>

#include "opconform/optimized/op_table.h"
#include "opconform/plugin_sdk/abi_export.h"

namespace {

using namespace opconform::plugin_sdk;

const opconform_op_caps kCaps[] = {abi_export::unlimited_caps(OPCONFORM_OP_DYNAMIC_PARTITION)};
const opconform_manifest kManifest = {
    OPCONFORM_ABI_VERSION, sizeof(opconform_manifest), "broken DynamicPartition (fuzz-impl test)", "tf-cpu", 1, kCaps};

void count_rows(const opconform_tensor& partitions, std::int64_t num_partitions) {
  if (partitions.dtype != OPCONFORM_DTYPE_INT32 || num_partitions < 1 || num_partitions > 4096) return;
  std::int64_t n = 1;
  for (std::int32_t d = 0; d < partitions.rank; ++d) n *= partitions.dims[d];
  std::vector<std::int64_t> counts(static_cast<std::size_t>(num_partitions), 0);
  volatile std::int64_t* histogram = counts.data();  // the stores stay
  const auto* p = static_cast<const std::int32_t*>(partitions.data);
  for (std::int64_t i = 0; i < n; ++i) {
    if (p[i] < 0 || p[i] > num_partitions) return;  // the bug: should be p[i] >= num_partitions
    ++histogram[p[i]];
  }
}

}  // namespace

extern "C" {

OPCONFORM_PLUGIN_EXPORT uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }
OPCONFORM_PLUGIN_EXPORT const opconform_manifest* opconform_manifest_get(void) { return &kManifest; }

OPCONFORM_PLUGIN_EXPORT int32_t opconform_dynamic_partition(const opconform_call* call, const opconform_tensor* data,
                                                            const opconform_tensor* partitions,
                                                            int64_t num_partitions) {
  count_rows(*partitions, num_partitions);
  return abi_export::dynamic_partition(opconform::optimized::op_table(), call, data, partitions, num_partitions);
}

}  // extern "C"
