// The registry entry of SparseConcat (docs/contract/sparse_concat.md).
#include "opconform/op_registry.h"

namespace opconform {
namespace {
constexpr Slot kInputs[] = {{"indices", true, "int64"}, {"values", true, "T"}, {"shapes", true, "int64"}};
constexpr std::string_view kAttrs[] = {"concat_dim"};
constexpr Slot kOutputs[] = {
    {"output_indices", false, "int64"}, {"output_values", false, "T"}, {"output_shape", false, "int64"}};

// The kernel's SparseTensor is the three output slots; they are written back also on error,
// so the caller sees whether the kernel replaced one.
Status invoke(const OpTable& table, const OpCall& call, Values* outputs, const ExecOptions& options) {
  Tensor& indices = output_tensor(outputs, "output_indices");
  Tensor& values = output_tensor(outputs, "output_values");
  Tensor& shape = output_tensor(outputs, "output_shape");
  SparseTensor output{indices, values, shape};
  const Status status = table.sparse_concat(call.list("indices"), call.list("values"), call.list("shapes"),
                                            call.attr("concat_dim"), &output, options);
  indices = output.indices;
  values = output.values;
  shape = output.shape;
  return status;
}
// The sparse rank: the length of the first shape (0 without one).
std::int64_t sparse_rank(const Values& inputs) {
  const auto& shapes = std::get<std::vector<Tensor>>(inputs.at("shapes"));
  return shapes.empty() ? 0 : shapes[0].num_elements();
}

constexpr std::pair<std::string_view, std::string_view> kDim0Pairs[] = {{"indices", "values"}};
// Coordinates: every index of every input and every dim of every dense shape.
constexpr IndexLike kIndexLike[] = {{"indices", IndexLike::Kind::kInput}, {"shapes", IndexLike::Kind::kInput}};
// The dense shapes' values are the sparse tensors' dims.
constexpr std::string_view kDimsInputs[] = {"shapes"};
}  // namespace

extern const OpInfo kSparseConcatInfo = {
    .op = Op::kSparseConcat,
    .signature = {kInputs, kAttrs, kOutputs},
    .invoke = &invoke,
    .caps_rank = &sparse_rank,
    .dim0_pairs = kDim0Pairs,
    .index_like = kIndexLike,
    .unspecified = EqualKeysInAnyOrder{"output_indices", "output_values"},
    .dims_inputs = kDimsInputs,
};

}  // namespace opconform
