// Properties of SpaceToBatchND (docs/contract/space_to_batch_nd.md): the five every op has
// (support/op_properties.h), then the page's laws, each checked on both layers.
#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/space_to_batch_nd.h"
#include "space_batch_laws.h"
#include "support/run_and_check.h"
#include "support/op_properties.h"

namespace opconform::properties {
namespace {

using generators::SpaceBatchMode;
constexpr Op kOp = Op::kSpaceToBatchND;

RC_GTEST_PROP(SpaceToBatchND, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(SpaceToBatchND, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(SpaceToBatchND, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(SpaceToBatchND, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(SpaceToBatchND, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(SpaceToBatchND, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(SpaceToBatchND, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// BatchToSpaceND(SpaceToBatchND(x, b, p), b, p) == x, bit for bit.
RC_GTEST_PROP(SpaceToBatchND, RoundTripThroughBatchToSpaceND, ()) {
  const GeneratedCase g = *generators::valid_space_to_batch_nd();
  for (const OpTable* layer : layers()) {
    const conformance::Outcome y = run_valid(*layer, g.c, "SpaceToBatchND");
    conformance::Case back = g.c;
    back.op = Op::kBatchToSpaceND;
    back.inputs.erase("paddings");
    back.inputs.emplace("crops", g.c.inputs.at("paddings"));
    back.inputs["input"] = y.outputs.at("output");
    expect_conforms(*layer, expect_outputs(back, {{"output", g.c.inputs.at("input")}}), {},
                    "BatchToSpaceND(SpaceToBatchND(x, b, p), b, crops = p) == x");
  }
}

// Every input element appears exactly once in the output; the other output elements are the
// zeros of the padding (payloads are never all-zero bits), as many as the padded area.
RC_GTEST_PROP(SpaceToBatchND, ElementAccounting, ()) {
  const GeneratedCase g = *generators::valid_space_to_batch_nd(SpaceBatchMode::kSmall);
  const Tensor& x = generators::input_tensor(g.c, "input");
  std::vector<std::string> want;
  for (std::int64_t i = 0; i < x.num_elements(); ++i) want.push_back(element_bytes(x, i));
  std::sort(want.begin(), want.end());
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = run_valid(*layer, g.c, "SpaceToBatchND");
    const Tensor& y = std::get<Tensor>(o.outputs.at("output"));
    const std::string zero(dtype_storage_size(y.dtype()), '\0');
    std::vector<std::string> got;
    std::int64_t zeros = 0;
    for (std::int64_t i = 0; i < y.num_elements(); ++i) {
      std::string e = element_bytes(y, i);
      if (e == zero)
        ++zeros;
      else
        got.push_back(std::move(e));
    }
    std::sort(got.begin(), got.end());
    require(
        zeros == y.num_elements() - x.num_elements() && got == want, [&] { return expect_reference_outcome(g.c); },
        std::string(layer->name) + ": " + std::to_string(zeros) + " zeros for a padded area of " +
            std::to_string(y.num_elements() - x.num_elements()) + " elements; input elements " +
            (got == want ? "each present once" : "not each present exactly once"));
  }
}

// Merging leading trivial block dims into the batch and trailing ones into the remaining dims
// changes nothing but the reshape.
RC_GTEST_PROP(SpaceToBatchND, CollapsingInvariance, ()) {
  const GeneratedCase g = *generators::valid_space_to_batch_nd(SpaceBatchMode::kNotIdentity);
  const conformance::Case collapsed = collapsed_case(g.c);
  const Shape shape = (*generators::predicted_outputs(g.c))[0].shape;
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = run_valid(*layer, collapsed, "SpaceToBatchND (collapsed)");
    const Tensor& y = std::get<Tensor>(o.outputs.at("output"));
    expect_conforms(*layer, expect_outputs(g.c, {{"output", reshaped(y, shape)}}), {},
                    "SpaceToBatchND(x) == reshape(SpaceToBatchND(collapsed x))");
  }
}

// With block [b, b] and no padding on NHWC: transpose(space_to_depth(transpose(x)))
// (TensorFlow's own test; transposes swap N and C).
RC_GTEST_PROP(SpaceToBatchND, SpaceToDepthEquivalence, ()) {
  const GeneratedCase g = *generators::valid_space_to_batch_nd(SpaceBatchMode::kSquareNHWC);
  const Tensor& x = generators::input_tensor(g.c, "input");
  const std::int64_t b = generators::index_values(generators::input_tensor(g.c, "block_shape"))[0];
  const Tensor expected = transpose4(space_to_depth(transpose4(x, {3, 1, 2, 0}), b), {3, 1, 2, 0});
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outputs(g.c, {{"output", expected}}), {},
                    "SpaceToBatchND(x, [b, b], 0) == transpose(space_to_depth(transpose(x), b))");
}

}  // namespace
}  // namespace opconform::properties
