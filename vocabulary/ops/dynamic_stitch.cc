// The registry entry of DynamicStitch (docs/contract/dynamic_stitch.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"indices", true, "int32"}, {"data", true, "T"}};
constexpr Slot kOutputs[] = {{"merged", false, "T"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.dynamic_stitch(call.list("indices"), call.list("data"), &output_tensor(outputs, "merged"), options);
}
constexpr std::pair<std::string_view, std::string_view> kDim0Pairs[] = {{"indices", "data"}};
constexpr IndexLike kIndexLike[] = {{"indices", IndexLike::Kind::kInput}};
}  // namespace

extern const OpInfo kDynamicStitchInfo = {
    .op = Op::kDynamicStitch,
    .signature = {kInputs, {}, kOutputs},
    .invoke = &invoke,
    .dim0_pairs = kDim0Pairs,
    .index_like = kIndexLike,
    .sibling = Op::kParallelDynamicStitch,
    .profile_differences = profile_facts::kStitchDifferences,
};

}  // namespace opconform
