// The registry entry of SpaceToBatchND (docs/contract/space_to_batch_nd.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {
    {"input", false, "T"}, {"block_shape", false, "Tblock_shape"}, {"paddings", false, "Tpaddings"}};
constexpr Slot kOutputs[] = {{"output", false, "T"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.space_to_batch_nd(call.tensor("input"), call.tensor("block_shape"), call.tensor("paddings"),
                                 &output_tensor(outputs, "output"), options);
}
constexpr IndexLike kIndexLike[] = {{"block_shape", IndexLike::Kind::kInput}, {"paddings", IndexLike::Kind::kInput}};
}  // namespace

extern const OpInfo kSpaceToBatchNDInfo = {
    .op = Op::kSpaceToBatchND,
    .signature = {kInputs, {}, kOutputs},
    .invoke = &invoke,
    .index_like = kIndexLike,
    .sibling = Op::kBatchToSpaceND,
    .profile_dtypes = profile_facts::kSpaceBatchDtypes,
    .profile_differences = profile_facts::kSpaceBatchDifferences,
};

}  // namespace opconform
