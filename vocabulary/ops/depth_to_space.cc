// The registry entry of DepthToSpace (docs/contract/space_to_depth.md).
#include "opconform/op_registry.h"
#include "profile_facts.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"input", false, "T"}};
constexpr std::string_view kAttrs[] = {"block_size"};
constexpr std::string_view kStringAttrs[] = {"data_format"};
constexpr Slot kOutputs[] = {{"output", false, "T"}};

Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  return table.depth_to_space(call.tensor("input"), call.attr("block_size"), call.string_attr("data_format"),
                              &output_tensor(outputs, "output"), options);
}
// block_size is an int64 attr of the API; the kernel reads it as int32 (block-size-int32).
constexpr ExcludedBoundary kBlockSizeExcluded[] = {
    {std::int64_t{1} << 31, "past 2^31 - 1 fails block-size-int32"},
    {std::int64_t{1} << 32, "past 2^31 - 1 fails block-size-int32"},
};
constexpr IndexLike kIndexLike[] = {{"block_size", IndexLike::Kind::kAttr, kBlockSizeExcluded}};
// docs/contract/profiles.md
using namespace profile_facts;  // NOLINT: the shared predicates
constexpr ProfileDtypes kProfileDtypes[] = {
    {"tflite", "input", kTfliteTypes, "TensorFlow Lite's kernel takes float32, uint8, int8, int32 and int64 only"},
    {"xla", "input", kXlaEveryVersionTypes,
     "XLA takes the XLA device's types, which vary by version: int32, int64, float32, float64 and bool in all"},
};
constexpr ProfileDifference kProfileDifferences[] = {
    {"xla", Disagreement::kErrorMismatch, &same_code,
     "XLA words its rank and divisibility checks otherwise (tf2xla/kernels/depthtospace_op.cc)"},
    {"xla", Disagreement::kErrorVsValue | Disagreement::kErrorMismatch, &only_nhwc_on_cpu,
     "XLA lowers NCHW and NCHW_VECT_C too (the value is not checked)"},
    {"xla", Disagreement::kErrorVsValue, &quantized_unregistered_on_cpu,
     "newer XLA devices take quint8 and qint32, for which tf-cpu has no kernel"},
    {"tflite", Disagreement::kErrorMismatch, &only_nhwc_on_cpu,
     "TensorFlow Lite has no data_format: NCHW and NCHW_VECT_C cannot be expressed"},
    {"tflite", Disagreement::kErrorVsValue, &block_size_one, "TensorFlow Lite does not check block_size >= 2"},
};
}  // namespace

extern const OpInfo kDepthToSpaceInfo = {
    .op = Op::kDepthToSpace,
    .signature = {kInputs, kAttrs, kOutputs, kStringAttrs},
    .invoke = &invoke,
    .index_like = kIndexLike,
    .sibling = Op::kSpaceToDepth,
    .profile_dtypes = kProfileDtypes,
    .profile_differences = kProfileDifferences,
};

}  // namespace opconform
