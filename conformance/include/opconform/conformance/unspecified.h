// SPDX-License-Identifier: Apache-2.0
// The outcomes the contract leaves open (docs/contract/README.md, "Comparing results"), in one
// place for every caller that judges an implementation (validator, fuzzers, properties, the
// GoogleTest suite): comparing against the oracle's outcome widened by these rules accepts
// every allowed outcome and nothing else. Each op's registry entry says what is open
// (OpInfo::unspecified, op_registry.h):
// - AnyListsLastWriter (ParallelDynamicStitch): a row named in several lists may hold the last
//   writer of any of them (OneOfRows, the alternatives read from the case's inputs);
// - EqualKeysInAnyOrder (SparseConcat): entries with equal coordinates may come in any order
//   (PermutationWithinEqualKeys).
#pragma once

#include <vector>

#include "opconform/conformance/run.h"
#include "opconform/conformance/vector.h"

namespace opconform::conformance {

// The rules for a case that succeeds; empty for an op with nothing open, and for inputs too malformed to
// name alternatives (such a case fails, and rules only widen successful outcomes).
std::vector<UnspecifiedRule> unspecified_rules(const Case& c);

// The oracle's outcome as the expectation an implementation is judged by: its error, or its
// outputs widened by unspecified_rules(c).
Expected oracle_expectation(const Case& c, const Outcome& oracle);

}  // namespace opconform::conformance
