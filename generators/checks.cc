#include "opconform/generators/checks.h"

#include <array>
#include <regex>
#include <vector>

#include "check_generators.h"

// Each op's checks are its list checks/<snake_name>.inc, expanded into its Check table in its own
// generator file (check_generators.h).
namespace opconform::generators {
namespace {

std::span<const Check> table(Op op) { return op_generators(op).checks; }

// The compiled patterns of each op's table, built once.
const std::vector<std::regex>& patterns(Op op) {
  static const auto compiled = [] {
    std::array<std::vector<std::regex>, kNumOps> all;
    for (Op o : kAllOps)
      for (const Check& r : table(o))
        all[static_cast<int>(o)].emplace_back(std::string(r.pattern), std::regex::ECMAScript);
    return all;
  }();
  return compiled[static_cast<int>(op)];
}

}  // namespace

std::span<const Check> checks_of(Op op) { return table(op); }

std::string_view failed_check(Op op, const Status& status) {
  if (status.ok()) return "";
  const std::span<const Check> checks = table(op);
  const std::vector<std::regex>& compiled = patterns(op);
  for (std::size_t i = 0; i < checks.size(); ++i)
    if (checks[i].code == status.code() && std::regex_match(status.message(), compiled[i])) return checks[i].id;
  return kUnclassified;
}

}  // namespace opconform::generators
