// SPDX-License-Identifier: Apache-2.0
// Inputs that break two checks of an op at once, so the order of the checks shows: the earlier
// check must answer. A case for the pair (first, second) is a case failing `second` first
// (invalid_case) with `first` broken on top by its breaker (a check's breaker changes only what
// that check reads: a dtype, a rank, one value, an attr, one more list member), so `second` stays
// broken.
// An implementation that checks `second` before `first` answers `second`'s error instead.
//
//   for (const CheckPair& p : feasible_pairs(Op::kSpaceToBatchND))
//     GeneratedCase g = *pair_case(Op::kSpaceToBatchND, p);   // g.check == p.first
//
// The pairs of an op are the ordered pairs of its checks (checks.h, in check order) minus the
// ones no single input can break together; each of those has its reason (infeasible_pairs).
// A pair is *hit* when the reference answers `first` on a pair case (failed_check() == first).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "opconform/generators/generated_case.h"

namespace opconform::generators {

struct CheckPair {
  std::string_view first, second;  // check ids; `first` comes earlier in the check order
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

// Whether `check` (a check id of checks_of(op)) has a breaker (a check's breaker): every check
// has one unless each pair it comes first in is infeasible.
bool has_breaker(Op op, std::string_view check);

// A case breaking both checks of `pair` (GeneratedCase::check = pair.first, ::also_breaks =
// pair.second). Throws rc::GenerationFailure when the drawn case of `second` leaves `first`
// no room (the caller draws again).
rc::Gen<GeneratedCase> pair_case(Op op, CheckPair pair);

// A pair case for a pair drawn uniformly among the op's feasible pairs.
rc::Gen<GeneratedCase> any_pair_case(Op op);

// The search for a case that hits a pair, as every check-order sweep runs it: up to `attempts`
// drawings of pair_case(op, pair) at generator size `size`, each from random.split(); a drawing
// that leaves pair.first no room is skipped (it counts as an attempt). Returns the first drawing
// `hit` accepts (typically: the reference answers pair.first on it), or nullopt. `stop`, when
// set, is asked before each drawing and ends the search when it answers true.
//
//   rc::Random random(pair_sweep_seed());
//   for (const CheckPair& p : feasible_pairs(op))
//     if (auto s = find_pair_case(op, p, random, 50, 20, answers_first)) judge(s->value());
std::optional<rc::Shrinkable<GeneratedCase>> find_pair_case(Op op, CheckPair pair, rc::Random& random, int size,
                                                            int attempts,
                                                            const std::function<bool(const GeneratedCase&)>& hit,
                                                            const std::function<bool()>& stop = {});

// The seed of a check-order sweep: $OPCONFORM_PAIR_SEED when set and not empty, else 1.
std::uint64_t pair_sweep_seed();

}  // namespace opconform::generators
