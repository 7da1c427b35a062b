// SpaceToBatchND and BatchToSpaceND benchmarks (float32): six cases per op, each
// as optimized/threads:1|2, reference and memcpy of the output bytes (bench_common.h).
// BatchToSpaceND takes the SpaceToBatchND output shape of the same case, crops = paddings.
//
//   build-bench-s2b/bench/opconform_bench --benchmark_filter='SpaceToBatchND|BatchToSpaceND'
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/reference/batch_to_space_nd.h"
#include "opconform/reference/space_to_batch_nd.h"

namespace opconform::bench {
namespace {

struct SpaceBatchCase {
  const char* name;
  Shape space_shape;  // the SpaceToBatchND input
  std::vector<std::int64_t> block;
  std::vector<std::int64_t> paddings;  // [M, 2] row-major; BatchToSpaceND crops
};

Shape batch_shape(const SpaceBatchCase& c) {
  std::int64_t product = 1;
  for (std::int64_t b : c.block) product *= b;
  Shape shape = {c.space_shape[0] * product};
  for (std::size_t i = 0; i < c.block.size(); ++i)
    shape.push_back((c.space_shape[i + 1] + c.paddings[2 * i] + c.paddings[2 * i + 1]) / c.block[i]);
  shape.insert(shape.end(), c.space_shape.begin() + static_cast<std::ptrdiff_t>(c.block.size()) + 1,
               c.space_shape.end());
  return shape;
}

std::int64_t float_bytes(const Shape& shape) {
  std::int64_t n = 4;
  for (std::int64_t d : shape) n *= d;
  return n;
}

struct Inputs {
  Tensor data, block, offsets;
};

using SpaceBatchKernel = Status (*)(const Tensor&, const Tensor&, const Tensor&, Tensor*, const ExecOptions&);

// A benchmark body: `kernel` on the inputs (built on first use), its output kept.
RunFn run_on(std::shared_ptr<Lazy<Inputs>> inputs, SpaceBatchKernel kernel) {
  return [inputs, kernel](const ExecOptions& o, std::vector<Tensor>* keep) {
    Inputs& in = inputs->get();
    Tensor out;
    return keep_outputs(kernel(in.data, in.block, in.offsets, &out, o), keep, out);
  };
}

void register_space_batch(const SpaceBatchCase& c) {
  const auto m = static_cast<std::int64_t>(c.block.size());
  const Shape batch = batch_shape(c);
  const auto make = [m, c](const Shape& shape) {
    return [m, c, shape] {
      return Inputs{iota_tensor(DType::kFloat32, shape), Tensor::from_values<std::int64_t>({m}, c.block),
                    Tensor::from_values<std::int64_t>({m, 2}, c.paddings)};
    };
  };
  auto s2b = std::make_shared<Lazy<Inputs>>(make(c.space_shape));
  register_case({"SpaceToBatchND", c.name, float_bytes(batch), run_on(s2b, &optimized::SpaceToBatchND),
                 run_on(s2b, &reference::SpaceToBatchND), [s2b] { s2b->get(); }});
  auto b2s = std::make_shared<Lazy<Inputs>>(make(batch));
  register_case({"BatchToSpaceND", c.name, float_bytes(c.space_shape), run_on(b2s, &optimized::BatchToSpaceND),
                 run_on(b2s, &reference::BatchToSpaceND), [b2s] { b2s->get(); }});
}

const bool registered = [] {
  const SpaceBatchCase cases[] = {
      {"f32_8x256x256x32_b2x2", {8, 256, 256, 32}, {2, 2}, {0, 0, 0, 0}},
      {"f32_8x1024x1024x1_b2x2", {8, 1024, 1024, 1}, {2, 2}, {0, 0, 0, 0}},
      {"f32_1x2048x2048x1_b4x4_pad1x3x2x2", {1, 2048, 2048, 1}, {4, 4}, {1, 3, 2, 2}},
      {"f32_64x64x64x64x4_b2x2x2", {64, 64, 64, 64, 4}, {2, 2, 2}, {0, 0, 0, 0, 0, 0}},
      // Many small maps: lines of 2 and 4 groups, rows of 64 and 512 bytes.
      {"f32_8192x2x4x4_b2x2", {8192, 2, 4, 4}, {2, 2}, {0, 0, 0, 0}},
      {"f32_1024x4x4x32_b2x2", {1024, 4, 4, 32}, {2, 2}, {0, 0, 0, 0}},
  };
  for (const SpaceBatchCase& c : cases) register_space_batch(c);
  return true;
}();

}  // namespace
}  // namespace opconform::bench
