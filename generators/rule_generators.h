// The frame every op's invalid-case generator shares (private to generators/): a table from each
// rule id of the op (rules.h) to the function that draws a case failing that rule first, and
// the base cases the pre-check rules are broken on.
//
//   constexpr RuleGenerator<GenerateFn> kRuleGenerators[] = {{"attr-n", n_below_minimum}, ...};
//   return generator_for(kRuleGenerators, rule, op)(rule);
#pragma once

#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/generators/generated_case.h"
#include "opconform/generators/rules.h"

namespace opconform::generators {

template <class Generate>
struct RuleGenerator {
  std::string_view rule;  // a rule id of rules_of(op)
  Generate generate;
};

// The generator `table` lists for `rule`. Throws std::logic_error when it lists none.
template <class Generate, std::size_t N>
Generate generator_for(const RuleGenerator<Generate> (&table)[N], std::string_view rule, Op op) {
  for (const RuleGenerator<Generate>& entry : table)
    if (entry.rule == rule) return entry.generate;
  throw std::logic_error("no generator for rule " + std::string(rule) + " of " + op_name(op));
}

// The ids of the rules of `op` checked after `rule`, in check order.
inline std::vector<std::string_view> rules_after(Op op, std::string_view rule) {
  std::vector<std::string_view> later;
  bool after = false;
  for (const Rule& r : rules_of(op)) {
    if (after) later.push_back(r.id);
    if (r.id == rule) after = true;
  }
  return later;
}

// A base for breaking an earlier check on top: valid() half the time, else failing(id) for an
// id drawn uniformly from `rules` (the earlier check must win over both). Precondition: `rules`
// is not empty.
template <class Valid, class Failing>
GeneratedCase valid_or_failing(const std::vector<std::string_view>& rules, Valid valid, Failing failing) {
  if (*rc::gen::arbitrary<bool>()) return valid();
  return failing(*rc::gen::elementOf(rules));
}

// A list length in [0, n + 2] other than n (n + 1 stands in for n).
inline std::size_t draw_length_other_than(std::size_t n) {
  const auto length = *rc::gen::inRange<std::size_t>(0, n + 3);
  return length == n ? n + 1 : length;
}

// Cuts `list` to `length` members or pads it with copies of member 0. Precondition: `list` is
// not empty.
inline void resize_list(std::vector<Tensor>& list, std::size_t length) {
  const Tensor extra = list[0];
  list.resize(std::min(length, list.size()));
  while (list.size() < length) list.push_back(extra);
}

// g, a valid case, under a memory limit below the request of its outputs (the memory-limit rule).
inline GeneratedCase with_memory_limit_below_request(GeneratedCase g) {
  g.c.memory_limit = draw_edge(0, predicted_request_bytes(*predicted_outputs(g.c)) - 1);
  return g;
}

}  // namespace opconform::generators
