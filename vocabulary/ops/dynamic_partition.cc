// The registry entry of DynamicPartition (docs/contract/dynamic_stitch.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"data", false, "T"}, {"partitions", false, "int32"}};
constexpr std::string_view kAttrs[] = {"num_partitions"};
constexpr Slot kOutputs[] = {{"outputs", true, "T", "num_partitions"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.dynamic_partition(call.tensor("data"), call.tensor("partitions"), call.attr("num_partitions"),
                                 &output_list(outputs, "outputs"), options);
}
constexpr std::pair<std::string_view, std::string_view> kDim0Pairs[] = {{"data", "partitions"}};
// num_partitions is an int64 attr of the API; past 2^31 - 1 it fails num-partitions-int32, and
// 2^31 - 1 outputs request 128 GiB (64 bytes each), past the default 4 GiB limit.
constexpr ExcludedBoundary kNumPartitionsExcluded[] = {
    {std::int64_t{1} << 31, "past 2^31 - 1 fails num-partitions-int32; 2^31 - 1 outputs request 128 GiB"},
    {std::int64_t{1} << 32, "past 2^31 - 1 fails num-partitions-int32"},
};
constexpr IndexLike kIndexLike[] = {{"partitions", IndexLike::Kind::kInput},
                                    {"num_partitions", IndexLike::Kind::kAttr, kNumPartitionsExcluded}};
// docs/contract/profiles.md
bool out_of_range_partition(const OpCall&, const Status* expected_error, const Status&) {
  return profile_facts::contains(profile_facts::expected_message(expected_error), "is not in [0, ");
}
constexpr ProfileDifference kProfileDifferences[] = {
    {"xla", Disagreement::kErrorVsValue, &out_of_range_partition, "XLA drops out-of-range partitions"},
};
}  // namespace

extern const OpInfo kDynamicPartitionInfo = {
    .op = Op::kDynamicPartition,
    .signature = {kInputs, kAttrs, kOutputs},
    .invoke = &invoke,
    .dim0_pairs = kDim0Pairs,
    .index_like = kIndexLike,
    .profile_differences = kProfileDifferences,
};

}  // namespace opconform
