#include <algorithm>
#include <filesystem>

#include "opconform/conformance/vector.h"

namespace opconform::conformance {

namespace {
constexpr Slot kSpaceToBatchInputs[] = {{"input", false}, {"block_shape", false}, {"paddings", false}};
constexpr Slot kBatchToSpaceInputs[] = {{"input", false}, {"block_shape", false}, {"crops", false}};
constexpr Slot kStitchInputs[] = {{"indices", true}, {"data", true}};
constexpr Slot kPartitionInputs[] = {{"data", false}, {"partitions", false}};
constexpr Slot kSparseConcatInputs[] = {{"indices", true}, {"values", true}, {"shapes", true}};
constexpr Slot kOutput[] = {{"output", false}};
constexpr Slot kMerged[] = {{"merged", false}};
constexpr Slot kPartitionOutputs[] = {{"outputs", true}};
constexpr Slot kSparseConcatOutputs[] = {
    {"output_indices", false}, {"output_values", false}, {"output_shape", false}};
constexpr std::string_view kNumPartitions[] = {"num_partitions"};
constexpr std::string_view kConcatDim[] = {"concat_dim"};

const OpSignature kSignatures[kNumOps] = {
    {kSpaceToBatchInputs, {}, kOutput},
    {kBatchToSpaceInputs, {}, kOutput},
    {kStitchInputs, {}, kMerged},
    {kStitchInputs, {}, kMerged},
    {kPartitionInputs, kNumPartitions, kPartitionOutputs},
    {kSparseConcatInputs, kConcatDim, kSparseConcatOutputs},
};
}  // namespace

const OpSignature& op_signature(Op op) { return kSignatures[static_cast<int>(op)]; }

std::optional<Op> op_from_name(std::string_view name) {
  for (Op op : kAllOps)
    if (name == op_name(op)) return op;
  return std::nullopt;
}

bool Case::has_tag(std::string_view tag) const {
  return std::find(tags.begin(), tags.end(), tag) != tags.end();
}

bool Alternative::allows(std::string_view profile) const {
  return std::find(profiles.begin(), profiles.end(), profile) != profiles.end();
}

std::string Case::display_name() const {
  if (!name.empty()) return name;
  return std::filesystem::path(source).stem().string();
}

}  // namespace opconform::conformance
