// Inputs that break two checks of an op at once, so the order of the checks shows: the earlier
// check must answer. A case for the pair (first, second) is a case failing `second` first
// (invalid_case) with `first` broken on top by a breaker that changes only what `first`'s check
// reads (a dtype, a rank, one value, an attr, one more list member), so `second` stays broken.
// An implementation that checks `second` before `first` answers `second`'s error instead.
//
//   for (const CheckPair& p : feasible_pairs(Op::kSpaceToBatchND))
//     GeneratedCase g = *pair_case(Op::kSpaceToBatchND, p);   // g.rule == p.first
//
// The pairs of an op are the ordered pairs of its rules (rules.h, in check order) minus the
// ones no single input can break together; each of those has its reason (infeasible_pairs).
// A pair is *hit* when the reference answers `first` on a pair case (classify() == first).
#pragma once

#include <string_view>
#include <vector>

#include "opconform/generators/common.h"

namespace opconform::generators {

struct CheckPair {
  std::string_view first, second;  // rule ids; `first` comes earlier in the check order
  friend bool operator<(const CheckPair& a, const CheckPair& b) {
    return a.first != b.first ? a.first < b.first : a.second < b.second;
  }
  friend bool operator==(const CheckPair& a, const CheckPair& b) = default;
};

struct InfeasiblePair {
  CheckPair pair;
  std::string_view why;
};

std::vector<CheckPair> feasible_pairs(Op op);
std::vector<InfeasiblePair> infeasible_pairs(Op op);

// A case breaking both rules of `pair` (GeneratedCase::rule = pair.first, ::also_breaks =
// pair.second). Throws rc::GenerationFailure when the drawn case of `second` leaves `first`
// no room (the caller draws again).
rc::Gen<GeneratedCase> pair_case(Op op, CheckPair pair);

// A pair case for a pair drawn uniformly among the op's feasible pairs.
rc::Gen<GeneratedCase> any_pair_case(Op op);

}  // namespace opconform::generators
