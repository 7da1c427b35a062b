// The greedy shrinker on synthetic predicates.
#include <gtest/gtest.h>

#include "opconform/validator/shrink.h"

namespace opconform::validator {
namespace {

TEST(Shrink, PrefixAlongKeepsLeadingEntries) {
  const Tensor t = Tensor::from_values<std::int32_t>({2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(prefix_along(t, 1, 2).bit_equal(Tensor::from_values<std::int32_t>({2, 2}, {1, 2, 4, 5})));
  EXPECT_TRUE(prefix_along(t, 0, 1).bit_equal(Tensor::from_values<std::int32_t>({1, 3}, {1, 2, 3})));
  EXPECT_EQ(prefix_along(t, 0, 0).num_elements(), 0);
  const Tensor s = Tensor::from_values<std::string>({2}, {"a", "b"});
  EXPECT_TRUE(prefix_along(s, 0, 1).bit_equal(Tensor::from_values<std::string>({1}, {"a"})));
}

// An empty tensor with huge dims around its zero (DepthToSpace's [2^20, 2^20, 2^20, 0]) shrinks
// at once: there is nothing to copy, so nothing walks its 2^40 leading positions.
TEST(Shrink, PrefixAlongAnEmptyTensorWithHugeDims) {
  const std::int64_t huge = std::int64_t{1} << 20;
  const Tensor t(DType::kFloat32, Shape{huge, huge, huge, 0});
  const Tensor shorter = prefix_along(t, 2, 3);
  EXPECT_EQ(shorter.shape(), (Shape{huge, huge, 3, 0}));
  EXPECT_EQ(shorter.num_elements(), 0);
}

TEST(Shrink, ReachesASmallCaseThatStillFails) {
  conformance::Case c;
  c.op = Op::kDynamicStitch;
  c.inputs["indices"] = std::vector<Tensor>{Tensor::from_values<std::int32_t>({3}, {0, 1, 2}),
                                            Tensor::from_values<std::int32_t>({2}, {3, 4})};
  c.inputs["data"] = std::vector<Tensor>{Tensor::from_values<float>({3, 2}, {1, 2, 3, 4, 5, 6}),
                                         Tensor::from_values<float>({2, 2}, {7, 8, 9, 10})};
  // "Fails" while some data list member holds a 7 in a tensor whose first dim matches its indices.
  auto fails = [](const conformance::Case& x) {
    const auto& indices = std::get<std::vector<Tensor>>(x.inputs.at("indices"));
    const auto& data = std::get<std::vector<Tensor>>(x.inputs.at("data"));
    if (indices.size() != data.size()) return false;
    for (std::size_t m = 0; m < data.size(); ++m) {
      if (data[m].rank() == 0 || indices[m].rank() != 1 || data[m].dim(0) != indices[m].dim(0)) continue;
      for (float v : data[m].values<float>())
        if (v == 7) return true;
    }
    return false;
  };
  int steps = 0;
  const conformance::Case small = shrink_case(c, fails, 500, &steps);
  EXPECT_TRUE(fails(small));
  EXPECT_GT(steps, 0);
  const auto& data = std::get<std::vector<Tensor>>(small.inputs.at("data"));
  ASSERT_EQ(data.size(), 1u);
  EXPECT_TRUE(data[0].bit_equal(Tensor::from_values<float>({1, 1}, {7})));
}

}  // namespace
}  // namespace opconform::validator
