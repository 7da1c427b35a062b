#include "opconform/status.h"

namespace opconform {

namespace {
struct CodeName {
  Code code;
  std::string_view name;
};
constexpr CodeName kCodeNames[] = {
    {Code::kOk, "OK"},
    {Code::kInvalidArgument, "INVALID_ARGUMENT"},
    {Code::kResourceExhausted, "RESOURCE_EXHAUSTED"},
    {Code::kUnimplemented, "UNIMPLEMENTED"},
    {Code::kInternal, "INTERNAL"},
};
}  // namespace

std::string_view code_name(Code code) {
  for (const auto& entry : kCodeNames)
    if (entry.code == code) return entry.name;
  return "UNKNOWN";
}

std::optional<Code> code_from_name(std::string_view name) {
  for (const auto& entry : kCodeNames)
    if (entry.name == name) return entry.code;
  return std::nullopt;
}

const std::string& Status::empty_message() {
  static const std::string empty;
  return empty;
}

std::string Status::to_string() const {
  if (ok()) return "OK";
  return str_cat(code_name(code()), ": ", message());
}

std::ostream& operator<<(std::ostream& os, const Status& status) { return os << status.to_string(); }

}  // namespace opconform
