// The frame every op's generators share (private to generators/): the per-op hooks
// (OpGenerators: the op's rules, valid and invalid cases, predicted outputs, breakers and
// check-pair exclusions), the rule tables keyed on each op's rule enum, and the base cases the
// pre-check rules are broken on.
//
// Each op's rules are an X-macro list, rules/<snake_name>.inc, expanded in the op's own
// generator file into its rule enum and its Rule table:
//
//   #define OPCONFORM_RULE(name, id, code, pattern, where) name,
//   enum class SparseConcatRule {
//   #include "rules/sparse_concat.inc"
//   };
//   #undef OPCONFORM_RULE
//   constexpr Rule kSparseConcatRules[] = {
//   #define OPCONFORM_RULE OPCONFORM_RULE_ENTRY
//   #include "rules/sparse_concat.inc"
//   #undef OPCONFORM_RULE
//   };
//
// Generator and breaker tables key on the enumerators (by_rule), so a misspelt rule does not
// compile, nor does a rule without a generator. The op's OpGenerators instance,
// k<Name>Generators, is defined in its own file(s); op_generators.cc lists them all through
// op_list.inc.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "opconform/generators/generated_case.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/rules.h"
#include "rules/patterns.h"

// A line of rules/<snake_name>.inc as a Rule (rules.h).
#define OPCONFORM_RULE_ENTRY(name, id, code, pattern, where) {id, Code::code, pattern, where},
// A line of rules/<snake_name>.inc as an enumerator.
#define OPCONFORM_RULE_ENUMERATOR(name, id, code, pattern, where) name,

namespace opconform::generators {

// Breaks one rule on top of a case failing a later one (check_pairs.h); false when the case
// leaves it no room (e.g. no non-empty index list to put a bad index in).
using BreakFn = bool (*)(conformance::Case& c);

// A check pair (by rule index) that no single input breaks together, and why.
struct Exclusion {
  std::size_t first, second;
  std::string_view why;
};

// What the generators layer knows of one op.
struct OpGenerators {
  std::span<const Rule> rules;                // in check order: rules/<snake_name>.inc
  std::vector<DType> (*registered_dtypes)();  // the tf-cpu registration of T
  rc::Gen<GeneratedCase> (*valid)(Op op);     // the op's full valid mix
  // Fails rules[rule] first. Precondition: rule < rules.size().
  rc::Gen<GeneratedCase> (*invalid)(Op op, std::size_t rule);
  std::optional<std::vector<PredictedOutput>> (*predicted_outputs)(const conformance::Case& c);
  // large_valid_case's scaling (op_generators.h) of g, a valid case of the op: its data to
  // kParallelWorkBytes or beyond (widen.h). Use inside rc::gen::exec.
  void (*widen)(GeneratedCase& g);
  std::span<const BreakFn> breakers;      // by rule index; null: no breaker
  std::span<const Exclusion> exclusions;  // infeasible pairs, in the order they are reported
  // grow_valid_case's growth (op_generators.h) of c, a valid case of the op, about `times` over.
  // Use inside rc::gen::exec.
  void (*grow)(conformance::Case& c, std::int64_t times);
  // 1 valid case in this many is a boundary case (index_boundaries.h): fewer where such cases
  // are costly.
  int boundary_case_one_in = kBoundaryCaseOneIn;
};

// One instance per op of op_list.inc, each defined in the op's own generator file.
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) extern const OpGenerators k##Name##Generators;
#include "opconform/op_list.inc"
#undef OPCONFORM_OP

// The hooks of `op` (op_generators.cc). Throws std::logic_error for an op outside the list.
const OpGenerators& op_generators(Op op);

// The index of a rule enumerator in its op's Rule table (the enum and the table are expanded
// from the same list, in the same order).
template <class RuleEnum>
constexpr std::size_t rule_index(RuleEnum rule) {
  return static_cast<std::size_t>(rule);
}

// The index of the rule of `op` with this id; throws std::logic_error when the op has none.
inline std::size_t rule_index(Op op, std::string_view id) {
  const std::span<const Rule> rules = op_generators(op).rules;
  for (std::size_t i = 0; i < rules.size(); ++i)
    if (rules[i].id == id) return i;
  throw std::logic_error("no rule " + std::string(id) + " of " + op_name(op));
}

template <class RuleEnum, class Fn>
struct ByRule {
  RuleEnum rule;
  Fn fn;
};

// A table of N entries (an op's rule count) indexed by rule index, from {enumerator, fn}
// entries. Does not compile when a rule is listed twice or, with `every_rule`, when a rule has
// no entry.
template <std::size_t N, class RuleEnum, class Fn, std::size_t M>
consteval std::array<Fn, N> by_rule(const ByRule<RuleEnum, Fn> (&entries)[M], bool every_rule) {
  std::array<Fn, N> table{};
  for (const ByRule<RuleEnum, Fn>& e : entries) {
    const std::size_t i = rule_index(e.rule);
    if (i >= N) throw std::logic_error("a rule outside the op's list");
    if (table[i] != nullptr) throw std::logic_error("a rule listed twice");
    table[i] = e.fn;
  }
  if (every_rule)
    for (Fn fn : table)
      if (fn == nullptr) throw std::logic_error("a rule without an entry");
  return table;
}

// An exclusion keyed on enumerators.
template <class RuleEnum>
constexpr Exclusion excluded(RuleEnum first, RuleEnum second, std::string_view why) {
  return {rule_index(first), rule_index(second), why};
}

// The indices of the rules of `op` checked after rules[rule], in check order.
inline std::vector<std::size_t> rules_after(Op op, std::size_t rule) {
  std::vector<std::size_t> later;
  for (std::size_t i = rule + 1; i < op_generators(op).rules.size(); ++i) later.push_back(i);
  return later;
}
inline std::vector<std::size_t> rules_after(Op op, std::string_view id) { return rules_after(op, rule_index(op, id)); }

// A base for breaking an earlier check on top: valid() half the time, else failing(rule) for a
// rule index drawn uniformly from `rules` (the earlier check must win over both).
// Precondition: `rules` is not empty.
template <class Valid, class Failing>
GeneratedCase valid_or_failing(const std::vector<std::size_t>& rules, Valid valid, Failing failing) {
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
