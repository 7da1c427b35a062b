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
// docs/contract/profiles.md
using namespace profile_facts;  // NOLINT: the shared predicates
constexpr ProfileDtypes kProfileDtypes[] = {
    {"tflite", "input", kTfliteTypes, "TensorFlow Lite's kernel takes float32, uint8, int8, int32 and int64 only"}};
bool zero_point_padding(const OpCall& call, const Status*, const Status&) { return int8_padded(call, "crops"); }
constexpr ProfileDifference kProfileDifferences[] = {
    {"xla", Disagreement::kErrorMismatch, &same_code, "XLA checks in another order and words its checks otherwise"},
    {"xla", Disagreement::kErrorVsValue, &exceeds_four_block_dims, "XLA has no four-dim limit"},
    {"tflite", Disagreement::kValueVsError | Disagreement::kErrorMismatch, &outside_tflite_ranks,
     "TensorFlow Lite takes input rank 3 or 4 with rank - 2 block dims only"},
    {"tflite", Disagreement::kErrorVsValue, &unchecked_block_or_paddings,
     "TensorFlow Lite checks neither the sign of block values nor negative paddings"},
    {"tflite", Disagreement::kMismatch, &zero_point_padding, "TensorFlow Lite pads int8 and uint8 with the zero point"},
};
}  // namespace

extern const OpInfo kBatchToSpaceNDInfo = {
    .op = Op::kBatchToSpaceND,
    .signature = {kInputs, {}, kOutputs},
    .invoke = &invoke,
    .index_like = kIndexLike,
    .sibling = Op::kSpaceToBatchND,
    .profile_dtypes = kProfileDtypes,
    .profile_differences = kProfileDifferences,
};

}  // namespace opconform
