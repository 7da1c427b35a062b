// Properties of DynamicPartition (docs/contract/dynamic_stitch.md): the five every op has
// (support/op_properties.h), then the page's laws, each checked on both layers. The round trip
// with DynamicStitch is in dynamic_stitch_properties.cc and parallel_dynamic_stitch_properties.cc.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/dynamic_partition.h"
#include "stitch_laws.h"

namespace opconform::properties {
namespace {

constexpr Op kOp = Op::kDynamicPartition;

RC_GTEST_PROP(DynamicPartition, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DynamicPartition, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(DynamicPartition, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(DynamicPartition, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(DynamicPartition, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(DynamicPartition, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(DynamicPartition, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// A stable split: outputs[q] is the subsequence of slices with partition q, in order; the
// outputs' first dims sum to the number of partition entries.
RC_GTEST_PROP(DynamicPartition, StableSplitAndElementAccounting, ()) {
  const GeneratedCase g = *generators::valid_dynamic_partition();
  const conformance::Case c = expect_outputs(g.c, {{"outputs", expected_partition(g.c)}});
  const std::int64_t entries = generators::input_tensor(g.c, "partitions").num_elements();
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = expect_conforms(*layer, c, {}, "a stable split by partition");
    std::int64_t rows = 0;
    for (const Tensor& t : std::get<std::vector<Tensor>>(o.outputs.at("outputs"))) rows += t.dim(0);
    require(rows == entries, c,
            std::string(layer->name) + ": the outputs hold " + std::to_string(rows) + " slices for " +
                std::to_string(entries) + " partition entries");
  }
}

}  // namespace
}  // namespace opconform::properties
