// The laws of SpaceToDepth and DepthToSpace (docs/contract/space_to_depth.md), on both layers:
// the contract's index formula, computed here on raw element bytes (no kernel involved), and
// the round trip through the other op with the same block.
#pragma once

#include <algorithm>
#include <cstring>
#include <string>

#include "opconform/generators/depth_space.h"
#include "support/op_properties.h"
#include "support/run_and_check.h"

namespace opconform::properties {

// The output of a valid case by the contract's formula: space [N, H, W, C] element (n, y, x, c)
// is depth [N, H/b, W/b, b*b*C] element (n, y/b, x/b, ((y%b)*b + x%b)*C + c). Precondition: a
// valid NHWC case with elements (an empty one has no element to place).
inline Tensor depth_space_by_formula(const conformance::Case& c) {
  const Tensor& input = generators::input_tensor(c, "input");
  const std::int64_t b = c.attrs.at("block_size");
  const bool to_depth = c.op == Op::kSpaceToDepth;
  const Shape& s = input.shape();
  const Shape space = to_depth ? s : Shape{s[0], s[1] * b, s[2] * b, s[3] / (b * b)};
  const Shape depth = {space[0], space[1] / b, space[2] / b, space[3] * b * b};
  Tensor output(input.dtype(), to_depth ? depth : space);
  for (std::int64_t n = 0; n < space[0]; ++n)
    for (std::int64_t y = 0; y < space[1]; ++y)
      for (std::int64_t x = 0; x < space[2]; ++x)
        for (std::int64_t ch = 0; ch < space[3]; ++ch) {
          const std::int64_t si = ((n * space[1] + y) * space[2] + x) * space[3] + ch;
          const std::int64_t di =
              ((n * depth[1] + y / b) * depth[2] + x / b) * depth[3] + ((y % b) * b + x % b) * space[3] + ch;
          const std::int64_t from = to_depth ? si : di, to = to_depth ? di : si;
          if (input.dtype() == DType::kString) {
            output.data<std::string>()[to] = input.data<std::string>()[from];
          } else {
            const std::size_t size = dtype_storage_size(input.dtype());
            std::memcpy(static_cast<char*>(output.raw_data()) + to * size,
                        static_cast<const char*>(input.raw_data()) + from * size, size);
          }
        }
  return output;
}

// Both layers produce the formula's output (an empty case: the predicted empty shape).
inline void index_formula_law(const generators::GeneratedCase& g) {
  if (generators::input_tensor(g.c, "input").num_elements() == 0) {
    const auto predicted = generators::depth_space_outputs(g.c);
    RC_ASSERT(predicted.has_value());
    const conformance::Case c = expect_outputs(g.c, {{"output", Tensor((*predicted)[0].dtype, (*predicted)[0].shape)}});
    for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "an empty output of the predicted shape");
    return;
  }
  const conformance::Case c = expect_outputs(g.c, {{"output", depth_space_by_formula(g.c)}});
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
