// Properties of ParallelDynamicStitch (docs/contract/dynamic_stitch.md): the five every op
// has (support/op_properties.h; the differential one accepts any allowed winner), then the
// page's laws, each checked on both layers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/dynamic_partition.h"
#include "opconform/generators/dynamic_stitch.h"
#include "opconform/conformance/unspecified.h"
#include "stitch_laws.h"

namespace opconform::properties {
namespace {

using generators::StitchMode;
constexpr Op kOp = Op::kParallelDynamicStitch;

RC_GTEST_PROP(ParallelDynamicStitch, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(ParallelDynamicStitch, DifferentialInvalid, ()) {
  differential_invalid(*generators::any_invalid_case(kOp));
}
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(ParallelDynamicStitch, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(ParallelDynamicStitch, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(ParallelDynamicStitch, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(ParallelDynamicStitch, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(ParallelDynamicStitch, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// Inside one list the later position wins; a row named by several lists holds the last writer
// of one of them; rows nobody names are zero.
RC_GTEST_PROP(ParallelDynamicStitch, LastWriterOfSomeListAndZeroGaps, ()) {
  const GeneratedCase g = *generators::valid_dynamic_stitch(kOp, StitchMode::kSmall);
  conformance::Case c = expect_outputs(g.c, {{"merged", expected_stitch(g.c)}});
  c.expected.unspecified = conformance::unspecified_rules(c);
  for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "a last writer wins, gaps are zero");
}

RC_GTEST_PROP(ParallelDynamicStitch, RoundTripWithDynamicPartition, ()) {
  check_partition_stitch_round_trip(kOp, (*generators::valid_dynamic_partition()).c);
}

// With unique indices, ParallelDynamicStitch equals DynamicStitch.
RC_GTEST_PROP(ParallelDynamicStitch, EqualsDynamicStitchForUniqueIndices, ()) {
  const GeneratedCase g = *generators::valid_dynamic_stitch(kOp, StitchMode::kUnique);
  conformance::Case as_stitch = g.c;
  as_stitch.op = Op::kDynamicStitch;
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outcome(g.c, run_valid(*layer, as_stitch, "DynamicStitch")), {},
                    "ParallelDynamicStitch == DynamicStitch when indices are unique");
}

}  // namespace
}  // namespace opconform::properties
