// SPDX-License-Identifier: Apache-2.0
// Greedy shrinking of a failing case (docs/plugin-abi.md, "Failures"): drop list members,
// shrink dims, zero data elements, keeping each candidate that still fails the same way.
// Generated cases first shrink through RapidCheck's shrinkables (failure_handler.cc), then here.
//
//   Case small = shrink_case(c, [&](const Case& x) { return same_failure(x); }, 200);
#pragma once

#include <functional>
#include <vector>

#include "opconform/conformance/vector.h"

namespace opconform::validator {

// The candidates one greedy step tries, in this order: each list
// position dropped from every list input, each tensor's dims shrunk (paired inputs together),
// each data tensor zeroed.
std::vector<conformance::Case> shrink_candidates(const conformance::Case& c);

// Replaces `c` by the first candidate that `still_fails` accepts, repeatedly, until none is
// accepted or `max_runs` candidates were tried. *steps counts the accepted candidates.
conformance::Case shrink_case(conformance::Case c, const std::function<bool(const conformance::Case&)>& still_fails,
                              int max_runs, int* steps);

// The first `n` entries of `t` along dim `d` (0 <= n <= t.dim(d)).
Tensor prefix_along(const Tensor& t, int d, std::int64_t n);

}  // namespace opconform::validator
