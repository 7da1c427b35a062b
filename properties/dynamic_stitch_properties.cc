// Properties of DynamicStitch (docs/contract/dynamic_stitch.md): the five every op has
// (support/op_properties.h), then the page's laws, each checked on both layers.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/dynamic_partition.h"
#include "opconform/generators/dynamic_stitch.h"
#include "stitch_laws.h"

namespace opconform::properties {
namespace {

using generators::StitchMode;
constexpr Op kOp = Op::kDynamicStitch;

RC_GTEST_PROP(DynamicStitch, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DynamicStitch, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(DynamicStitch, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(DynamicStitch, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(DynamicStitch, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DynamicStitch, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(DynamicStitch, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// Rows are the last writer in (m, flat i) order; rows nobody names are zero; the first dim is
// max index + 1.
RC_GTEST_PROP(DynamicStitch, LastWriterAndZeroGaps, ()) {
  const GeneratedCase g = *generators::valid_dynamic_stitch(kOp, StitchMode::kSmall);
  const conformance::Case c = expect_outputs(g.c, {{"merged", expected_stitch(g.c)}});
  for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "last writer wins, gaps are zero");
}

RC_GTEST_PROP(DynamicStitch, RoundTripWithDynamicPartition, ()) {
  check_partition_stitch_round_trip(kOp, (*generators::valid_dynamic_partition()).c);
}

// With unique indices, the order of the lists does not matter.
RC_GTEST_PROP(DynamicStitch, ListOrderIrrelevantForUniqueIndices, ()) {
  const GeneratedCase g = *generators::valid_dynamic_stitch(kOp, StitchMode::kUnique);
  auto indices = generators::input_list(g.c, "indices");
  auto data = generators::input_list(g.c, "data");
  for (std::size_t i = indices.size(); i > 1; --i) {  // Fisher-Yates
    const std::size_t j = *rc::gen::inRange<std::size_t>(0, i);
    std::swap(indices[i - 1], indices[j]);
    std::swap(data[i - 1], data[j]);
  }
  conformance::Case permuted = g.c;
  permuted.inputs["indices"] = indices;
  permuted.inputs["data"] = data;
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outcome(permuted, run_valid(*layer, g.c, "DynamicStitch")), {},
                    "permuting the lists of a stitch with unique indices changes nothing");
}

}  // namespace
}  // namespace opconform::properties
