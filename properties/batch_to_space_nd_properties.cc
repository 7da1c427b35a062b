// Properties of BatchToSpaceND (docs/contract/space_to_batch_nd.md): the five every op has
// (support/op_properties.h), then the page's laws, each checked on both layers. The round trip
// with SpaceToBatchND is in space_to_batch_nd_properties.cc.
#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/batch_to_space_nd.h"
#include "opconform/generators/op_generators.h"
#include "space_batch_laws.h"
#include "support/run_and_check.h"
#include "support/op_properties.h"

namespace opconform::properties {
namespace {

using generators::SpaceBatchMode;
constexpr Op kOp = Op::kBatchToSpaceND;

RC_GTEST_PROP(BatchToSpaceND, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(BatchToSpaceND, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(BatchToSpaceND, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(BatchToSpaceND, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(BatchToSpaceND, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(BatchToSpaceND, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(BatchToSpaceND, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// Every output element is written exactly once from an input element: the output's elements
// are a sub-multiset of the input's (payloads are distinct and never all-zero bits).
RC_GTEST_PROP(BatchToSpaceND, ElementAccounting, ()) {
  const GeneratedCase g = *generators::valid_batch_to_space_nd(SpaceBatchMode::kSmall);
  const Tensor& x = generators::input_tensor(g.c, "input");
  std::vector<std::string> input;
  for (std::int64_t i = 0; i < x.num_elements(); ++i) input.push_back(element_bytes(x, i));
  std::sort(input.begin(), input.end());
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = run_valid(*layer, g.c, "BatchToSpaceND");
    const Tensor& y = std::get<Tensor>(o.outputs.at("output"));
    std::vector<std::string> got;
    for (std::int64_t i = 0; i < y.num_elements(); ++i) got.push_back(element_bytes(y, i));
    std::sort(got.begin(), got.end());
    require(
        std::includes(input.begin(), input.end(), got.begin(), got.end()),
        [&] { return expect_reference_outcome(g.c); },
        std::string(layer->name) + ": the output holds elements that are not input elements, or one twice");
  }
}

RC_GTEST_PROP(BatchToSpaceND, CollapsingInvariance, ()) {
  const GeneratedCase g = *generators::valid_batch_to_space_nd(SpaceBatchMode::kNotIdentity);
  const conformance::Case collapsed = collapsed_case(g.c);
  const Shape shape = (*generators::predicted_outputs(g.c))[0].shape;
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = run_valid(*layer, collapsed, "BatchToSpaceND (collapsed)");
    const Tensor& y = std::get<Tensor>(o.outputs.at("output"));
    expect_conforms(*layer, expect_outputs(g.c, {{"output", reshaped(y, shape)}}), {},
                    "BatchToSpaceND(x) == reshape(BatchToSpaceND(collapsed x))");
  }
}

// With block [b, b] and no crops on NHWC: transpose(depth_to_space(transpose(x))).
RC_GTEST_PROP(BatchToSpaceND, DepthToSpaceEquivalence, ()) {
  const GeneratedCase g = *generators::valid_batch_to_space_nd(SpaceBatchMode::kSquareNHWC);
  const Tensor& x = generators::input_tensor(g.c, "input");
  const std::int64_t b = generators::index_values(generators::input_tensor(g.c, "block_shape"))[0];
  const Tensor expected = transpose4(space_to_depth(transpose4(x, {3, 1, 2, 0}), b, true), {3, 1, 2, 0});
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outputs(g.c, {{"output", expected}}), {},
                    "BatchToSpaceND(x, [b, b], 0) == transpose(depth_to_space(transpose(x), b))");
}

}  // namespace
}  // namespace opconform::properties
