#include "opconform/conformance/unspecified.h"

#include <algorithm>
#include <map>

#include "opconform/conformance/compare.h"
#include "opconform/op_registry.h"
#include "opconform/shape.h"

namespace opconform::conformance {
namespace {

const std::vector<Tensor>* tensor_list(const Case& c, std::string_view name) {
  auto it = c.inputs.find(std::string(name));
  if (it == c.inputs.end()) return nullptr;
  return std::get_if<std::vector<Tensor>>(&it->second);
}

// Row `row` (of `row_elements` elements) of t's buffer, as a tensor of shape `row_shape`.
Tensor row_of(const Tensor& t, std::int64_t row, std::int64_t row_elements, const Shape& row_shape) {
  Tensor out(t.dtype(), row_shape);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy_n(t.data<T>() + row * row_elements, row_elements, out.data<T>());
  });
  return out;
}

// For each row of the output named by two or more lists: the last writer of each of those lists.
std::vector<UnspecifiedRule> last_writer_alternatives(const Case& c, const AnyListsLastWriter& open) {
  const std::vector<Tensor>* indices = tensor_list(c, open.indices);
  const std::vector<Tensor>* data = tensor_list(c, open.data);
  if (!indices || !data || indices->empty() || data->size() != indices->size()) return {};
  const Tensor& first = (*data)[0];
  if ((*indices)[0].rank() > first.rank()) return {};
  const Shape row_shape(first.shape().begin() + (*indices)[0].rank(), first.shape().end());
  const std::int64_t row_elements = checked_num_elements(row_shape);
  if (row_elements < 0) return {};
  // row -> (list m -> flat position of its last writer)
  std::map<std::int64_t, std::map<std::size_t, std::int64_t>> writers;
  for (std::size_t m = 0; m < indices->size(); ++m) {
    const Tensor& idx = (*indices)[m];
    const Tensor& dat = (*data)[m];
    if (idx.dtype() != DType::kInt32 || dat.dtype() != first.dtype()) return {};
    const std::int64_t n = idx.num_elements();
    if (row_elements > 0 && dat.num_elements() / row_elements < n) return {};
    for (std::int64_t i = 0; i < n; ++i) writers[idx.index_value(i)][m] = i;
  }
  OneOfRows rule{std::string(open.output), {}};
  for (const auto& [row, lists] : writers) {
    if (lists.size() < 2) continue;
    for (const auto& [m, i] : lists) rule.rows[row].push_back(row_of((*data)[m], i, row_elements, row_shape));
  }
  if (rule.rows.empty()) return {};
  return {rule};
}

}  // namespace

std::vector<UnspecifiedRule> unspecified_rules(const Case& c) {
  const Unspecified& open = op_info(c.op).unspecified;
  if (const auto* keys = std::get_if<EqualKeysInAnyOrder>(&open))
    return {PermutationWithinEqualKeys{std::string(keys->keys), std::string(keys->values)}};
  if (const auto* writers = std::get_if<AnyListsLastWriter>(&open)) return last_writer_alternatives(c, *writers);
  return {};
}

Expected oracle_expectation(const Case& c, const Outcome& oracle) {
  Expected expected = expected_from(oracle);
  if (oracle.status.ok()) expected.unspecified = unspecified_rules(c);
  return expected;
}

}  // namespace opconform::conformance
