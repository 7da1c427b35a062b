// The outcomes the spec leaves open for a case, as the conformance library's rules
// (corpus/README.md, "Unspecified outcomes"), so that comparing against one allowed outcome
// accepts every allowed outcome and nothing else:
// - ParallelDynamicStitch: a row named in several lists may hold the last writer of any of
//   them (one_of_rows, the alternatives read from the case's inputs);
// - SparseConcat: entries with equal coordinates may come in any order
//   (permutation_within_equal_keys).
// Empty for the other ops and for cases that fail.
#pragma once

#include <vector>

#include "conformance/vector.h"

namespace opconform::generators {

std::vector<conformance::UnspecifiedRule> unspecified_rules(const conformance::Case& c);

}  // namespace opconform::generators
