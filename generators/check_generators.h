// The frame every op's generators share (private to generators/): the per-op hooks
// (OpGenerators: the op's checks, valid and invalid cases, predicted outputs, breakers and
// check-pair exclusions), the check tables keyed on each op's check enum, and the base cases the
// pre-checks are broken on.
//
// Each op's checks are an X-macro list, checks/<snake_name>.inc, expanded in the op's own
// generator file into its check enum and its Check table:
//
//   #define OPCONFORM_CHECK(name, id, code, pattern, where) name,
//   enum class SparseConcatCheck {
//   #include "checks/sparse_concat.inc"
//   };
//   #undef OPCONFORM_CHECK
//   constexpr Check kSparseConcatChecks[] = {
//   #define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
//   #include "checks/sparse_concat.inc"
//   #undef OPCONFORM_CHECK
//   };
//
// Generator and breaker tables key on the enumerators (by_check), so a misspelt check does not
// compile, nor does a check without a generator. The op's OpGenerators instance,
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
#include "opconform/generators/checks.h"
#include "checks/patterns.h"

// A line of checks/<snake_name>.inc as a Check (checks.h).
#define OPCONFORM_CHECK_ENTRY(name, id, code, pattern, where) {id, Code::code, pattern, where},
// A line of checks/<snake_name>.inc as an enumerator.
#define OPCONFORM_CHECK_ENUMERATOR(name, id, code, pattern, where) name,

namespace opconform::generators {

// A check's breaker: breaks that one check on top of a case failing a later one (check pairs,
// check_pairs.h); false when the case leaves it no room (e.g. no non-empty index list to put a bad index in).
using BreakFn = bool (*)(conformance::Case& c);

// A check pair (by check index) that no single input breaks together, and why.
struct Exclusion {
  std::size_t first, second;
  std::string_view why;
};

// What the generators layer knows of one op.
struct OpGenerators {
  std::span<const Check> checks;              // in check order: checks/<snake_name>.inc
  std::vector<DType> (*registered_dtypes)();  // the tf-cpu registration of T
  rc::Gen<GeneratedCase> (*valid)(Op op);     // the op's full valid mix
  // Fails checks[check] first. Precondition: check < checks.size().
  rc::Gen<GeneratedCase> (*invalid)(Op op, std::size_t check);
  std::optional<std::vector<PredictedOutput>> (*predicted_outputs)(const conformance::Case& c);
  // large_valid_case's scaling (op_generators.h) of g, a valid case of the op: its data to
  // kParallelWorkBytes or beyond (widen.h). Use inside rc::gen::exec.
  void (*widen)(GeneratedCase& g);
  std::span<const BreakFn> breakers;      // by check index; null: no breaker
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

// The index of a check enumerator in its op's Check table (the enum and the table are expanded
// from the same list, in the same order).
template <class CheckEnum>
constexpr std::size_t check_index(CheckEnum check) {
  return static_cast<std::size_t>(check);
}

// The index of the check of `op` with this id; throws std::logic_error when the op has none.
inline std::size_t check_index(Op op, std::string_view id) {
  const std::span<const Check> checks = op_generators(op).checks;
  for (std::size_t i = 0; i < checks.size(); ++i)
    if (checks[i].id == id) return i;
  throw std::logic_error("no check " + std::string(id) + " of " + op_name(op));
}

template <class CheckEnum, class Fn>
struct ByCheck {
  CheckEnum check;
  Fn fn;
};

// A table of N entries (an op's check count) indexed by check index, from {enumerator, fn}
// entries. Does not compile when a check is listed twice or, with `every_check`, when a check has
// no entry.
template <std::size_t N, class CheckEnum, class Fn, std::size_t M>
consteval std::array<Fn, N> by_check(const ByCheck<CheckEnum, Fn> (&entries)[M], bool every_check) {
  std::array<Fn, N> table{};
  for (const ByCheck<CheckEnum, Fn>& e : entries) {
    const std::size_t i = check_index(e.check);
    if (i >= N) throw std::logic_error("a check outside the op's list");
    if (table[i] != nullptr) throw std::logic_error("a check listed twice");
    table[i] = e.fn;
  }
  if (every_check)
    for (Fn fn : table)
      if (fn == nullptr) throw std::logic_error("a check without an entry");
  return table;
}

// An exclusion keyed on enumerators.
template <class CheckEnum>
constexpr Exclusion excluded(CheckEnum first, CheckEnum second, std::string_view why) {
  return {check_index(first), check_index(second), why};
}

// The indices of the checks of `op` checked after checks[check], in check order.
inline std::vector<std::size_t> checks_after(Op op, std::size_t check) {
  std::vector<std::size_t> later;
  for (std::size_t i = check + 1; i < op_generators(op).checks.size(); ++i) later.push_back(i);
  return later;
}
inline std::vector<std::size_t> checks_after(Op op, std::string_view id) {
  return checks_after(op, check_index(op, id));
}

// A base for breaking an earlier check on top: valid() half the time, else failing(check) for a
// check index drawn uniformly from `checks` (the earlier check must win over both).
// Precondition: `checks` is not empty.
template <class Valid, class Failing>
GeneratedCase valid_or_failing(const std::vector<std::size_t>& checks, Valid valid, Failing failing) {
  if (*rc::gen::arbitrary<bool>()) return valid();
  return failing(*rc::gen::elementOf(checks));
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

// g, a valid case, under a memory limit below the request of its outputs (the memory-limit check).
inline GeneratedCase with_memory_limit_below_request(GeneratedCase g) {
  g.c.memory_limit = draw_edge(0, predicted_request_bytes(*predicted_outputs(g.c)) - 1);
  return g;
}

}  // namespace opconform::generators
