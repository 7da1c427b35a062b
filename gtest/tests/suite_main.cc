// The GoogleTest entry point run against an OpTable of this build: the bundled optimized
// kernels (OPCONFORM_SUITE_TABLE=optimized; every test must pass) or a deliberately broken
// DynamicStitch (=broken_stitch; ctest expects failed DynamicStitch vectors).
#include <gtest/gtest.h>

#include <cstring>
#include <span>

#include "opconform/gtest/suite.h"
#include "opconform/optimized/op_table.h"
#include "opconform/reference/dynamic_stitch.h"

namespace {

using opconform::Status;
using opconform::Tensor;

// DynamicStitch that is right except that it ignores the last list when two or more are given
// (an off-by-one over the lists): the kind of bug the suite exists to catch.
Status broken_stitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                     const opconform::ExecOptions& options) {
  if (indices.size() < 2 || indices.back().num_elements() == 0)
    return opconform::reference::DynamicStitch(indices, data, merged, options);
  std::vector<Tensor> shorter_indices(indices.begin(), indices.end() - 1);
  std::vector<Tensor> shorter_data(data.begin(), data.end() - 1);
  return opconform::reference::DynamicStitch(shorter_indices, shorter_data, merged, options);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* which = std::getenv("OPCONFORM_SUITE_TABLE");
  static opconform::OpTable table = opconform::optimized::op_table();
  if (which != nullptr && std::strcmp(which, "broken_stitch") == 0) {
    table = opconform::OpTable{"broken stitch", nullptr, nullptr, &broken_stitch, nullptr, nullptr, nullptr};
  }
  opconform::gtest::SuiteOptions options;
  options.property_cases = 100;
  opconform::gtest::register_suite("Suite", table, options);
  return RUN_ALL_TESTS();
}
