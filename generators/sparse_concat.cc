#include "opconform/generators/sparse_concat.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "opconform/generators/payload.h"
#include "opconform/generators/rules.h"

namespace opconform::generators {
namespace {

using I128 = __int128;
constexpr I128 kTwoPow63 = static_cast<I128>(1) << 63;

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

GeneratedCase build(const Draw& d, std::string rule = {}) {
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
  return make_case(Op::kSparseConcat, std::move(inputs), {{"concat_dim", d.concat_dim}}, std::move(rule));
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

GeneratedCase draw_invalid(std::string_view rule);

// A valid case or one failing a check listed after `rule` (the earlier check must win).
GeneratedCase draw_base_after(std::string_view rule) {
  std::vector<std::string_view> later;
  bool after = false;
  for (const Rule& r : rules_of(Op::kSparseConcat)) {
    if (after) later.push_back(r.id);
    if (r.id == rule) after = true;
  }
  if (*rc::gen::arbitrary<bool>()) return build(draw_valid(SparseMode::kAny));
  return draw_invalid(*rc::gen::elementOf(later));
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
                      *rc::gen::container<std::vector<std::int64_t>>(
                          static_cast<std::size_t>(count), rc::gen::inRange<std::int64_t>(0, 4)));
}

GeneratedCase draw_invalid(std::string_view rule) {
  const std::string id(rule);
  const auto not_int64 = dtypes_except({DType::kInt64});
  // README pre-checks and step 1.
  if (id == "arg-types-indices" || id == "arg-types-shapes") {
    GeneratedCase g = draw_base_after(id);
    retype_member(g, id == "arg-types-indices" ? "indices" : "shapes", *gen_dtype_among(not_int64));
    g.rule = id;
    return g;
  }
  if (id == "arg-types-values") {
    GeneratedCase g = draw_base_after(id);
    std::vector<Tensor>& values = list(g, "values");
    const DType first = values.empty() ? DType::kFloat32 : values[0].dtype();
    if (values.empty()) values.push_back(*gen_payload(first, {1}));
    retype_member(g, "values", *gen_dtype_among(dtypes_except({first})), 1);
    g.rule = id;
    return g;
  }
  if (id == "attr-n" || id == "list-length-values" || id == "list-length-shapes") {
    GeneratedCase g = build(draw_valid(SparseMode::kAny), id);
    std::vector<Tensor>& indices = list(g, "indices");
    std::vector<Tensor>& values = list(g, "values");
    std::vector<Tensor>& shapes = list(g, "shapes");
    auto resize = [](std::vector<Tensor>& l, std::size_t length) {
      const Tensor extra = l[0];
      l.resize(std::min(length, l.size()));
      while (l.size() < length) l.push_back(extra);
    };
    auto other_than = [](std::size_t n) {
      const auto length = *rc::gen::inRange<std::size_t>(0, n + 3);
      return length == n ? n + 1 : length;
    };
    if (id == "attr-n") {
      resize(indices, *rc::gen::inRange<std::size_t>(0, 2));
      resize(values, *rc::gen::inRange<std::size_t>(0, values.size() + 1));
      resize(shapes, *rc::gen::inRange<std::size_t>(0, shapes.size() + 1));
    } else if (id == "list-length-values") {
      resize(values, other_than(indices.size()));
      resize(shapes, *rc::gen::inRange<std::size_t>(0, shapes.size() + 2));
    } else {
      resize(shapes, other_than(indices.size()));
    }
    return g;
  }
  if (id == "concat-dim-int32") {
    GeneratedCase g = draw_base_after(id);
    g.c.attrs["concat_dim"] = *rc::gen::arbitrary<bool>() ? draw_edge(kInt32Max + 1, kInt64Max)
                                                          : draw_edge(kInt64Min, kInt32Min - 1);
    g.rule = id;
    return g;
  }
  if (id == "registration") {
    GeneratedCase g = draw_base_after(id);
    const DType quantized = *gen_dtype_among(unregistered_dtypes(Op::kSparseConcat));
    for (Tensor& v : list(g, "values")) v = *gen_payload(quantized, v.shape());
    g.rule = id;
    return g;
  }
  // Steps 2, 4, 5: a member of the wrong rank (earlier members valid).
  if (id == "indices-matrix" || id == "values-vector" || id == "shapes-vector") {
    GeneratedCase g = build(draw_valid(SparseMode::kAny), id);
    const char* name = id == "indices-matrix" ? "indices" : id == "values-vector" ? "values" : "shapes";
    std::vector<Tensor>& members = list(g, name);
    Tensor& t = members[*rc::gen::inRange<std::size_t>(0, members.size())];
    const std::int64_t k = *rc::gen::inRange<std::int64_t>(0, 4);
    std::vector<Shape> wrong = {{}, {k, 1}, {1, k}};
    if (id == "indices-matrix") wrong = {{}, {k}, {k, 1, 2}};
    const Shape shape = *rc::gen::elementOf(wrong);
    t = id == "values-vector" ? *gen_payload(t.dtype(), shape) : int64_tensor(shape);
    return g;
  }
  Draw d = draw_valid(SparseMode::kAny);
  // Step 5: the checked product of shapes[i] is negative: a negative dim (perhaps after a
  // zero, which does not save it) or a product reaching 2^63 at its last dim.
  if (id == "shape-overflow") {
    const int i = *rc::gen::inRange(0, d.n());
    Shape& s = d.shapes[i];
    if (*rc::gen::arbitrary<bool>()) {
      const std::size_t j = *rc::gen::inRange<std::size_t>(0, s.size());
      s[j] = draw_edge(kInt64Min, -1);
      if (j > 0 && *rc::gen::arbitrary<bool>()) s[j - 1] = 0;
    } else {
      s = factors_reaching_2pow63(*rc::gen::inRange(2, 5), kInt64Max);
    }
    return build(d, id);
  }
  // Steps 6 and 8 (deviation): more than 254 dims in shapes[0], or in shapes[i] for i >= 1.
  if (id == "too-many-dims") {
    const int i = *rc::gen::inRange(0, d.n());
    d.shapes[i].assign(static_cast<std::size_t>(*rc::gen::inRange(255, 300)), 1);
    if (*rc::gen::arbitrary<bool>()) d.shapes[i][*rc::gen::inRange<std::size_t>(0, 255)] = 0;
    return build(d, id);
  }
  if (id == "concat-dim-range") {
    const int r = d.rank();
    if (*rc::gen::weightedElement<bool>({{3, false}, {1, true}})) {  // rank 0: always out of range
      d.shapes[0].clear();
      d.concat_dim = draw_edge(kInt32Min, kInt32Max);
    } else {
      d.concat_dim = *rc::gen::arbitrary<bool>() ? draw_edge(r, kInt32Max) : draw_edge(kInt32Min, -r - 1);
    }
    return build(d, id);
  }
  if (id == "rank-match") {
    const int i = *rc::gen::inRange(1, d.n());
    Shape& s = d.shapes[i];
    if (s.size() > 1 && *rc::gen::arbitrary<bool>()) s.pop_back();
    else s.push_back(*rc::gen::inRange<std::int64_t>(0, 4));
    return build(d, id);
  }
  if (id == "shape-match") {
    d = draw_valid(SparseMode::kAny, 2);
    const int i = *rc::gen::inRange(1, d.n());
    int j = *rc::gen::inRange(0, d.rank() - 1);
    if (j >= d.cd()) ++j;  // any dim but the concat dim
    d.shapes[i][j] += d.shapes[i][j] > 0 && *rc::gen::arbitrary<bool>() ? -1 : 1;
    return build(d, id);
  }
  // Step 8 (deviation): the concat-dim sum passes int64 at input i (dim 0 is zero-size and
  // before cd, so every element count stays 0).
  if (id == "concat-size-overflow") {
    d = draw_valid(SparseMode::kAny, 2);
    const int cd = *rc::gen::inRange(1, d.rank());
    d.concat_dim = cd;
    const int at = *rc::gen::inRange(1, d.n());
    I128 sum = 0;
    for (int k = 0; k < d.n(); ++k) {
      d.shapes[k] = d.shapes[0];  // every dim but the new cd matches
      d.shapes[k][0] = 0;
      std::int64_t v = *rc::gen::inRange<std::int64_t>(0, 4);
      if (k == 0) v = draw_edge(1, kInt64Max);
      else if (k < at) v = draw_edge(0, static_cast<std::int64_t>(kInt64Max - sum));
      else if (k == at) v = draw_edge(static_cast<std::int64_t>(kInt64Max - sum + 1), kInt64Max);
      d.shapes[k][cd] = v;
      sum += v;
    }
    for (int k = 0; k < d.n(); ++k) d.set_entries(k, 0, d.rank(), {});
    return build(d, id);
  }
  // Step 8: the output's element count passes int64 only once input `at` is added.
  if (id == "output-shape-overflow") {
    d = draw_valid(SparseMode::kAny, 2);
    const int cd = d.cd();
    I128 others = 1;  // D: the product of the other dims, >= 2
    for (int j = 0; j < d.rank(); ++j) {
      if (j == cd) continue;
      d.shapes[0][j] = draw_edge(1, std::int64_t{1} << 20);
      others *= d.shapes[0][j];
    }
    if (others < 2) {
      d.shapes[0][cd == 0 ? 1 : 0] = 2;
      others = 2;
    }
    const auto most = static_cast<std::int64_t>((kTwoPow63 - 1) / others);  // each input fits
    const int at = *rc::gen::inRange(1, d.n());
    I128 sum = 0;
    for (int k = 0; k < d.n(); ++k) {
      Shape s = d.shapes[0];
      std::int64_t v;
      if (k < at) v = draw_edge(1, static_cast<std::int64_t>(std::min<I128>(most, (kTwoPow63 - 1) / others - sum - (at - k - 1))));
      else if (k == at) v = draw_edge(static_cast<std::int64_t>((kTwoPow63 + others - 1) / others - sum), most);
      else v = *rc::gen::inRange<std::int64_t>(0, 4);
      s[cd] = v;
      sum += v;
      d.shapes[k] = s;
      d.set_entries(k, 0, d.rank(), {});
    }
    return build(d, id);
  }
  // Step 9 (deviation): zero-column indices whose row counts sum past int64.
  if (id == "total-nnz-overflow") {
    for (int k = 0; k < d.n(); ++k)
      d.set_entries(k, draw_edge(std::int64_t{1} << 62, kInt64Max), 0, {});
    return build(d, id);
  }
  // Step 10: input i has mismatched rows, or a column count other than r (inputs before i are
  // valid; the concat has entries, or step 10 would be skipped).
  if (id == "rows-match" || id == "order-length") {
    const int i = *rc::gen::inRange(0, d.n());
    ensure_some_entries(d, i);
    GeneratedCase g = build(d, id);
    if (id == "rows-match") {
      Tensor& v = list(g, "values")[i];
      const std::int64_t rows = d.rows[i];
      const std::int64_t length = rows > 0 && *rc::gen::arbitrary<bool>() ? rows - 1 : rows + *rc::gen::inRange<std::int64_t>(1, 3);
      v = *gen_payload(v.dtype(), {length});
    } else {
      std::int64_t columns = *rc::gen::inRange<std::int64_t>(0, d.rank() + 2);
      if (columns == d.rank()) columns = d.rank() + 2;
      list(g, "indices")[i] = int64_tensor({d.rows[i], columns});
    }
    return g;
  }
  // Step 10 (deviation): an entry of input i whose concat coordinate overflows when offset by
  // the sizes of the inputs before it (the other dim is zero-size: no element anywhere).
  if (id == "index-offset-overflow") {
    d = draw_valid(SparseMode::kAny, 2);
    const int cd = *rc::gen::inRange(0, 2);
    d.concat_dim = cd;
    const int i = *rc::gen::inRange(1, d.n());
    std::int64_t offset = 0;
    for (int k = 0; k < d.n(); ++k) {
      d.shapes[k] = {0, 0};
      d.shapes[k][cd] = k == 0 ? draw_edge(1, std::int64_t{1} << 60) : *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 60);
      if (k < i) offset += d.shapes[k][cd];
      d.set_entries(k, 0, 2, {});
    }
    std::vector<std::int64_t> flat;
    const std::int64_t before = *rc::gen::inRange<std::int64_t>(0, 3);  // valid entries first
    for (std::int64_t e = 0; e < before; ++e) flat.insert(flat.end(), {*rc::gen::inRange<std::int64_t>(-2, 3), *rc::gen::inRange<std::int64_t>(-2, 3)});
    std::vector<std::int64_t> bad = {*rc::gen::inRange<std::int64_t>(-2, 3), *rc::gen::inRange<std::int64_t>(-2, 3)};
    bad[cd] = draw_edge(kInt64Max - offset + 1, kInt64Max);
    flat.insert(flat.end(), bad.begin(), bad.end());
    d.set_entries(i, before + 1, 2, flat);
    return build(d, id);
  }
  if (id == "memory-limit") {
    GeneratedCase g = build(d, id);
    g.c.memory_limit = draw_edge(0, predicted_request_bytes(*predicted_outputs(g.c)) - 1);
    return g;
  }
  throw std::logic_error("no generator for rule " + id + " of SparseConcat");
}

}  // namespace

rc::Gen<GeneratedCase> valid_sparse_concat(SparseMode mode, int min_inputs) {
  return rc::gen::exec([mode, min_inputs] {
    if (mode == SparseMode::kAny && *rc::gen::weightedElement<bool>({{7, false}, {1, true}})) {
      Draw d = draw_huge_empty();
      if (d.n() >= min_inputs) return build(d);
    }
    return build(draw_valid(mode, 1, min_inputs));
  });
}
rc::Gen<GeneratedCase> invalid_sparse_concat(std::string_view rule) {
  return rc::gen::exec([rule = std::string(rule)] { return draw_invalid(rule); });
}

std::optional<std::vector<PredictedOutput>> sparse_concat_outputs(const conformance::Case& c) {
  const auto& indices = input_list(c, "indices");
  const auto& values = input_list(c, "values");
  const auto& shapes = input_list(c, "shapes");
  if (indices.size() < 2 || values.size() != indices.size() || shapes.size() != indices.size() ||
      shapes[0].rank() != 1)
    return std::nullopt;
  const std::int64_t r = shapes[0].dim(0);
  std::int64_t nnz = 0;
  for (const Tensor& t : indices) {
    if (t.rank() != 2 || __builtin_add_overflow(nnz, t.dim(0), &nnz)) return std::nullopt;
  }
  return std::vector<PredictedOutput>{
      {DType::kInt64, {nnz, r}}, {values[0].dtype(), {nnz}}, {DType::kInt64, {r}}};
}

}  // namespace opconform::generators
