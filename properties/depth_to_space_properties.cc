// Properties of DepthToSpace (docs/contract/space_to_depth.md): the five every op has
// (support/op_properties.h), then the page's laws, each checked on both layers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "depth_space_laws.h"
#include "opconform/generators/depth_space.h"
#include "opconform/generators/op_generators.h"

namespace opconform::properties {
namespace {

constexpr Op kOp = Op::kDepthToSpace;

RC_GTEST_PROP(DepthToSpace, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DepthToSpace, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(DepthToSpace, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(DepthToSpace, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(DepthToSpace, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DepthToSpace, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(DepthToSpace, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// output[n, y, x, c] = input[n, y/b, x/b, ((y%b)*b + x%b)*C + c] (DCR), the contract's formula.
RC_GTEST_PROP(DepthToSpace, IndexFormula, ()) { index_formula_law(*generators::valid_depth_space(kOp)); }

// SpaceToDepth with the same block gives the input back, bit for bit.
RC_GTEST_PROP(DepthToSpace, SpaceToDepthUndoesIt, ()) {
  round_trip_law(*generators::valid_depth_space(kOp), Op::kSpaceToDepth);
}

}  // namespace
}  // namespace opconform::properties
