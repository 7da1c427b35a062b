// The registry entry of BatchToSpaceND (docs/contract/space_to_batch_nd.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"input", false, "T"}, {"block_shape", false, "Tblock_shape"}, {"crops", false, "Tcrops"}};
constexpr Slot kOutputs[] = {{"output", false, "T"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.batch_to_space_nd(call.tensor("input"), call.tensor("block_shape"), call.tensor("crops"),
                                 &output_tensor(outputs, "output"), options);
}
constexpr IndexLike kIndexLike[] = {{"block_shape", IndexLike::Kind::kInput}, {"crops", IndexLike::Kind::kInput}};
}  // namespace

extern const OpInfo kBatchToSpaceNDInfo = {
    .op = Op::kBatchToSpaceND,
    .signature = {kInputs, {}, kOutputs},
    .invoke = &invoke,
    .index_like = kIndexLike,
    .sibling = Op::kSpaceToBatchND,
    .profile_dtypes = profile_facts::kSpaceBatchDtypes,
    .profile_differences = profile_facts::kSpaceBatchDifferences,
};

}  // namespace opconform
