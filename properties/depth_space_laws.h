// The laws of SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md), on both layers:
// the contract's index formula (tests/support/depth_space_test_util.h: no kernel involved), and
// the round trip through the other op with the same block.
#pragma once

#include <algorithm>

#include "depth_space_test_util.h"
#include "opconform/generators/depth_space.h"
#include "support/op_properties.h"
#include "support/run_and_check.h"

namespace opconform::properties {

// Both layers produce the formula's output (an empty case: the predicted empty shape).
inline void index_formula_law(const generators::GeneratedCase& g) {
  if (generators::input_tensor(g.c, "input").num_elements() == 0) {
    const auto predicted = generators::depth_space_outputs(g.c);
    RC_ASSERT(predicted.has_value());
    const conformance::Case c = expect_outputs(g.c, {{"output", Tensor((*predicted)[0].dtype, (*predicted)[0].shape)}});
    for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "an empty output of the predicted shape");
    return;
  }
  const conformance::Case c = expect_outputs(
      g.c, {{"output", testing::depth_space_by_formula(generators::input_tensor(g.c, "input"),
                                                       g.c.attrs.at("block_size"), g.c.op == Op::kSpaceToDepth)}});
  for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "the contract's index formula");
}

// `inverse` of the op's output, with the same block, is the op's input, on both layers (for
// the dtypes both ops register: DepthToSpace has no qint8).
inline void round_trip_law(const generators::GeneratedCase& g, Op inverse) {
  const std::vector<DType> both = generators::registered_dtypes(inverse);
  if (std::find(both.begin(), both.end(), generators::input_tensor(g.c, "input").dtype()) == both.end()) return;
  for (const OpTable* layer : layers()) {
    const conformance::Outcome forward = run_valid(*layer, g.c, "a valid case");
    conformance::Case back = g.c;
    back.op = inverse;
    back.inputs = {{"input", std::get<Tensor>(forward.outputs.at("output"))}};
    back = expect_outputs(back, {{"output", generators::input_tensor(g.c, "input")}});
    expect_conforms(*layer, back, {}, "the inverse op with the same block gives the input back");
  }
}

}  // namespace opconform::properties
