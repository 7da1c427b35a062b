// The registry entry of DynamicPartition (docs/contract/dynamic_stitch.md).
#include "opconform/op_registry.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"data", false, "T"}, {"partitions", false, "int32"}};
constexpr std::string_view kAttrs[] = {"num_partitions"};
constexpr Slot kOutputs[] = {{"outputs", true, "T", "num_partitions"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.dynamic_partition(call.tensor("data"), call.tensor("partitions"),
                                 call.attr("num_partitions"), &output_list(outputs, "outputs"),
                                 options);
}
constexpr std::pair<std::string_view, std::string_view> kDim0Pairs[] = {{"data", "partitions"}};
}  // namespace

extern const OpInfo kDynamicPartitionInfo = {
    .op = Op::kDynamicPartition,
    .signature = {kInputs, kAttrs, kOutputs},
    .invoke = &invoke,
    .dim0_pairs = kDim0Pairs,
};

}  // namespace opconform
