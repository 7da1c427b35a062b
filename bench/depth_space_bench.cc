// SpaceToDepth and DepthToSpace benchmarks (float32, NHWC): three cases per op, each as
// optimized/threads:1|2, reference and memcpy of the output bytes (bench_common.h).
// DepthToSpace takes the SpaceToDepth output shape of the same case.
//
//   build/bench/opconform_bench --benchmark_filter='SpaceToDepth|DepthToSpace'
#include <memory>
#include <string_view>
#include <vector>

#include "bench_common.h"
#include "opconform/optimized/depth_to_space.h"
#include "opconform/optimized/space_to_depth.h"
#include "opconform/reference/depth_to_space.h"
#include "opconform/reference/space_to_depth.h"

namespace opconform::bench {
namespace {

struct DepthSpaceCase {
  const char* name;
  Shape space_shape;  // the SpaceToDepth input [N, H, W, C]
  std::int64_t block;
};

RunFn run_on(std::shared_ptr<Lazy<Tensor>> input, std::int64_t block, DepthSpaceKernel* kernel) {
  return [input, block, kernel](const ExecOptions& o, std::vector<Tensor>* keep) {
    Tensor out;
    return keep_outputs(kernel(input->get(), block, "NHWC", &out, o), keep, out);
  };
}

void register_depth_space(const DepthSpaceCase& c) {
  const std::int64_t b = c.block;
  const Shape& s = c.space_shape;
  const Shape depth_shape = {s[0], s[1] / b, s[2] / b, s[3] * b * b};
  const std::int64_t bytes = 4 * s[0] * s[1] * s[2] * s[3];
  auto s2d = std::make_shared<Lazy<Tensor>>([s] { return iota_tensor(DType::kFloat32, s); });
  register_case({"SpaceToDepth", c.name, bytes, run_on(s2d, b, &optimized::SpaceToDepth),
                 run_on(s2d, b, &reference::SpaceToDepth), [s2d] { s2d->get(); }});
  auto d2s = std::make_shared<Lazy<Tensor>>([depth_shape] { return iota_tensor(DType::kFloat32, depth_shape); });
  register_case({"DepthToSpace", c.name, bytes, run_on(d2s, b, &optimized::DepthToSpace),
                 run_on(d2s, b, &reference::DepthToSpace), [d2s] { d2s->get(); }});
}

const bool registered = [] {
  const DepthSpaceCase cases[] = {
      {"f32_8x256x256x32_b2", {8, 256, 256, 32}, 2},
      {"f32_8x1024x1024x1_b2", {8, 1024, 1024, 1}, 2},
      {"f32_1x2048x2048x3_b4", {1, 2048, 2048, 3}, 4},
  };
  for (const DepthSpaceCase& c : cases) register_depth_space(c);
  return true;
}();

}  // namespace
}  // namespace opconform::bench
