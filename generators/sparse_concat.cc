#include "opconform/generators/sparse_concat.h"

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

// The checks (checks/sparse_concat.inc): their enum and Check table.
enum class SparseConcatCheck {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENUMERATOR
#include "checks/sparse_concat.inc"
#undef OPCONFORM_CHECK
};
constexpr Check kSparseConcatChecks[] = {
#define OPCONFORM_CHECK OPCONFORM_CHECK_ENTRY
#include "checks/sparse_concat.inc"
#undef OPCONFORM_CHECK
};
using SCCheck = SparseConcatCheck;
constexpr std::size_t kNumSCChecks = std::size(kSparseConcatChecks);

// A SparseConcat case before it becomes tensors: input i has dense shape shapes[i] and
// entries coords[i] (rows of `columns[i]` coordinates).
struct Draw {
  DType dtype = DType::kFloat32;
  std::vector<Shape> shapes;
  std::vector<std::vector<std::int64_t>> coords;  // flat, row-major
  std::vector<std::int64_t> rows, columns;        // indices[i] is [rows[i], columns[i]]
  std::int64_t concat_dim = 0;

  int n() const { return static_cast<int>(shapes.size()); }
  int rank() const { return static_cast<int>(shapes[0].size()); }
  int cd() const { return static_cast<int>(concat_dim < 0 ? concat_dim + rank() : concat_dim); }
  std::int64_t total_rows() const { return std::accumulate(rows.begin(), rows.end(), std::int64_t{0}); }
  void set_entries(int i, std::int64_t r, std::int64_t c, std::vector<std::int64_t> flat) {
    rows[i] = r;
    columns[i] = c;
    coords[i] = std::move(flat);
  }
};

GeneratedCase build(const Draw& d, std::string_view check = {}) {
  std::vector<Tensor> indices, shapes;
  std::vector<Shape> value_shapes;
  for (int i = 0; i < d.n(); ++i) {
    // Zero-column indices may have many rows: their tensor holds no element.
    indices.push_back(index_tensor(DType::kInt64, {d.rows[i], d.columns[i]}, d.coords[i]));
    shapes.push_back(index_tensor(DType::kInt64, {static_cast<std::int64_t>(d.shapes[i].size())}, d.shapes[i]));
    value_shapes.push_back({d.columns[i] == 0 ? std::min<std::int64_t>(d.rows[i], 4) : d.rows[i]});
  }
  conformance::Values inputs;
  inputs.emplace("indices", std::move(indices));
  inputs.emplace("values", *gen_payloads(d.dtype, value_shapes));
  inputs.emplace("shapes", std::move(shapes));
  return make_case(Op::kSparseConcat, std::move(inputs), {{"concat_dim", d.concat_dim}}, std::string(check));
}

// One coordinate for a dim of size `dim`: mostly inside, sometimes just outside or extreme
// (the concat dim keeps 64 of headroom: offsets never overflow in a valid case).
std::int64_t draw_coordinate(std::int64_t dim, bool concat) {
  const int kind = *rc::gen::weightedElement<int>({{12, 0}, {1, 1}, {1, 2}});
  if (kind == 0 && dim > 0) return *rc::gen::inRange<std::int64_t>(0, dim);
  if (kind == 1 || (kind == 0 && dim == 0)) return *rc::gen::inRange<std::int64_t>(-2, dim + 2);
  return draw_edge(kInt64Min, concat ? kInt64Max - 64 : kInt64Max);
}

std::vector<std::int64_t> unravel(std::int64_t flat, const Shape& shape) {
  std::vector<std::int64_t> c(shape.size());
  for (std::size_t j = shape.size(); j-- > 0;) {
    c[j] = flat % shape[j];
    flat /= shape[j];
  }
  return c;
}

// Entries of input i: dense mode takes distinct flat positions inside the shape; otherwise
// coordinates from draw_coordinate, with copied rows (duplicates) and sorted inputs mixed in.
void draw_entries(Draw& d, int i, SparseMode mode) {
  const Shape& shape = d.shapes[i];
  std::vector<std::vector<std::int64_t>> entries;
  if (mode == SparseMode::kDense) {
    const std::int64_t dense = checked_num_elements(shape);
    std::vector<std::int64_t> flat(static_cast<std::size_t>(dense));
    std::iota(flat.begin(), flat.end(), 0);
    std::mt19937_64 engine(*rc::gen::inRange<std::uint32_t>(0, 1u << 30));
    for (std::size_t k = flat.size(); k > 1; --k) std::swap(flat[k - 1], flat[engine() % k]);
    const auto count = *rc::gen::inRange<std::int64_t>(0, std::min<std::int64_t>(dense, 6) + 1);
    for (std::int64_t k = 0; k < count; ++k) entries.push_back(unravel(flat[k], shape));
  } else {
    const auto count = *rc::gen::inRange<std::int64_t>(0, 7);
    for (std::int64_t k = 0; k < count; ++k) {
      if (k > 0 && *rc::gen::weightedElement<bool>({{5, false}, {1, true}})) {
        entries.push_back(entries[*rc::gen::inRange<std::int64_t>(0, k)]);  // a duplicate
        continue;
      }
      std::vector<std::int64_t> c;
      for (std::size_t j = 0; j < shape.size(); ++j)
        c.push_back(draw_coordinate(shape[j], static_cast<int>(j) == d.cd()));
      entries.push_back(c);
    }
  }
  if (*rc::gen::weightedElement<bool>({{2, false}, {1, true}})) std::sort(entries.begin(), entries.end());
  std::vector<std::int64_t> flat;
  for (const auto& e : entries) flat.insert(flat.end(), e.begin(), e.end());
  d.set_entries(i, static_cast<std::int64_t>(entries.size()), static_cast<std::int64_t>(shape.size()), flat);
}

Draw draw_valid(SparseMode mode, int min_rank = 1, int min_inputs = 2) {
  Draw d;
  d.dtype = *gen_dtype_among(registered_dtypes(Op::kSparseConcat));
  const int n = *rc::gen::inRange(min_inputs, 5);
  const int r = *rc::gen::inRange(min_rank, 5);
  const int cd = *rc::gen::inRange(0, r);
  d.concat_dim = *rc::gen::arbitrary<bool>() ? cd : cd - r;
  Shape base(static_cast<std::size_t>(r));
  for (auto& dim : base) dim = *rc::gen::inRange<std::int64_t>(0, 5);
  d.rows.resize(n);
  d.columns.resize(n);
  d.coords.resize(n);
  for (int i = 0; i < n; ++i) {
    Shape s = base;
    s[cd] = *rc::gen::inRange<std::int64_t>(0, 5);
    d.shapes.push_back(s);
  }
  for (int i = 0; i < n; ++i) draw_entries(d, i, mode);
  return d;
}

// Huge dense shapes around a zero in any position, with few entries or none: before the zero
// the running products of every input's shape and of the output's (partial sums on the concat
// dim included) stay below 2^63, which the output's bound alone ensures (no input's dim is
// larger); after it, dims take any size, the concat dim's sum included. Coordinates lie inside
// their dims (0 in a zero-size one), so no offset overflows.
Draw draw_huge_empty() {
  Draw d;
  d.dtype = *gen_dtype_among(registered_dtypes(Op::kSparseConcat));
  const int n = *rc::gen::inRange(2, 5);
  const int r = *rc::gen::inRange(1, 5);
  const int cd = *rc::gen::inRange(0, r);
  d.concat_dim = *rc::gen::arbitrary<bool>() ? cd : cd - r;
  const Shape output = draw_empty_huge_dims(r, *rc::gen::inRange(0, r));
  std::vector<std::int64_t> cuts = {0, output[cd]};  // the inputs' sizes on cd: differences
  for (int i = 0; i + 1 < n; ++i) cuts.push_back(draw_log_uniform(0, output[cd]));
  std::sort(cuts.begin(), cuts.end());
  d.rows.resize(n);
  d.columns.resize(n);
  d.coords.resize(n);
  const bool entries = *rc::gen::arbitrary<bool>();
  for (int i = 0; i < n; ++i) {
    Shape s = output;
    s[cd] = cuts[i + 1] - cuts[i];
    d.shapes.push_back(s);
    std::vector<std::int64_t> flat;
    const std::int64_t count = entries ? *rc::gen::inRange(0, 3) : 0;
    for (std::int64_t k = 0; k < count; ++k)
      for (std::int64_t dim : s) flat.push_back(dim > 0 ? draw_log_uniform(0, dim - 1) : 0);
    d.set_entries(i, count, r, flat);
  }
  return d;
}

// Input i gets `rows` in-range entries (coordinates 0) when the whole case has none.
void ensure_some_entries(Draw& d, int i) {
  if (d.total_rows() > 0) return;
  d.set_entries(i, 1, d.rank(), std::vector<std::int64_t>(static_cast<std::size_t>(d.rank()), 0));
}

// A boundary case (index_boundaries.h) from a small valid draw: one coordinate (any entry, any
// column) set to v, or one dense dim set to v (the concat dim of one input; another dim of
// every input alike). Coordinates on the concat dim are then lowered where their offset would
// pass 2^63 - 1 (to 2^63 - 1 - offset: valid, at the edge).
Draw draw_at_boundary(const BoundaryTarget& t, int min_inputs) {
  Draw d = draw_valid(SparseMode::kAny, 1, min_inputs);
  const std::int64_t v = t.value;
  const int cd = d.cd();
  if (t.name == "indices") {
    ensure_some_entries(d, *rc::gen::inRange(0, d.n()));
    std::vector<int> with_entries;
    for (int i = 0; i < d.n(); ++i)
      if (d.rows[i] > 0) with_entries.push_back(i);
    const int i = *rc::gen::elementOf(with_entries);
    d.coords[i][*rc::gen::inRange<std::size_t>(0, d.coords[i].size())] = v;
  } else {
    const int j = *rc::gen::inRange(0, d.rank());
    if (j == cd)
      d.shapes[*rc::gen::inRange(0, d.n())][cd] = v;
    else
      for (Shape& s : d.shapes) s[j] = v;
  }
  std::int64_t offset = 0;
  for (int i = 0; i < d.n(); ++i) {
    for (std::int64_t e = 0; e < d.rows[i]; ++e) {
      std::int64_t& c = d.coords[i][e * d.columns[i] + cd];
      c = std::min(c, kInt64Max - offset);
    }
    offset += d.shapes[i][cd];
  }
  return d;
}

// --- invalid cases -------------------------------------------------------------------------
//
// One generator per check (kCheckGenerators below, by check): each draws a case that fails `check` first and
// names `check` as the check it fails. Every generator from shape-overflow on begins with one
// draw_valid(SparseMode::kAny), which keeps the cases a seed gives stable.

GeneratedCase draw_invalid(std::size_t check);

// A valid case or one failing a check listed after `check` (the earlier check must win).
GeneratedCase draw_base_after(std::string_view check) {
  return valid_or_failing(
      checks_after(Op::kSparseConcat, check), [] { return build(draw_valid(SparseMode::kAny)); }, draw_invalid);
}

// A valid draw of rank 2 or more, drawn after (and instead of) one of any rank.
Draw draw_valid_rank_2() {
  draw_valid(SparseMode::kAny);
  return draw_valid(SparseMode::kAny, 2);
}

std::vector<Tensor>& list(GeneratedCase& g, const char* name) {
  return std::get<std::vector<Tensor>>(g.c.inputs.at(name));
}

// Replaces a random member of a list input by the same shape in `dtype` (appends one when the
// list is empty).
void retype_member(GeneratedCase& g, const char* name, DType dtype, std::size_t first = 0) {
  std::vector<Tensor>& members = list(g, name);
  if (members.size() <= first) {
    members.push_back(*gen_payload(dtype, {1}));
    return;
  }
  Tensor& t = members[*rc::gen::inRange<std::size_t>(first, members.size())];
  t = *gen_payload(dtype, t.shape());
}

Tensor int64_tensor(Shape shape) {
  const std::int64_t count = checked_num_elements(shape);
  return index_tensor(DType::kInt64, shape,
                      *rc::gen::container<std::vector<std::int64_t>>(static_cast<std::size_t>(count),
                                                                     rc::gen::inRange<std::int64_t>(0, 4)));
}

// README pre-check 1: an indices or shapes member of a dtype other than int64.
GeneratedCase index_member_not_int64(std::string_view check, const char* name) {
  GeneratedCase g = draw_base_after(check);
  retype_member(g, name, *gen_dtype_among(dtypes_except({DType::kInt64})));
  g.check = check;
  return g;
}
GeneratedCase indices_not_int64(std::string_view check) { return index_member_not_int64(check, "indices"); }
GeneratedCase shapes_not_int64(std::string_view check) { return index_member_not_int64(check, "shapes"); }

// README pre-check 1: a values member (after the first) of another dtype than values[0].
GeneratedCase values_dtypes_differ(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  std::vector<Tensor>& values = list(g, "values");
  const DType first = values.empty() ? DType::kFloat32 : values[0].dtype();
  if (values.empty()) values.push_back(*gen_payload(first, {1}));
  retype_member(g, "values", *gen_dtype_among(dtypes_except({first})), 1);
  g.check = check;
  return g;
}

// Step 1: N below 2 (values and shapes cut to any length).
GeneratedCase fewer_than_2_inputs(std::string_view check) {
  GeneratedCase g = build(draw_valid(SparseMode::kAny), check);
  resize_list(list(g, "indices"), *rc::gen::inRange<std::size_t>(0, 2));
  resize_list(list(g, "values"), *rc::gen::inRange<std::size_t>(0, list(g, "values").size() + 1));
  resize_list(list(g, "shapes"), *rc::gen::inRange<std::size_t>(0, list(g, "shapes").size() + 1));
  return g;
}

// Step 1: as many values members as indices, plus or minus some (shapes of any length up to
// one more).
GeneratedCase values_length_differs(std::string_view check) {
  GeneratedCase g = build(draw_valid(SparseMode::kAny), check);
  resize_list(list(g, "values"), draw_length_other_than(list(g, "indices").size()));
  resize_list(list(g, "shapes"), *rc::gen::inRange<std::size_t>(0, list(g, "shapes").size() + 2));
  return g;
}

// Step 1: as many shapes members as indices, plus or minus some.
GeneratedCase shapes_length_differs(std::string_view check) {
  GeneratedCase g = build(draw_valid(SparseMode::kAny), check);
  resize_list(list(g, "shapes"), draw_length_other_than(list(g, "indices").size()));
  return g;
}

// Step 1: concat_dim outside int32.
GeneratedCase concat_dim_past_int32(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  g.c.attrs["concat_dim"] =
      *rc::gen::arbitrary<bool>() ? draw_edge(kInt32Max + 1, kInt64Max) : draw_edge(kInt64Min, kInt32Min - 1);
  g.check = check;
  return g;
}

// README pre-check 3: values of a dtype not registered.
GeneratedCase values_unregistered(std::string_view check) {
  GeneratedCase g = draw_base_after(check);
  const DType quantized = *gen_dtype_among(unregistered_dtypes(Op::kSparseConcat));
  for (Tensor& v : list(g, "values")) v = *gen_payload(quantized, v.shape());
  g.check = check;
  return g;
}

// Steps 2, 4, 5: a valid case with one member of list `name` of a shape from wrong(k), k in
// [0, 3] (a payload of its dtype for values, fresh int64 values otherwise).
GeneratedCase member_of_wrong_rank(std::string_view check, const char* name,
                                   std::vector<Shape> (*wrong)(std::int64_t)) {
  GeneratedCase g = build(draw_valid(SparseMode::kAny), check);
  std::vector<Tensor>& members = list(g, name);
  Tensor& t = members[*rc::gen::inRange<std::size_t>(0, members.size())];
  const Shape shape = *rc::gen::elementOf(wrong(*rc::gen::inRange<std::int64_t>(0, 4)));
  t = std::string_view(name) == "values" ? *gen_payload(t.dtype(), shape) : int64_tensor(shape);
  return g;
}
std::vector<Shape> not_a_matrix(std::int64_t k) { return {{}, {k}, {k, 1, 2}}; }
std::vector<Shape> not_a_vector(std::int64_t k) { return {{}, {k, 1}, {1, k}}; }
GeneratedCase indices_not_matrix(std::string_view check) {
  return member_of_wrong_rank(check, "indices", not_a_matrix);
}
GeneratedCase values_not_vector(std::string_view check) { return member_of_wrong_rank(check, "values", not_a_vector); }
GeneratedCase shapes_not_vector(std::string_view check) { return member_of_wrong_rank(check, "shapes", not_a_vector); }

// Step 5: the checked product of shapes[i] is negative: a negative dim (perhaps after a zero,
// which does not save it) or a product reaching 2^63 at its last dim.
GeneratedCase shape_product_negative(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int i = *rc::gen::inRange(0, d.n());
  Shape& s = d.shapes[i];
  if (*rc::gen::arbitrary<bool>()) {
    const std::size_t j = *rc::gen::inRange<std::size_t>(0, s.size());
    s[j] = draw_edge(kInt64Min, -1);
    if (j > 0 && *rc::gen::arbitrary<bool>()) s[j - 1] = 0;
  } else {
    s = factors_reaching_2pow63(*rc::gen::inRange(2, 5), kInt64Max);
  }
  return build(d, check);
}

// Steps 6 and 8 (deviation): more than 254 dims in shapes[0], or in shapes[i] for i >= 1.
GeneratedCase too_many_dims(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int i = *rc::gen::inRange(0, d.n());
  d.shapes[i].assign(static_cast<std::size_t>(*rc::gen::inRange(255, 300)), 1);
  if (*rc::gen::arbitrary<bool>()) d.shapes[i][*rc::gen::inRange<std::size_t>(0, 255)] = 0;
  return build(d, check);
}

// Step 7: concat_dim outside [-r, r), or shapes[0] of rank 0, which no concat_dim fits.
GeneratedCase concat_dim_out_of_range(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int r = d.rank();
  if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {
    d.shapes[0].clear();
    d.concat_dim = draw_edge(kInt32Min, kInt32Max);
  } else {
    d.concat_dim = *rc::gen::arbitrary<bool>() ? draw_edge(r, kInt32Max) : draw_edge(kInt32Min, -r - 1);
  }
  return build(d, check);
}

// Step 8: shapes[i] (i >= 1) one dim shorter or longer than shapes[0].
GeneratedCase ranks_differ(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int i = *rc::gen::inRange(1, d.n());
  Shape& s = d.shapes[i];
  if (s.size() > 1 && *rc::gen::arbitrary<bool>())
    s.pop_back();
  else
    s.push_back(*rc::gen::inRange<std::int64_t>(0, 4));
  return build(d, check);
}

// Step 8: shapes[i] (i >= 1) differs from shapes[0] in a dim other than the concat dim.
GeneratedCase shapes_differ(std::string_view check) {
  Draw d = draw_valid_rank_2();
  const int i = *rc::gen::inRange(1, d.n());
  int j = *rc::gen::inRange(0, d.rank() - 1);
  if (j >= d.cd()) ++j;  // any dim but the concat dim
  d.shapes[i][j] += d.shapes[i][j] > 0 && *rc::gen::arbitrary<bool>() ? -1 : 1;
  return build(d, check);
}

// Step 8 (deviation): the concat-dim sum passes int64 at input i (dim 0 is zero-size and
// before cd, so every element count stays 0).
GeneratedCase concat_size_overflows(std::string_view check) {
  Draw d = draw_valid_rank_2();
  const int cd = *rc::gen::inRange(1, d.rank());
  d.concat_dim = cd;
  const int at = *rc::gen::inRange(1, d.n());
  I128 sum = 0;
  for (int k = 0; k < d.n(); ++k) {
    d.shapes[k] = d.shapes[0];  // every dim but the new cd matches
    d.shapes[k][0] = 0;
    std::int64_t v = *rc::gen::inRange<std::int64_t>(0, 4);
    if (k == 0)
      v = draw_edge(1, kInt64Max);
    else if (k < at)
      v = draw_edge(0, static_cast<std::int64_t>(kInt64Max - sum));
    else if (k == at)
      v = draw_edge(static_cast<std::int64_t>(kInt64Max - sum + 1), kInt64Max);
    d.shapes[k][cd] = v;
    sum += v;
  }
  for (int k = 0; k < d.n(); ++k) d.set_entries(k, 0, d.rank(), {});
  return build(d, check);
}

// Redraws the dims of shapes[0] but the concat dim in [1, 2^20], their product D at least 2;
// returns D.
I128 draw_other_dims(Draw& d) {
  const int cd = d.cd();
  I128 others = 1;
  for (int j = 0; j < d.rank(); ++j) {
    if (j == cd) continue;
    d.shapes[0][j] = draw_edge(1, std::int64_t{1} << 20);
    others *= d.shapes[0][j];
  }
  if (others < 2) {
    d.shapes[0][cd == 0 ? 1 : 0] = 2;
    others = 2;
  }
  return others;
}

// Step 8: the output's element count passes int64 only once input `at` is added (each input's
// own count fits; no entries).
GeneratedCase output_shape_overflows(std::string_view check) {
  Draw d = draw_valid_rank_2();
  const int cd = d.cd();
  const I128 others = draw_other_dims(d);
  const auto most = static_cast<std::int64_t>((kTwoPow63 - 1) / others);  // each input fits
  const int at = *rc::gen::inRange(1, d.n());
  I128 sum = 0;
  for (int k = 0; k < d.n(); ++k) {
    Shape s = d.shapes[0];
    std::int64_t v;
    if (k < at)
      v = draw_edge(1, static_cast<std::int64_t>(std::min<I128>(most, (kTwoPow63 - 1) / others - sum - (at - k - 1))));
    else if (k == at)
      v = draw_edge(static_cast<std::int64_t>((kTwoPow63 + others - 1) / others - sum), most);
    else
      v = *rc::gen::inRange<std::int64_t>(0, 4);
    s[cd] = v;
    sum += v;
    d.shapes[k] = s;
    d.set_entries(k, 0, d.rank(), {});
  }
  return build(d, check);
}

// Step 9 (deviation): zero-column indices whose row counts sum past int64.
GeneratedCase total_entries_overflow(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  for (int k = 0; k < d.n(); ++k) d.set_entries(k, draw_edge(std::int64_t{1} << 62, kInt64Max), 0, {});
  return build(d, check);
}

// Step 10: values[i] of a length other than indices[i]'s rows (inputs before i valid; the
// concat has entries, or step 10 would be skipped).
GeneratedCase rows_differ(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int i = *rc::gen::inRange(0, d.n());
  ensure_some_entries(d, i);
  GeneratedCase g = build(d, check);
  Tensor& v = list(g, "values")[i];
  const std::int64_t rows = d.rows[i];
  const std::int64_t length =
      rows > 0 && *rc::gen::arbitrary<bool>() ? rows - 1 : rows + *rc::gen::inRange<std::int64_t>(1, 3);
  v = *gen_payload(v.dtype(), {length});
  return g;
}

// Step 10: indices[i] with a column count other than r (inputs before i valid; the concat has
// entries).
GeneratedCase columns_not_rank(std::string_view check) {
  Draw d = draw_valid(SparseMode::kAny);
  const int i = *rc::gen::inRange(0, d.n());
  ensure_some_entries(d, i);
  GeneratedCase g = build(d, check);
  std::int64_t columns = *rc::gen::inRange<std::int64_t>(0, d.rank() + 2);
  if (columns == d.rank()) columns = d.rank() + 2;
  list(g, "indices")[i] = int64_tensor({d.rows[i], columns});
  return g;
}

// Step 10 (deviation): an entry of input i whose concat coordinate overflows when offset by
// the sizes of the inputs before it (the other dim is zero-size: no element anywhere).
GeneratedCase index_offset_overflows(std::string_view check) {
  Draw d = draw_valid_rank_2();
  const int cd = *rc::gen::inRange(0, 2);
  d.concat_dim = cd;
  const int i = *rc::gen::inRange(1, d.n());
  std::int64_t offset = 0;
  for (int k = 0; k < d.n(); ++k) {
    d.shapes[k] = {0, 0};
    d.shapes[k][cd] =
        k == 0 ? draw_edge(1, std::int64_t{1} << 60) : *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 60);
    if (k < i) offset += d.shapes[k][cd];
    d.set_entries(k, 0, 2, {});
  }
  std::vector<std::int64_t> flat;
  const std::int64_t before = *rc::gen::inRange<std::int64_t>(0, 3);  // valid entries first
  for (std::int64_t e = 0; e < before; ++e)
    flat.insert(flat.end(), {*rc::gen::inRange<std::int64_t>(-2, 3), *rc::gen::inRange<std::int64_t>(-2, 3)});
  std::vector<std::int64_t> bad = {*rc::gen::inRange<std::int64_t>(-2, 3), *rc::gen::inRange<std::int64_t>(-2, 3)};
  bad[cd] = draw_edge(kInt64Max - offset + 1, kInt64Max);
  flat.insert(flat.end(), bad.begin(), bad.end());
  d.set_entries(i, before + 1, 2, flat);
  return build(d, check);
}

// The memory limit: a valid case under a limit below its request.
GeneratedCase request_past_memory_limit(std::string_view check) {
  return with_memory_limit_below_request(build(draw_valid(SparseMode::kAny), check));
}

// The generators of the checks, by check (a check without one does not compile).
using GenerateFn = GeneratedCase (*)(std::string_view check);
constexpr auto kCheckGenerators = by_check<kNumSCChecks, SCCheck, GenerateFn>(
    {
        {SCCheck::kArgTypesIndices, indices_not_int64},
        {SCCheck::kArgTypesValues, values_dtypes_differ},
        {SCCheck::kArgTypesShapes, shapes_not_int64},
        {SCCheck::kAttrN, fewer_than_2_inputs},
        {SCCheck::kListLengthValues, values_length_differs},
        {SCCheck::kListLengthShapes, shapes_length_differs},
        {SCCheck::kConcatDimInt32, concat_dim_past_int32},
        {SCCheck::kRegistration, values_unregistered},
        {SCCheck::kIndicesMatrix, indices_not_matrix},
        {SCCheck::kValuesVector, values_not_vector},
        {SCCheck::kShapesVector, shapes_not_vector},
        {SCCheck::kShapeOverflow, shape_product_negative},
        {SCCheck::kTooManyDims, too_many_dims},
        {SCCheck::kConcatDimRange, concat_dim_out_of_range},
        {SCCheck::kRankMatch, ranks_differ},
        {SCCheck::kShapeMatch, shapes_differ},
        {SCCheck::kConcatSizeOverflow, concat_size_overflows},
        {SCCheck::kOutputShapeOverflow, output_shape_overflows},
        {SCCheck::kTotalNnzOverflow, total_entries_overflow},
        {SCCheck::kRowsMatch, rows_differ},
        {SCCheck::kOrderLength, columns_not_rank},
        {SCCheck::kIndexOffsetOverflow, index_offset_overflows},
        {SCCheck::kMemoryLimit, request_past_memory_limit},
    },
    true);

GeneratedCase draw_invalid(std::size_t check) { return kCheckGenerators.at(check)(kSparseConcatChecks[check].id); }

rc::Gen<GeneratedCase> invalid_by_index(Op, std::size_t check) {
  return rc::gen::exec([check] { return draw_invalid(check); });
}

// large_valid_case: every input's entries repeated, in blocks (which unsorts them) or row by
// row (which keeps sorted inputs sorted), with a fresh payload of values.
void widen_entries(GeneratedCase& g) {
  auto& indices = std::get<std::vector<Tensor>>(g.c.inputs.at("indices"));
  auto& values = std::get<std::vector<Tensor>>(g.c.inputs.at("values"));
  if (const std::int64_t bytes = widen::data_bytes(indices); bytes > 0) {
    const std::int64_t times = widen::widening(bytes);
    const bool row_by_row = *rc::gen::arbitrary<bool>();
    std::vector<Shape> shapes;
    for (Tensor& t : indices) {
      t = widen::repeated_rows(t, times, row_by_row);
      shapes.push_back({t.dim(0)});
    }
    values = *gen_payloads(values[0].dtype(), shapes);
  }
}

// grow_valid_case: every input's entries `times` over (in blocks, which unsorts them, or row by row),
// with fresh values.
void grow_sparse(conformance::Case& c, std::int64_t times) {
  auto& indices = input_list(c, "indices");
  auto& values = input_list(c, "values");
  const bool row_by_row = *rc::gen::arbitrary<bool>();
  std::vector<Shape> shapes;
  for (Tensor& m : indices) {
    const std::int64_t n = m.dim(0), r = m.dim(1);
    Tensor out(DType::kInt64, {n * times, r});
    for (std::int64_t k = 0; k < n * times; ++k)
      std::copy_n(m.data<std::int64_t>() + (row_by_row ? k / times : k % n) * r, r, out.data<std::int64_t>() + k * r);
    m = std::move(out);
    shapes.push_back({m.dim(0)});
  }
  values = *gen_payloads(values[0].dtype(), shapes);
}

// Every dtype but the quantized ones.
std::vector<DType> registered() { return dtypes_except({DType::kQInt8, DType::kQUInt8, DType::kQInt32}); }

}  // namespace

rc::Gen<GeneratedCase> valid_sparse_concat(SparseMode mode, int min_inputs) {
  return rc::gen::exec([mode, min_inputs] {
    if (mode == SparseMode::kAny)
      if (const auto target = draw_boundary_target(Op::kSparseConcat))
        return build(draw_at_boundary(*target, min_inputs));
    if (mode == SparseMode::kAny && *rc::gen::weightedElement<bool>({{7, false}, {1, true}})) {
      Draw d = draw_huge_empty();
      if (d.n() >= min_inputs) return build(d);
    }
    return build(draw_valid(mode, 1, min_inputs));
  });
}
rc::Gen<GeneratedCase> invalid_sparse_concat(std::string_view check) {
  return invalid_by_index(Op::kSparseConcat, check_index(Op::kSparseConcat, check));
}

std::optional<std::vector<PredictedOutput>> sparse_concat_outputs(const conformance::Case& c) {
  const auto& indices = input_list(c, "indices");
  const auto& values = input_list(c, "values");
  const auto& shapes = input_list(c, "shapes");
  if (indices.size() < 2 || values.size() != indices.size() || shapes.size() != indices.size() || shapes[0].rank() != 1)
    return std::nullopt;
  const std::int64_t r = shapes[0].dim(0);
  std::int64_t nnz = 0;
  for (const Tensor& t : indices) {
    if (t.rank() != 2 || __builtin_add_overflow(nnz, t.dim(0), &nnz)) return std::nullopt;
  }
  return std::vector<PredictedOutput>{{DType::kInt64, {nnz, r}}, {values[0].dtype(), {nnz}}, {DType::kInt64, {r}}};
}

// --- the checks' breakers (check_pairs.h) --------------------------------------------------

namespace breakers {
namespace {

// shapes[k] as values, when it is an int64 vector.
std::optional<std::vector<std::int64_t>> shape_values(const Tensor& t) {
  if (t.dtype() != DType::kInt64 || t.rank() != 1) return std::nullopt;
  return index_values(t);
}

// The rank r of shapes[0] (an int64 vector) and the concat axis in [0, r), when both are.
struct ConcatAxis {
  std::int64_t r, cd;
};
std::optional<ConcatAxis> concat_axis(conformance::Case& c) {
  const auto first = shape_values(list(c, "shapes")[0]);
  if (!first) return std::nullopt;
  const auto r = static_cast<std::int64_t>(first->size());
  const std::int64_t given = c.attrs.at("concat_dim");
  const std::int64_t cd = given < 0 ? given + r : given;
  if (cd < 0 || cd >= r) return std::nullopt;
  return ConcatAxis{r, cd};
}

bool break_arg_types_indices(conformance::Case& c) { return member_not_of(c, "indices", DType::kInt64); }

bool break_arg_types_values(conformance::Case& c) { return member_unlike_first(c, "values"); }

bool break_arg_types_shapes(conformance::Case& c) { return member_not_of(c, "shapes", DType::kInt64); }

// N = 1: the same number of members dropped from the end of every list.
bool break_attr_n(conformance::Case& c) {
  const std::size_t drop = list(c, "indices").size() - 1;
  for (const char* name : {"indices", "values", "shapes"}) {
    auto& l = list(c, name);
    if (l.size() <= drop) return false;
    l.resize(l.size() - drop);
  }
  return true;
}

bool break_list_length_values(conformance::Case& c) {
  auto& values = list(c, "values");
  values.push_back(values.back().clone());
  return true;
}

bool break_list_length_shapes(conformance::Case& c) {
  auto& shapes = list(c, "shapes");
  shapes.push_back(shapes.back().clone());
  return true;
}

bool break_concat_dim_int32(conformance::Case& c) {
  c.attrs["concat_dim"] =
      *rc::gen::arbitrary<bool>() ? draw_edge(kInt32Max + 1, kInt64Max) : draw_edge(kInt64Min, kInt32Min - 1);
  return true;
}

bool break_registration(conformance::Case& c) {
  const DType dtype = *gen_dtype_among(unregistered_dtypes(Op::kSparseConcat));
  for (Tensor& t : list(c, "values")) t = retyped(t, dtype);
  return true;
}

bool break_indices_matrix(conformance::Case& c) {
  Tensor& t = any_member(c, "indices");
  if (t.rank() != 2) return false;
  t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{t.num_elements()}, {t.dim(0), t.dim(1), 1}}));
  return true;
}

bool break_values_vector(conformance::Case& c) { return vector_member_made_matrix(c, "values"); }

bool break_shapes_vector(conformance::Case& c) { return vector_member_made_matrix(c, "shapes"); }

bool break_shape_overflow(conformance::Case& c) {
  Tensor& t = any_member(c, "shapes");
  auto v = shape_values(t);
  if (!v || v->empty()) return false;
  (*v)[*rc::gen::inRange<std::size_t>(0, v->size())] = -*rc::gen::inRange<std::int64_t>(1, 3);
  t = index_tensor(DType::kInt64, t.shape(), *v);
  return true;
}

// 255 dims: shapes[0] (checked before the concat dim) or a later member (checked first in
// its turn of step 8).
bool break_too_many_dims(conformance::Case& c) {
  auto& shapes = list(c, "shapes");
  const std::size_t k = *rc::gen::arbitrary<bool>() ? 0 : *rc::gen::inRange<std::size_t>(0, shapes.size());
  auto v = shape_values(shapes[k]);
  if (!v) return false;
  v->resize(std::max<std::size_t>(v->size(), 255), 1);
  shapes[k] = index_tensor(DType::kInt64, {static_cast<std::int64_t>(v->size())}, *v);
  return true;
}

bool break_concat_dim_range(conformance::Case& c) {
  auto v = shape_values(list(c, "shapes")[0]);
  if (!v) return false;
  const auto r = static_cast<std::int64_t>(v->size());
  c.attrs["concat_dim"] = *rc::gen::arbitrary<bool>() ? draw_edge(r, kInt32Max) : draw_edge(kInt32Min, -r - 1);
  return true;
}

bool break_rank_match(conformance::Case& c) {
  if (list(c, "shapes").size() < 2) return false;
  Tensor& t = any_member(c, "shapes", 1);
  auto v = shape_values(t);
  if (!v) return false;
  if (!v->empty() && *rc::gen::arbitrary<bool>())
    v->pop_back();
  else
    v->push_back(1);
  t = index_tensor(DType::kInt64, {static_cast<std::int64_t>(v->size())}, *v);
  return true;
}

bool break_shape_match(conformance::Case& c) {
  auto& shapes = list(c, "shapes");
  const auto axis = concat_axis(c);
  if (!axis || shapes.size() < 2) return false;
  const auto [r, cd] = *axis;
  const std::size_t k = *rc::gen::inRange<std::size_t>(1, shapes.size());
  auto v = shape_values(shapes[k]);
  if (!v || static_cast<std::int64_t>(v->size()) != r) return false;
  std::vector<std::size_t> others;
  for (std::int64_t j = 0; j < r; ++j)
    if (j != cd && (*v)[j] < kInt64Max) others.push_back(static_cast<std::size_t>(j));
  if (others.empty()) return false;
  (*v)[*rc::gen::elementOf(others)] += 1;
  shapes[k] = index_tensor(DType::kInt64, shapes[k].shape(), *v);
  return true;
}

// The concat-dim sum passes 2^63 - 1 at the first member with a non-zero sum before it.
bool break_concat_size_overflow(conformance::Case& c) {
  auto& shapes = list(c, "shapes");
  const auto axis = concat_axis(c);
  if (!axis) return false;
  const auto [r, cd] = *axis;
  I128 sum = 0;
  for (std::size_t k = 0; k < shapes.size(); ++k) {
    auto v = shape_values(shapes[k]);
    if (!v || static_cast<std::int64_t>(v->size()) != r) return false;
    if (k > 0 && sum > 0) {
      (*v)[cd] = kInt64Max;
      shapes[k] = index_tensor(DType::kInt64, shapes[k].shape(), *v);
      return true;
    }
    sum += (*v)[cd];
  }
  return false;
}

// The concat-dim sizes of members 0 and 1 set so each member's own element count fits but the
// output's, counted after member 1, passes 2^63 - 1 (the other dims, shared, multiply to >= 2).
bool break_output_shape_overflow(conformance::Case& c) {
  auto& shapes = list(c, "shapes");
  auto first = shape_values(shapes[0]);
  auto second = shapes.size() >= 2 ? shape_values(shapes[1]) : std::nullopt;
  const auto axis = concat_axis(c);
  if (!axis || !second || first->size() != second->size()) return false;
  const auto [r, cd] = *axis;
  I128 others = 1;
  for (std::int64_t j = 0; j < r; ++j) {
    if (j == cd) continue;
    if ((*first)[j] <= 0) return false;
    others *= (*first)[j];
    if (others >= kTwoPow63) return false;
  }
  if (others < 2) return false;
  const I128 half = ((kTwoPow63 / 2) + others - 1) / others;  // half * others in [2^62, 2^63)
  (*first)[cd] = (*second)[cd] = static_cast<std::int64_t>(half);
  shapes[0] = index_tensor(DType::kInt64, shapes[0].shape(), *first);
  shapes[1] = index_tensor(DType::kInt64, shapes[1].shape(), *second);
  return true;
}

// Two members with 2^62 rows of zero columns: the total passes 2^63 - 1.
bool break_total_nnz_overflow(conformance::Case& c) {
  auto& indices = list(c, "indices");
  if (indices.size() < 2) return false;
  const std::size_t k = *rc::gen::inRange<std::size_t>(0, indices.size() - 1);
  for (std::size_t i : {k, k + 1}) indices[i] = Tensor(DType::kInt64, {std::int64_t{1} << 62, 0});
  return true;
}

// Checked per member in order: broken in member 0, whose turn comes first.
bool break_rows_match(conformance::Case& c) {
  Tensor& values = list(c, "values")[0];
  if (values.rank() != 1) return false;
  return reshape_fresh(values, {values.dim(0) + 1});
}

bool break_order_length(conformance::Case& c) {
  Tensor& indices = list(c, "indices")[0];
  if (indices.dtype() != DType::kInt64 || indices.rank() != 2) return false;
  Tensor wider(DType::kInt64, {indices.dim(0), indices.dim(1) + 1});
  for (std::int64_t row = 0; row < indices.dim(0); ++row)
    for (std::int64_t col = 0; col < indices.dim(1); ++col)
      wider.data<std::int64_t>()[row * (indices.dim(1) + 1) + col] =
          indices.data<std::int64_t>()[row * indices.dim(1) + col];
  indices = std::move(wider);
  return true;
}

bool break_index_offset_overflow(conformance::Case& c) {
  auto& indices = list(c, "indices");
  auto& shapes = list(c, "shapes");
  const auto axis = concat_axis(c);
  if (!axis) return false;
  const auto [r, cd] = *axis;
  I128 offset = 0;
  for (std::size_t k = 0; k < indices.size() && k < shapes.size(); ++k) {
    Tensor& t = indices[k];
    if (offset > 0 && t.dtype() == DType::kInt64 && t.rank() == 2 && t.dim(1) == r && t.dim(0) > 0) {
      t.data<std::int64_t>()[cd] = kInt64Max;
      return true;
    }
    auto v = shape_values(shapes[k]);
    if (!v || static_cast<std::int64_t>(v->size()) != r) return false;
    offset += (*v)[cd];
  }
  return false;
}

// Each check's breaker, by check; memory-limit, checked last, needs none.
constexpr auto kSCBreakers = by_check<kNumSCChecks, SCCheck, BreakFn>(
    {
        {SCCheck::kArgTypesIndices, break_arg_types_indices},
        {SCCheck::kArgTypesValues, break_arg_types_values},
        {SCCheck::kArgTypesShapes, break_arg_types_shapes},
        {SCCheck::kAttrN, break_attr_n},
        {SCCheck::kListLengthValues, break_list_length_values},
        {SCCheck::kListLengthShapes, break_list_length_shapes},
        {SCCheck::kConcatDimInt32, break_concat_dim_int32},
        {SCCheck::kRegistration, break_registration},
        {SCCheck::kIndicesMatrix, break_indices_matrix},
        {SCCheck::kValuesVector, break_values_vector},
        {SCCheck::kShapesVector, break_shapes_vector},
        {SCCheck::kShapeOverflow, break_shape_overflow},
        {SCCheck::kTooManyDims, break_too_many_dims},
        {SCCheck::kConcatDimRange, break_concat_dim_range},
        {SCCheck::kRankMatch, break_rank_match},
        {SCCheck::kShapeMatch, break_shape_match},
        {SCCheck::kConcatSizeOverflow, break_concat_size_overflow},
        {SCCheck::kOutputShapeOverflow, break_output_shape_overflow},
        {SCCheck::kTotalNnzOverflow, break_total_nnz_overflow},
        {SCCheck::kRowsMatch, break_rows_match},
        {SCCheck::kOrderLength, break_order_length},
        {SCCheck::kIndexOffsetOverflow, break_index_offset_overflow},
    },
    false);

constexpr std::string_view kOneInput = "with N = 1 there is no second member or offset for this check to look at";
constexpr std::string_view kNoShape =
    "once the concat-dim sum overflows there is no output shape whose element count could overflow";

// Pairs no single input breaks together, with the reason.
constexpr Exclusion kSCExclusions[] = {
    excluded(SCCheck::kAttrN, SCCheck::kRankMatch, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kShapeMatch, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kConcatSizeOverflow, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kOutputShapeOverflow, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kTotalNnzOverflow, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kIndexOffsetOverflow, kOneInput),
    excluded(SCCheck::kAttrN, SCCheck::kMemoryLimit, kOneInput),
    excluded(SCCheck::kConcatSizeOverflow, SCCheck::kMemoryLimit, kNoOutput),
    excluded(SCCheck::kOutputShapeOverflow, SCCheck::kMemoryLimit, kNoOutput),
    excluded(SCCheck::kTotalNnzOverflow, SCCheck::kMemoryLimit, kNoOutput),
    excluded(SCCheck::kShapeOverflow, SCCheck::kMemoryLimit, kNoOutput),
    excluded(SCCheck::kConcatSizeOverflow, SCCheck::kOutputShapeOverflow, kNoShape),
};

}  // namespace
}  // namespace breakers

constinit const OpGenerators kSparseConcatGenerators = {
    kSparseConcatChecks,
    registered,
    [](Op) { return valid_sparse_concat(); },
    invalid_by_index,
    sparse_concat_outputs,
    widen_entries,
    breakers::kSCBreakers,
    breakers::kSCExclusions,
    grow_sparse,
};

}  // namespace opconform::generators
