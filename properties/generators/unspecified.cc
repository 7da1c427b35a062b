#include "properties/generators/unspecified.h"

#include <algorithm>
#include <map>

#include "properties/generators/common.h"

namespace opconform::generators {
namespace {

// Row `row` (of `row_elements` elements) of t's buffer, as a tensor of shape `row_shape`.
Tensor row_of(const Tensor& t, std::int64_t row, std::int64_t row_elements, const Shape& row_shape) {
  Tensor out(t.dtype(), row_shape);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy_n(t.data<T>() + row * row_elements, row_elements, out.data<T>());
  });
  return out;
}

// For each merged row named by two or more lists: the last writer of each of those lists.
std::vector<conformance::UnspecifiedRule> stitch_alternatives(const conformance::Case& c) {
  const auto& indices = input_list(c, "indices");
  const auto& data = input_list(c, "data");
  if (indices.empty() || data.size() != indices.size()) return {};
  const Shape row_shape(data[0].shape().begin() + indices[0].rank(), data[0].shape().end());
  const std::int64_t row_elements = checked_num_elements(row_shape);
  // row -> (list m -> flat position of its last writer)
  std::map<std::int64_t, std::map<std::size_t, std::int64_t>> writers;
  for (std::size_t m = 0; m < indices.size(); ++m) {
    if (indices[m].dtype() != DType::kInt32 || data[m].dtype() != data[0].dtype()) return {};
    const std::vector<std::int64_t> values = index_values(indices[m]);
    for (std::size_t i = 0; i < values.size(); ++i) writers[values[i]][m] = static_cast<std::int64_t>(i);
  }
  conformance::OneOfRows rule{"merged", {}};
  for (const auto& [row, lists] : writers) {
    if (lists.size() < 2) continue;
    for (const auto& [m, i] : lists) rule.rows[row].push_back(row_of(data[m], i, row_elements, row_shape));
  }
  if (rule.rows.empty()) return {};
  return {rule};
}

}  // namespace

std::vector<conformance::UnspecifiedRule> unspecified_rules(const conformance::Case& c) {
  if (c.op == Op::kSparseConcat)
    return {conformance::PermutationWithinEqualKeys{"output_indices", "output_values"}};
  if (c.op == Op::kParallelDynamicStitch) return stitch_alternatives(c);
  return {};
}

}  // namespace opconform::generators
