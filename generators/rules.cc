#include "opconform/generators/rules.h"

#include <array>
#include <regex>
#include <vector>

#include "rule_generators.h"

// Each op's rules are its list rules/<snake_name>.inc, expanded into its Rule table in its own
// generator file (rule_generators.h).
namespace opconform::generators {
namespace {

std::span<const Rule> table(Op op) { return op_generators(op).rules; }

// The compiled patterns of each op's table, built once.
const std::vector<std::regex>& patterns(Op op) {
  static const auto compiled = [] {
    std::array<std::vector<std::regex>, kNumOps> all;
    for (Op o : kAllOps)
      for (const Rule& r : table(o))
        all[static_cast<int>(o)].emplace_back(std::string(r.pattern), std::regex::ECMAScript);
    return all;
  }();
  return compiled[static_cast<int>(op)];
}

}  // namespace

std::span<const Rule> rules_of(Op op) { return table(op); }

std::string_view classify(Op op, const Status& status) {
  if (status.ok()) return "";
  const std::span<const Rule> rules = table(op);
  const std::vector<std::regex>& compiled = patterns(op);
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].code == status.code() && std::regex_match(status.message(), compiled[i])) return rules[i].id;
  return kUnclassified;
}

}  // namespace opconform::generators
