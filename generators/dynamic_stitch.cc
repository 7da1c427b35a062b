#include "opconform/generators/dynamic_stitch.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "breakers.h"
#include "widen.h"
#include "opconform/generators/index_boundaries.h"
#include "opconform/generators/payload.h"
#include "check_generators.h"
#include "wide_arithmetic.h"

namespace opconform::generators {
namespace {

// The checks of both stitches: one enum (checks/dynamic_stitch.inc), one Check table per op
// (checks/parallel_dynamic_stitch.inc includes DynamicStitch's list).
enum class StitchCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/dynamic_stitch.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kDynamicStitchChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/dynamic_stitch.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kParallelDynamicStitchChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/parallel_dynamic_stitch.inc"
#undef OPCONFORM_CHECK
};
constexpr std::size_t kNumStitchChecks = std::size(kDynamicStitchChecks);
// The generator and breaker tables below serve both ops: their lists must stay one.
consteval bool same_ids(std::span<const Check> a, std::span<const Check> b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id) return false;
  return true;
}
static_assert(same_ids(kDynamicStitchChecks, kParallelDynamicStitchChecks));

// A stitch case before it becomes tensors.
struct Draw {
  Op op = Op::kDynamicStitch;
  DType dtype = DType::kFloat32;
  Shape trailing;                                  // C
  std::vector<Shape> index_shapes;                 // indices[m].shape
  std::vector<std::vector<std::int64_t>> indices;  // indices[m], flat
  std::vector<Shape> data_shapes;                  // empty: indices[m].shape + C

  int n() const { return static_cast<int>(index_shapes.size()); }
  Shape data_shape(int m) const {
    if (!data_shapes.empty()) return data_shapes[m];
    Shape s = index_shapes[m];
    s.insert(s.end(), trailing.begin(), trailing.end());
    return s;
  }
  // Sets data_shapes to the shapes data_shape() gives, to be changed one by one.
  void spell_out_data_shapes() {
    std::vector<Shape> shapes;
    for (int m = 0; m < n(); ++m) shapes.push_back(data_shape(m));
    data_shapes = shapes;
  }
  std::int64_t total_indices() const {
    std::int64_t t = 0;
    for (const auto& v : indices) t += static_cast<std::int64_t>(v.size());
    return t;
  }
};

GeneratedCase build(const Draw& d, std::string_view check = {}) {
  std::vector<Tensor> index_tensors;
  std::vector<Shape> data_shapes;
  for (int m = 0; m < d.n(); ++m) {
    index_tensors.push_back(index_tensor(DType::kInt32, d.index_shapes[m], d.indices[m]));
    data_shapes.push_back(d.data_shape(m));
  }
  conformance::Values inputs;
  inputs.emplace("indices", std::move(index_tensors));
  inputs.emplace("data", *gen_payloads(d.dtype, data_shapes));
  return make_case(d.op, std::move(inputs), {}, std::string(check));
}

// A shape of rank 0..2 under the budget.
Shape draw_index_shape(SizeBudget& budget) {
  Shape s(static_cast<std::size_t>(*rc::gen::inRange(0, 3)));
  for (auto& dim : s) dim = budget.draw(0, 3);
  return s;
}

// A Draw of `op` with no list yet and its dtype drawn.
Draw typed_draw(Op op) {
  Draw d;
  d.op = op;
  d.dtype = *gen_dtype_among(registered_dtypes(op));
  return d;
}

Draw draw_valid(Op op, StitchMode mode) {
  Draw d = typed_draw(op);
  const int variant =
      mode == StitchMode::kUnique ? 1 : *rc::gen::weightedElement<int>({{6, 0}, {2, 1}, {1, 2}, {1, 3}});
  // Huge: an empty output [rows] + C with the zero in any position (rows = 0: every list
  // empty) and huge dims around it (C is drawn once the indices are known).
  const bool huge = variant == 3 && mode == StitchMode::kAny;
  const int huge_rank = huge ? *rc::gen::inRange(1, 4) : 0;  // of C
  const int zero = huge ? *rc::gen::inRange(0, 1 + huge_rank) : -1;
  SizeBudget c_budget(16);
  if (!huge) d.trailing.resize(static_cast<std::size_t>(*rc::gen::inRange(0, 3)));
  for (auto& dim : d.trailing) dim = c_budget.draw(0, 3);
  const std::int64_t row = std::max<std::int64_t>(1, checked_num_elements(d.trailing));
  SizeBudget budget(std::max<std::int64_t>(1, kMaxCaseElements / row));
  const int n = *rc::gen::inRange(1, 5);
  for (int m = 0; m < n; ++m) {
    Shape s = draw_index_shape(budget);
    if ((variant == 2 || zero == 0) && checked_num_elements(s) != 0) s.push_back(0);  // every list empty
    d.index_shapes.push_back(s);
  }
  const std::int64_t total = [&] {
    std::int64_t t = 0;
    for (const Shape& s : d.index_shapes) t += checked_num_elements(s);
    return t;
  }();
  std::vector<std::int64_t> flat(static_cast<std::size_t>(total));
  if (variant == 1) {  // unique: distinct values from [0, rows), rows >= total
    const std::int64_t rows = total + *rc::gen::inRange<std::int64_t>(0, 4);
    std::vector<std::int64_t> all(static_cast<std::size_t>(rows));
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
    for (std::size_t i = all.size(); i > 1; --i) std::swap(all[i - 1], all[engine() % i]);
    std::copy_n(all.begin(), total, flat.begin());
  } else if (huge) {
    for (auto& v : flat) v = draw_edge(0, kInt32Max);
  } else {
    const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 13);  // duplicates and gaps
    for (auto& v : flat) v = *rc::gen::inRange<std::int64_t>(0, rows);
  }
  std::int64_t next = 0;
  for (const Shape& s : d.index_shapes) {
    const std::int64_t count = checked_num_elements(s);
    d.indices.emplace_back(flat.begin() + next, flat.begin() + next + count);
    next += count;
  }
  if (huge) {
    // Before the zero, [rows] + C and every data[m] = indices[m].shape + C keep their element
    // counts below 2^63.
    std::int64_t lead = flat.empty() ? 1 : *std::max_element(flat.begin(), flat.end()) + 1;
    for (const Shape& s : d.index_shapes) lead = std::max(lead, checked_num_elements(s));
    if (zero == 0) {
      d.trailing.resize(static_cast<std::size_t>(huge_rank));
      for (auto& dim : d.trailing) dim = draw_log_uniform(0, kInt64Max);
    } else {
      d.trailing = draw_empty_huge_dims(huge_rank, zero - 1, lead);
    }
  }
  return d;
}

// A valid draw with at least one index (list 0 becomes [k] when every list is empty).
Draw draw_valid_nonempty(Op op) {
  Draw d = draw_valid(op, StitchMode::kSmall);
  if (d.total_indices() == 0) {
    d.index_shapes[0] = {1};
    d.indices[0] = {*rc::gen::inRange<std::int64_t>(0, 8)};
  }
  return d;
}

// A boundary case (index_boundaries.h): a small valid draw with one index, at any position,
// set to v. The output [v + 1] + C keeps its elements within kMaxCaseElements where C can (half
// the time then), else C holds a zero: rows of no element, an output of no bytes.
Draw draw_at_boundary(Op op, std::int64_t v) {
  Draw d = draw_valid_nonempty(op);
  std::vector<std::pair<int, std::size_t>> positions;
  for (int m = 0; m < d.n(); ++m)
    for (std::size_t i = 0; i < d.indices[m].size(); ++i) positions.emplace_back(m, i);
  const auto [m, i] = *rc::gen::elementOf(positions);
  d.indices[m][i] = v;
  const std::int64_t per_row = kMaxCaseElements / (v + 1);
  if (per_row >= 1 && *rc::gen::arbitrary<bool>()) {
    SizeBudget budget(per_row);
    d.trailing.assign(static_cast<std::size_t>(*rc::gen::inRange(0, 3)), 0);
    for (auto& dim : d.trailing) dim = budget.draw(1, 3);
  } else {
    d.trailing.insert(d.trailing.begin() + *rc::gen::inRange<std::ptrdiff_t>(0, d.trailing.size() + 1), 0);
  }
  return d;
}

// --- invalid cases -------------------------------------------------------------------------
//
// One generator per check (kCheckGenerators below, by check): each draws a case of `op` that fails
// `check` first and names `check` as the check it fails.

GeneratedCase draw_invalid(Op op, std::size_t check);

// A base for the pre-checks: a valid case or one failing a later check with at least one
// list member.
GeneratedCase draw_base(Op op) {
  return valid_or_failing(
      checks_after(op, check_index(StitchCheck::kAttrN)), [op] { return build(draw_valid(op, StitchMode::kAny)); },
      [op](std::size_t later) { return draw_invalid(op, later); });
}

// README pre-check 1: an index tensor of a dtype other than int32.
GeneratedCase index_not_int32(Op op, std::string_view check) {
  GeneratedCase g = draw_base(op);
  auto& indices = std::get<std::vector<Tensor>>(g.c.inputs.at("indices"));
  Tensor& t = indices[*rc::gen::inRange<std::size_t>(0, indices.size())];
  t = *gen_payload(*gen_dtype_among(dtypes_except({DType::kInt32})), t.shape());
  g.check = check;
  return g;
}

// README pre-check 1: a data member (after the first) of another dtype than data[0].
GeneratedCase data_dtypes_differ(Op op, std::string_view check) {
  GeneratedCase g = draw_base(op);
  auto& data = std::get<std::vector<Tensor>>(g.c.inputs.at("data"));
  if (data.empty()) data.push_back(*gen_payload(DType::kFloat32, {*rc::gen::inRange<std::int64_t>(0, 3)}));
  const DType other = *gen_dtype_among(dtypes_except({data[0].dtype()}));
  if (data.size() < 2) {
    data.push_back(*gen_payload(other, {*rc::gen::inRange<std::int64_t>(0, 3)}));
  } else {
    Tensor& t = data[*rc::gen::inRange<std::size_t>(1, data.size())];
    t = *gen_payload(other, t.shape());
  }
  g.check = check;
  return g;
}

// Check 0: no indices at all; data of any length.
GeneratedCase no_indices(Op op, std::string_view check) {
  GeneratedCase g = build(draw_valid(op, StitchMode::kSmall), check);
  std::get<std::vector<Tensor>>(g.c.inputs.at("indices")).clear();
  auto& data = std::get<std::vector<Tensor>>(g.c.inputs.at("data"));
  data.resize(*rc::gen::inRange<std::size_t>(0, data.size() + 1));
  return g;
}

// Check 0: as many data members as indices, plus or minus some.
GeneratedCase list_lengths_differ(Op op, std::string_view check) {
  GeneratedCase g = build(draw_valid(op, StitchMode::kSmall), check);
  auto& data = std::get<std::vector<Tensor>>(g.c.inputs.at("data"));
  resize_list(data, draw_length_other_than(data.size()));
  return g;
}

// Check 1: a negative index at a random (m, i); those before are valid.
GeneratedCase negative_index(Op op, std::string_view check) {
  Draw d = draw_valid_nonempty(op);
  std::vector<std::pair<int, std::size_t>> positions;
  for (int m = 0; m < d.n(); ++m)
    for (std::size_t i = 0; i < d.indices[m].size(); ++i) positions.emplace_back(m, i);
  const auto [m, i] = *rc::gen::elementOf(positions);
  d.indices[m][i] = draw_edge(kInt32Min, -1);
  return build(d, check);
}

// Check 2: data[m]'s shape shorter than indices[m]'s, or one of its leading dims differs.
GeneratedCase data_shape_not_prefixed(Op op, std::string_view check) {
  Draw d = draw_valid(op, StitchMode::kSmall);
  const int m = *rc::gen::inRange(0, d.n());
  if (d.index_shapes[m].empty()) {  // a scalar is a prefix of everything: make it [k]
    d.index_shapes[m] = {1};
    d.indices[m] = {*rc::gen::inRange<std::int64_t>(0, 4)};
  }
  d.spell_out_data_shapes();
  Shape& s = d.data_shapes[m];
  const Shape& prefix = d.index_shapes[m];
  if (*rc::gen::arbitrary<bool>()) {  // too short
    s.assign(prefix.begin(), prefix.begin() + *rc::gen::inRange<std::size_t>(0, prefix.size()));
  } else {  // one leading dim differs
    const std::size_t j = *rc::gen::inRange<std::size_t>(0, prefix.size());
    s[j] = prefix[j] == 0 ? *rc::gen::inRange<std::int64_t>(1, 3) : prefix[j] - 1 + 2 * *rc::gen::inRange(0, 2);
    if (s[j] == prefix[j]) s[j] = prefix[j] + 1;
  }
  return build(d, check);
}

// Check 2: data[m] = indices[m].shape + C' with C' != C, m >= 1.
GeneratedCase trailing_shapes_differ(Op op, std::string_view check) {
  Draw d = draw_valid(op, StitchMode::kSmall);
  if (d.n() < 2) {
    d.index_shapes.push_back({*rc::gen::inRange<std::int64_t>(0, 3)});
    d.indices.emplace_back(static_cast<std::size_t>(d.index_shapes.back()[0]), 0);
  }
  const int m = *rc::gen::inRange(1, d.n());
  d.spell_out_data_shapes();
  Shape other = d.trailing;
  const int variant = *rc::gen::inRange(0, 3);
  if (variant == 0 || other.empty())
    other.push_back(*rc::gen::inRange<std::int64_t>(0, 3));
  else if (variant == 1)
    other.pop_back();
  else
    other[*rc::gen::inRange<std::size_t>(0, other.size())] += 1;
  Shape s = d.index_shapes[m];
  s.insert(s.end(), other.begin(), other.end());
  d.data_shapes[m] = s;
  return build(d, check);
}

// Check 3: rows = max index + 1 near 2^31; C = [c_1 .. c_k, 0]: rows * c_1 * ... * c_k reaches
// 2^63 only at c_k while each data tensor (at most 3 index elements) stays valid.
GeneratedCase output_shape_overflows(Op op, std::string_view check) {
  Draw d = typed_draw(op);
  const int n = *rc::gen::inRange(1, 4);
  std::int64_t max_index = 0;
  for (int m = 0; m < n; ++m) {
    const std::int64_t count = *rc::gen::inRange<std::int64_t>(m == 0 ? 1 : 0, 4);
    d.index_shapes.push_back({count});
    std::vector<std::int64_t> values;
    for (std::int64_t i = 0; i < count; ++i) values.push_back(draw_edge(std::int64_t{1} << 30, kInt32Max));
    for (std::int64_t v : values) max_index = std::max(max_index, v);
    d.indices.push_back(values);
  }
  const int k = *rc::gen::inRange(1, 3);
  I128 product = 1;
  for (int j = 0; j + 1 < k; ++j) {
    d.trailing.push_back(*rc::gen::inRange<std::int64_t>(1, 1 << 10));
    product *= d.trailing.back();
  }
  const I128 rows = max_index + 1;
  d.trailing.push_back(draw_edge(static_cast<std::int64_t>((kTwoPow63 + rows * product - 1) / (rows * product)),
                                 static_cast<std::int64_t>((kTwoPow63 - 1) / (3 * product))));
  d.trailing.push_back(0);
  return build(d, check);
}

// The memory limit: an index of about 2^31 (2^31 rows of C = [4]) under the default limit, or
// a valid case under a limit below its request.
GeneratedCase request_past_memory_limit(Op op, std::string_view check) {
  if (*rc::gen::arbitrary<bool>()) {
    Draw d = typed_draw(op);
    d.trailing = {4};
    d.index_shapes = {{1}};
    d.indices = {{draw_edge(std::int64_t{1} << 30, kInt32Max)}};
    return build(d, check);
  }
  return with_memory_limit_below_request(build(draw_valid(op, StitchMode::kSmall), check));
}

// The generators of the checks, by check (a check without one does not compile).
using GenerateFn = GeneratedCase (*)(Op op, std::string_view check);
constexpr auto kCheckGenerators = by_check<kNumStitchChecks, StitchCheck, GenerateFn>(
    {
        {StitchCheck::kArgTypesIndices, index_not_int32},
        {StitchCheck::kArgTypesData, data_dtypes_differ},
        {StitchCheck::kAttrN, no_indices},
        {StitchCheck::kListLength, list_lengths_differ},
        {StitchCheck::kIndexRange, negative_index},
        {StitchCheck::kDataShapePrefix, data_shape_not_prefixed},
        {StitchCheck::kTrailingShape, trailing_shapes_differ},
        {StitchCheck::kOutputShapeOverflow, output_shape_overflows},
        {StitchCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);

GeneratedCase draw_invalid(Op op, std::size_t check) {
  return kCheckGenerators.at(check)(op, op_generators(op).checks[check].id);
}

rc::Gen<GeneratedCase> invalid_by_index(Op op, std::size_t check) {
  return rc::gen::exec([op, check] { return draw_invalid(op, check); });
}

// large_valid_case: wide rows (a trailing dim on every data member) or many rows (a leading
// dim on data and indices alike, the indices repeated), with a fresh payload.
void widen_lists(GeneratedCase& g) {
  const bool leading = *rc::gen::arbitrary<bool>();
  auto& indices = std::get<std::vector<Tensor>>(g.c.inputs.at("indices"));
  auto& data = std::get<std::vector<Tensor>>(g.c.inputs.at("data"));
  if (const std::int64_t bytes = widen::data_bytes(data); bytes > 0) {
    const std::int64_t times = widen::widening(bytes);
    std::vector<Shape> shapes;
    for (const Tensor& t : data)
      shapes.push_back(leading ? widen::prepended(t.shape(), times) : widen::appended(t.shape(), times));
    if (leading)
      for (Tensor& t : indices) t = widen::stacked(t, times);
    data = *gen_payloads(data[0].dtype(), shapes);
  }
}

// grow_valid_case: wider rows (a trailing dim on every data member), or
// `times` as many positions with fresh indices: a permutation of a slightly larger range of rows
// (gaps), now and then with repeats (duplicates, across lists too), split over the lists.
void grow_stitch(conformance::Case& c, std::int64_t times) {
  auto& indices = input_list(c, "indices");
  auto& data = input_list(c, "data");
  const DType dtype = data[0].dtype();
  std::vector<Shape> shapes;
  if (*rc::gen::arbitrary<bool>()) {
    for (const Tensor& d : data) shapes.push_back(widen::appended(d.shape(), times));
    data = *gen_payloads(dtype, shapes);
    return;
  }
  const Shape trailing(data[0].shape().begin() + indices[0].rank(), data[0].shape().end());
  std::int64_t before = 0;
  for (const Tensor& t : indices) before += t.num_elements();
  const std::int64_t total = std::max<std::int64_t>(1, before) * times;
  const std::int64_t rows = total + *rc::gen::inRange<std::int64_t>(0, total / 8 + 2);
  std::vector<std::int64_t> values(static_cast<std::size_t>(rows));
  std::iota(values.begin(), values.end(), 0);
  std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
  std::shuffle(values.begin(), values.end(), engine);
  values.resize(static_cast<std::size_t>(total));
  if (*rc::gen::weightedElement<bool>({{1, true}, {3, false}}))  // duplicates
    for (std::size_t i = 0; i < values.size(); i += 1 + engine() % 7) values[i] = values[engine() % values.size()];
  std::int64_t next = 0;
  for (std::size_t m = 0; m < indices.size(); ++m) {
    const std::int64_t left = total - next;
    const std::int64_t count = m + 1 == indices.size() ? left : *rc::gen::inRange<std::int64_t>(0, left + 1);
    indices[m] = index_tensor(DType::kInt32, {count},
                              std::vector<std::int64_t>(values.begin() + next, values.begin() + next + count));
    Shape s = {count};
    s.insert(s.end(), trailing.begin(), trailing.end());
    shapes.push_back(s);
    next += count;
  }
  data = *gen_payloads(dtype, shapes);
}

// Every dtype: both stitches are registered for all of them.
std::vector<DType> every_dtype() { return std::vector<DType>(all_dtypes(), all_dtypes() + kNumDTypes); }

}  // namespace

rc::Gen<GeneratedCase> valid_dynamic_stitch(Op op, StitchMode mode) {
  return rc::gen::exec([op, mode] {
    if (mode == StitchMode::kAny)
      if (const auto target = draw_boundary_target(op)) return build(draw_at_boundary(op, target->value));
    return build(draw_valid(op, mode));
  });
}
rc::Gen<GeneratedCase> invalid_dynamic_stitch(Op op, std::string_view check) {
  return invalid_by_index(op, check_index(op, check));
}

std::optional<std::vector<PredictedOutput>> dynamic_stitch_outputs(const conformance::Case& c) {
  const auto& indices = input_list(c, "indices");
  const auto& data = input_list(c, "data");
  if (indices.empty() || data.size() != indices.size()) return std::nullopt;
  std::int64_t max_index = -1;
  for (std::size_t m = 0; m < indices.size(); ++m) {
    if (indices[m].dtype() != DType::kInt32 || data[m].dtype() != data[0].dtype()) return std::nullopt;
    for (std::int64_t v : index_values(indices[m])) {
      if (v < 0) return std::nullopt;
      max_index = std::max(max_index, v);
    }
    const Shape& ds = data[m].shape();
    const Shape& is = indices[m].shape();
    if (ds.size() < is.size() || !std::equal(is.begin(), is.end(), ds.begin()) ||
        !std::equal(ds.begin() + is.size(), ds.end(), data[0].shape().begin() + indices[0].rank(),
                    data[0].shape().end()))
      return std::nullopt;
  }
  ShapeBuilder shape;
  if (!shape.add_dim(max_index + 1).ok()) return std::nullopt;
  for (int d = indices[0].rank(); d < data[0].rank(); ++d)
    if (!shape.add_dim(data[0].dim(d)).ok()) return std::nullopt;
  return std::vector<PredictedOutput>{{data[0].dtype(), shape.dims()}};
}

// --- the checks' breakers (check_pairs.h) --------------------------------------------------

namespace breakers {
namespace {

bool break_arg_types_indices(conformance::Case& c) { return member_not_of(c, "indices", DType::kInt32); }

bool break_arg_types_data(conformance::Case& c) { return member_unlike_first(c, "data"); }

bool break_attr_n(conformance::Case& c) {
  list(c, "indices").clear();
  return !list(c, "data").empty();
}

bool break_list_length(conformance::Case& c) {
  auto& data = list(c, "data");
  if (data.empty()) return false;
  data.push_back(data.back().clone());
  return true;
}

// A negative index where the largest index is not the only one (the output size stays).
bool break_index_range(conformance::Case& c) {
  auto& indices = list(c, "indices");
  std::int64_t max = -1, count_max = 0;
  std::vector<std::pair<std::size_t, std::int64_t>> spots;
  for (std::size_t m = 0; m < indices.size(); ++m) {
    if (indices[m].dtype() != DType::kInt32) return false;
    for (std::int64_t i = 0; i < indices[m].num_elements(); ++i) {
      const std::int64_t v = indices[m].index_value(i);
      if (v > max) max = v, count_max = 0;
      if (v == max) ++count_max;
      spots.emplace_back(m, i);
    }
  }
  std::vector<std::pair<std::size_t, std::int64_t>> free;
  for (const auto& [m, i] : spots)
    if (indices[m].index_value(i) < max || count_max > 1) free.emplace_back(m, i);
  if (free.empty()) return false;
  const auto [m, i] = *rc::gen::elementOf(free);
  indices[m].data<std::int32_t>()[i] = static_cast<std::int32_t>(draw_edge(kInt32Min, -1));
  return true;
}

bool break_data_shape_prefix(conformance::Case& c) {
  auto& indices = list(c, "indices");
  auto& data = list(c, "data");
  std::vector<std::size_t> ranked;
  for (std::size_t m = 0; m < std::min(indices.size(), data.size()); ++m)
    if (indices[m].rank() >= 1 && data[m].rank() >= 1) ranked.push_back(m);
  if (ranked.empty()) return false;
  Tensor& t = data[*rc::gen::elementOf(ranked)];
  Shape shape = t.shape();
  shape[0] = shape[0] > 0 && *rc::gen::arbitrary<bool>() ? shape[0] - 1 : shape[0] + 1;
  return reshape_fresh(t, shape);
}

bool break_trailing_shape(conformance::Case& c) {
  if (list(c, "data").size() < 2) return false;
  Tensor& t = any_member(c, "data", 1);
  Shape shape = t.shape();
  shape.push_back(1);
  t = reshaped(t, shape);
  return true;
}

// Each check's breaker, by check; memory-limit, checked last, needs none.
constexpr auto kStitchBreakers = by_check<kNumStitchChecks, StitchCheck, BreakFn>(
    {
        {StitchCheck::kArgTypesIndices, break_arg_types_indices},
        {StitchCheck::kArgTypesData, break_arg_types_data},
        {StitchCheck::kAttrN, break_attr_n},
        {StitchCheck::kListLength, break_list_length},
        {StitchCheck::kIndexRange, break_index_range},
        {StitchCheck::kDataShapePrefix, break_data_shape_prefix},
        {StitchCheck::kTrailingShape, break_trailing_shape},
    },
    false);

constexpr std::string_view kNoIndices = "with N = 0 there is no indices tensor to have a wrong type";
constexpr std::string_view kNoLists = "with N = 0 there are no indices or data left for this check to look at";

// Pairs no single input breaks together, with the reason.
constexpr Exclusion kStitchExclusions[] = {
    excluded(StitchCheck::kOutputShapeOverflow, StitchCheck::kMemoryLimit, kNoOutput),
    excluded(StitchCheck::kArgTypesIndices, StitchCheck::kAttrN, kNoIndices),
    excluded(StitchCheck::kAttrN, StitchCheck::kIndexRange, kNoLists),
    excluded(StitchCheck::kAttrN, StitchCheck::kDataShapePrefix, kNoLists),
    excluded(StitchCheck::kAttrN, StitchCheck::kTrailingShape, kNoLists),
    excluded(StitchCheck::kAttrN, StitchCheck::kOutputShapeOverflow, kNoLists),
    excluded(StitchCheck::kAttrN, StitchCheck::kMemoryLimit, kNoLists),
};

}  // namespace
}  // namespace breakers

constinit const OpGenerators kDynamicStitchGenerators = {
    kDynamicStitchChecks,
    every_dtype,
    [](Op op) { return valid_dynamic_stitch(op); },
    invalid_by_index,
    dynamic_stitch_outputs,
    widen_lists,
    breakers::kStitchBreakers,
    breakers::kStitchExclusions,
    grow_stitch,
};
constinit const OpGenerators kParallelDynamicStitchGenerators = {
    kParallelDynamicStitchChecks,
    every_dtype,
    [](Op op) { return valid_dynamic_stitch(op); },
    invalid_by_index,
    dynamic_stitch_outputs,
    widen_lists,
    breakers::kStitchBreakers,
    breakers::kStitchExclusions,
    grow_stitch,
};

}  // namespace opconform::generators
