#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "opconform/conformance/vector.h"

namespace opconform::conformance {

std::string registry_json() {
  using nlohmann::ordered_json;
  auto slots = [](std::span<const Slot> list) {
    ordered_json out = ordered_json::array();
    for (const Slot& slot : list) {
      ordered_json j = {{"name", slot.name}, {"list", slot.is_list}, {"dtype", slot.dtype_role}};
      if (!slot.length_attr.empty()) j["length"] = slot.length_attr;
      out.push_back(std::move(j));
    }
    return out;
  };
  ordered_json ops = ordered_json::array();
  for (Op op : kAllOps) {
    const OpSignature& s = op_signature(op);
    ordered_json attrs = ordered_json::array();
    for (std::string_view name : s.attrs) attrs.push_back({{"name", name}, {"type", "int"}});
    for (std::string_view name : s.string_attrs) attrs.push_back({{"name", name}, {"type", "string"}});
    ops.push_back({{"number", static_cast<int>(op)},
                   {"name", op_name(op)},
                   {"snake_name", op_snake_name(op)},
                   {"inputs", slots(s.inputs)},
                   {"attrs", std::move(attrs)},
                   {"outputs", slots(s.outputs)}});
  }
  return ordered_json({{"format", kRegistryFormatName}, {"ops", std::move(ops)}}).dump(1) + "\n";
}

bool Case::has_tag(std::string_view tag) const { return std::find(tags.begin(), tags.end(), tag) != tags.end(); }

bool Alternative::allows(std::string_view profile) const {
  return std::find(profiles.begin(), profiles.end(), profile) != profiles.end();
}

std::string Case::display_name() const {
  if (!name.empty()) return name;
  return std::filesystem::path(source).stem().string();
}

}  // namespace opconform::conformance
