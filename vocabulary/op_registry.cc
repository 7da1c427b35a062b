#include "opconform/op_registry.h"

#include <algorithm>

namespace opconform {

#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) extern const OpInfo k##Name##Info;
#include "opconform/op_list.inc"
#undef OPCONFORM_OP

const Tensor& OpCall::tensor(std::string_view name) const {
  auto it = inputs.find(std::string(name));
  const Tensor* t = it == inputs.end() ? nullptr : std::get_if<Tensor>(&it->second);
  if (!t) throw MissingArgument(str_cat("the case has no tensor input '", name, "'"));
  return *t;
}

std::span<const Tensor> OpCall::list(std::string_view name) const {
  auto it = inputs.find(std::string(name));
  const auto* l = it == inputs.end() ? nullptr : std::get_if<std::vector<Tensor>>(&it->second);
  if (!l) throw MissingArgument(str_cat("the case has no list input '", name, "'"));
  return *l;
}

std::int64_t OpCall::attr(std::string_view name) const {
  auto it = attrs.find(std::string(name));
  if (it == attrs.end()) throw MissingArgument(str_cat("the case has no attr '", name, "'"));
  return it->second;
}

std::string_view OpCall::string_attr(std::string_view name) const {
  auto it = string_attrs.find(std::string(name));
  if (it == string_attrs.end()) throw MissingArgument(str_cat("the case has no attr '", name, "'"));
  return it->second;
}

const Tensor* OpCall::find_tensor(std::string_view name) const {
  auto it = inputs.find(std::string(name));
  return it == inputs.end() ? nullptr : std::get_if<Tensor>(&it->second);
}

const std::int64_t* OpCall::find_attr(std::string_view name) const {
  auto it = attrs.find(std::string(name));
  return it == attrs.end() ? nullptr : &it->second;
}

const OpInfo& op_info(Op op) {
  static const OpInfo* const kInfos[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) &k##Name##Info,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  };
  return *kInfos[static_cast<int>(op)];
}

const Slot& data_input(const OpInfo& info) {
  for (const Slot& slot : info.signature.inputs)
    if (slot.dtype_role == "T") return slot;
  throw std::logic_error(str_cat(op_name(info.op), " has no input of dtype T"));
}

std::int64_t list_output_length(const OpInfo& info, const IntAttrs& attrs) {
  std::int64_t longest = 0;
  for (const Slot& slot : info.signature.outputs) {
    if (slot.length_attr.empty()) continue;
    auto it = attrs.find(std::string(slot.length_attr));
    if (it != attrs.end()) longest = std::max(longest, it->second);
  }
  return longest;
}

bool rename_for_sibling(const OpInfo& info, Values* inputs) {
  if (!info.sibling) return false;
  const std::span<const Slot> from = info.signature.inputs;
  const std::span<const Slot> to = op_info(*info.sibling).signature.inputs;
  if (from.size() != to.size()) throw std::logic_error(str_cat(op_name(info.op), "'s sibling takes other inputs"));
  Values renamed;
  for (std::size_t i = 0; i < from.size(); ++i) {
    auto it = inputs->find(std::string(from[i].name));
    if (it == inputs->end()) return false;
    renamed.emplace(to[i].name, it->second);
  }
  *inputs = std::move(renamed);
  return true;
}

std::optional<std::string_view> documented_profile_difference(const OpInfo& info, std::string_view profile,
                                                              Disagreement disagreement, const OpCall& call,
                                                              const Status* expected_error, const Status& actual) {
  if (disagreement == Disagreement::kValueVsError || disagreement == Disagreement::kErrorMismatch)
    for (const ProfileDtypes& registered : info.profile_dtypes) {
      if (registered.profile != profile) continue;
      const Tensor* t = call.find_tensor(registered.input);
      if (t && std::find(registered.dtypes.begin(), registered.dtypes.end(), t->dtype()) == registered.dtypes.end())
        return registered.why;
    }
  for (const ProfileDifference& difference : info.profile_differences)
    if (difference.profile == profile && difference.when.contains(disagreement) &&
        (difference.applies == nullptr || difference.applies(call, expected_error, actual)))
      return difference.why;
  return std::nullopt;
}

Values placeholder_outputs(const OpInfo& info) {
  Values outputs;
  std::uint8_t mark = 0;
  for (const Slot& slot : info.signature.outputs) {
    Tensor placeholder(DType::kUInt8, Shape{1});
    *placeholder.data<std::uint8_t>() = ++mark;
    if (slot.is_list)
      outputs.emplace(slot.name, std::vector<Tensor>{placeholder});
    else
      outputs.emplace(slot.name, placeholder);
  }
  return outputs;
}

Tensor& output_tensor(Values* outputs, std::string_view name) {
  return std::get<Tensor>(outputs->at(std::string(name)));
}

std::vector<Tensor>& output_list(Values* outputs, std::string_view name) {
  return std::get<std::vector<Tensor>>(outputs->at(std::string(name)));
}

}  // namespace opconform
