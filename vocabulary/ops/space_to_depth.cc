// The registry entry of SpaceToDepth (docs/contract/space_to_depth.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"input", false, "T"}};
constexpr std::string_view kAttrs[] = {"block_size"};
constexpr std::string_view kStringAttrs[] = {"data_format"};
constexpr Slot kOutputs[] = {{"output", false, "T"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.space_to_depth(call.tensor("input"), call.attr("block_size"), call.string_attr("data_format"),
                              &output_tensor(outputs, "output"), options);
}
// block_size is an int64 attr of the API; the kernel reads it as int32 (block-size-int32).
constexpr ExcludedBoundary kBlockSizeExcluded[] = {
    {std::int64_t{1} << 31, "past 2^31 - 1 fails block-size-int32"},
    {std::int64_t{1} << 32, "past 2^31 - 1 fails block-size-int32"},
};
constexpr IndexLike kIndexLike[] = {{"block_size", IndexLike::Kind::kAttr, kBlockSizeExcluded}};
}  // namespace

extern const OpInfo kSpaceToDepthInfo = {
    .op = Op::kSpaceToDepth,
    .signature = {kInputs, kAttrs, kOutputs, kStringAttrs},
    .invoke = &invoke,
    .index_like = kIndexLike,
    .sibling = Op::kDepthToSpace,
    .profile_dtypes = profile_facts::kDepthSpaceDtypes,
    .profile_differences = profile_facts::kDepthSpaceDifferences,
};

}  // namespace opconform
