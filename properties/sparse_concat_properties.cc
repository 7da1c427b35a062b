// Properties of SparseConcat (docs/contract/sparse_concat.md): the five every op has
// (support/op_properties.h; equal-coordinate runs compare as multisets), then the page's laws,
// each checked on both layers. The expected outputs of the laws are built here from the spec.
#include <algorithm>
#include <numeric>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "opconform/generators/op_generators.h"
#include "opconform/generators/sparse_concat.h"
#include "stitch_laws.h"

namespace opconform::properties {
namespace {

using generators::SparseMode;
constexpr Op kOp = Op::kSparseConcat;

RC_GTEST_PROP(SparseConcat, DifferentialValid, ()) { differential_valid(*generators::valid_case(kOp)); }
RC_GTEST_PROP(SparseConcat, DifferentialInvalid, ()) { differential_invalid(*generators::any_invalid_case(kOp)); }
// Every feasible pair of checks broken by one input: the earlier check answers (a sweep).
TEST(SparseConcat, CheckOrderPairs) { check_order_sweep(kOp); }
RC_GTEST_PROP(SparseConcat, AllocationBound, ()) { allocation_bound(*generators::any_case(kOp)); }
RC_GTEST_PROP(SparseConcat, PoisonedOutputsAndGuards, ()) { poisoned_outputs(*generators::valid_case(kOp)); }
RC_GTEST_PROP(SparseConcat, NoAllocationBeforeAnError, ()) {
  no_allocation_before_an_error(*generators::any_invalid_case(kOp));
}
RC_GTEST_PROP(SparseConcat, Determinism, ()) {
  determinism(*rc::gen::oneOf(generators::any_case(kOp), generators::large_valid_case(kOp)),
              *generators::gen_exec_choice());
}

// One entry of an input: its coordinates (offset on the concat dim) and where its value is.
struct Entry {
  std::vector<std::int64_t> coordinate;
  std::size_t input;
  std::int64_t row;
};

// Entry i of one input becomes its entry order[i] (indices [nnz, r] int64, values [nnz]).
void reorder_entries(const std::vector<std::int64_t>& order, Tensor& indices, Tensor& values) {
  const std::int64_t r = indices.dim(1);
  Tensor new_indices(DType::kInt64, indices.shape()), new_values(values.dtype(), values.shape());
  for (std::size_t i = 0; i < order.size(); ++i) {
    copy_elements(indices, order[i] * r, new_indices, static_cast<std::int64_t>(i) * r, r);
    copy_elements(values, order[i], new_values, static_cast<std::int64_t>(i), 1);
  }
  indices = new_indices;
  values = new_values;
}

// The entries of a valid case with the concat-dim offsets applied, inputs in order.
std::vector<Entry> offset_entries(const conformance::Case& c, int* cd_out = nullptr, Shape* shape_out = nullptr) {
  const auto& indices = generators::input_list(c, "indices");
  const auto& shapes = generators::input_list(c, "shapes");
  const auto r = static_cast<int>(shapes[0].dim(0));
  const std::int64_t attr = c.attrs.at("concat_dim");
  const int cd = static_cast<int>(attr < 0 ? attr + r : attr);
  Shape shape = generators::index_values(shapes[0]);
  shape[cd] = 0;
  std::vector<Entry> entries;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::vector<std::int64_t> flat = generators::index_values(indices[k]);
    for (std::int64_t row = 0; row < indices[k].dim(0); ++row) {
      Entry e{{flat.begin() + row * r, flat.begin() + (row + 1) * r}, k, row};
      e.coordinate[cd] += shape[cd];
      entries.push_back(e);
    }
    shape[cd] += generators::index_values(shapes[k])[cd];
  }
  if (cd_out) *cd_out = cd;
  if (shape_out) *shape_out = shape;
  return entries;
}

// The outputs for `entries` in their given order.
conformance::Values sparse_outputs(const conformance::Case& c, const std::vector<Entry>& entries, const Shape& shape) {
  const auto& values = generators::input_list(c, "values");
  const auto n = static_cast<std::int64_t>(entries.size());
  const auto r = static_cast<std::int64_t>(shape.size());
  std::vector<std::int64_t> flat;
  Tensor out_values(values[0].dtype(), {n});
  for (std::int64_t i = 0; i < n; ++i) {
    flat.insert(flat.end(), entries[i].coordinate.begin(), entries[i].coordinate.end());
    copy_elements(values[entries[i].input], entries[i].row, out_values, i, 1);
  }
  return {{"output_indices", generators::index_tensor(DType::kInt64, {n, r}, flat)},
          {"output_values", out_values},
          {"output_shape", generators::index_tensor(DType::kInt64, {r}, shape)}};
}

conformance::Case expect_sparse(const conformance::Case& c, const std::vector<Entry>& entries, const Shape& shape) {
  conformance::Case e = expect_outputs(c, sparse_outputs(c, entries, shape));
  e.expected.unspecified = {conformance::PermutationWithinEqualKeys{"output_indices", "output_values"}};
  return e;
}

// All entries of all inputs, offset on the concat dim, sorted row-major; nnz adds up; the
// shape is shapes[0] with the concat dim summed. Equal coordinates: any order.
RC_GTEST_PROP(SparseConcat, SortedOffsetEntries, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat();
  Shape shape;
  std::vector<Entry> entries = offset_entries(g.c, nullptr, &shape);
  std::stable_sort(entries.begin(), entries.end(),
                   [](const Entry& a, const Entry& b) { return a.coordinate < b.coordinate; });
  const conformance::Case c = expect_sparse(g.c, entries, shape);
  for (const OpTable* layer : layers()) expect_conforms(*layer, c, {}, "sorted, offset entries of all inputs");
}

// For unique in-range coordinates: dense(SparseConcat(x)) == concatenate(dense(x_k), cd).
RC_GTEST_PROP(SparseConcat, DenseConcatenation, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat(SparseMode::kDense);
  const auto& values = generators::input_list(g.c, "values");
  const auto& indices = generators::input_list(g.c, "indices");
  const auto& shapes = generators::input_list(g.c, "shapes");
  int cd = 0;
  Shape shape;
  const std::vector<Entry> offset = offset_entries(g.c, &cd, &shape);
  const DType dtype = values[0].dtype();
  auto flat_index = [](const std::vector<std::int64_t>& at, const Shape& s) {
    std::int64_t f = 0;
    for (std::size_t j = 0; j < s.size(); ++j) f = f * s[j] + at[j];
    return f;
  };
  // The dense concatenation, built from each input's dense form: block k of the output along cd
  // is dense(x_k).
  std::vector<Tensor> dense;
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const Shape sk = generators::index_values(shapes[k]);
    Tensor d(dtype, sk);
    const std::vector<std::int64_t> flat = generators::index_values(indices[k]);
    const auto r = static_cast<std::int64_t>(sk.size());
    for (std::int64_t row = 0; row < indices[k].dim(0); ++row)
      copy_elements(values[k], row, d, flat_index({flat.begin() + row * r, flat.begin() + (row + 1) * r}, sk), 1);
    dense.push_back(d);
  }
  Tensor concatenated(dtype, shape);
  std::int64_t outer = 1, inner = 1;
  for (int j = 0; j < cd; ++j) outer *= shape[j];
  for (std::size_t j = cd + 1; j < shape.size(); ++j) inner *= shape[j];
  for (std::int64_t o = 0, at = 0; o < outer; ++o)
    for (const Tensor& d : dense) {
      const std::int64_t chunk = d.dim(cd) * inner;
      copy_elements(d, o * chunk, concatenated, at, chunk);
      at += chunk;
    }
  // The sparse form of that concatenation: occupied positions in row-major order.
  std::vector<Entry> by_position = offset;
  std::sort(by_position.begin(), by_position.end(), [&](const Entry& a, const Entry& b) {
    return flat_index(a.coordinate, shape) < flat_index(b.coordinate, shape);
  });
  const conformance::Case c = expect_sparse(g.c, by_position, shape);
  for (const OpTable* layer : layers()) {
    const conformance::Outcome o = run_valid(*layer, g.c, "SparseConcat");
    const Tensor& out_indices = std::get<Tensor>(o.outputs.at("output_indices"));
    const Tensor& out_values = std::get<Tensor>(o.outputs.at("output_values"));
    Tensor densified(dtype, shape);
    bool in_range = out_indices.rank() == 2 && out_indices.dim(1) == static_cast<std::int64_t>(shape.size()) &&
                    out_values.num_elements() == out_indices.dim(0);
    const std::vector<std::int64_t> flat = generators::index_values(out_indices);
    for (std::int64_t row = 0; in_range && row < out_indices.dim(0); ++row) {
      std::vector<std::int64_t> at(flat.begin() + row * shape.size(), flat.begin() + (row + 1) * shape.size());
      for (std::size_t j = 0; j < shape.size(); ++j) in_range = in_range && at[j] >= 0 && at[j] < shape[j];
      if (in_range) copy_elements(out_values, row, densified, flat_index(at, shape), 1);
    }
    require(in_range, c, std::string(layer->name) + ": an output coordinate lies outside the output shape");
    const conformance::Judgement same = conformance::compare_tensors(concatenated, densified, "dense(output)");
    require(same.pass, c,
            std::string(layer->name) + ": dense(SparseConcat(x)) != concatenate(dense(x_k)): " + same.detail);
  }
}

// concat_dim and concat_dim - r (or + r) name the same dim.
RC_GTEST_PROP(SparseConcat, NegativeConcatDim, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat();
  const std::int64_t r = generators::input_list(g.c, "shapes")[0].dim(0);
  conformance::Case other = g.c;
  const std::int64_t cd = g.c.attrs.at("concat_dim");
  other.attrs["concat_dim"] = cd < 0 ? cd + r : cd - r;
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outcome(other, run_valid(*layer, g.c, "SparseConcat")), {},
                    "concat_dim and concat_dim - r give the same result");
}

// concat(concat(a, b), c) == concat(a, concat(b, c)) == concat(a, b, c).
RC_GTEST_PROP(SparseConcat, Associativity, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat(SparseMode::kAny, 3);
  auto subset = [&](const conformance::Case& base, std::vector<std::size_t> members) {
    conformance::Case c = base;
    for (const char* name : {"indices", "values", "shapes"}) {
      std::vector<Tensor> list;
      for (std::size_t k : members) list.push_back(generators::input_list(base, name)[k]);
      c.inputs[name] = list;
    }
    return c;
  };
  auto with_result = [](conformance::Case c, std::size_t at, const conformance::Outcome& o) {
    auto put = [&](const char* name, const char* output) {
      std::get<std::vector<Tensor>>(c.inputs[name])[at] = std::get<Tensor>(o.outputs.at(output));
    };
    put("indices", "output_indices");
    put("values", "output_values");
    put("shapes", "output_shape");
    return c;
  };
  const conformance::Case abc = subset(g.c, {0, 1, 2});
  for (const OpTable* layer : layers()) {
    const conformance::Outcome all = run_valid(*layer, abc, "SparseConcat(a, b, c)");
    const conformance::Outcome ab = run_valid(*layer, subset(g.c, {0, 1}), "SparseConcat(a, b)");
    const conformance::Outcome bc = run_valid(*layer, subset(g.c, {1, 2}), "SparseConcat(b, c)");
    const conformance::Case left = with_result(subset(g.c, {0, 2}), 0, ab);   // (ab, c)
    const conformance::Case right = with_result(subset(g.c, {0, 1}), 1, bc);  // (a, bc)
    expect_conforms(*layer, expect_outcome(left, all), {}, "concat(concat(a, b), c) == concat(a, b, c)");
    expect_conforms(*layer, expect_outcome(right, all), {}, "concat(a, concat(b, c)) == concat(a, b, c)");
  }
}

// Reordering the entries inside each input changes nothing (up to the order of equal
// coordinates).
RC_GTEST_PROP(SparseConcat, EntryOrderIrrelevant, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat();
  conformance::Case shuffled = g.c;
  auto& indices = std::get<std::vector<Tensor>>(shuffled.inputs["indices"]);
  auto& values = std::get<std::vector<Tensor>>(shuffled.inputs["values"]);
  for (std::size_t k = 0; k < indices.size(); ++k) {
    const std::int64_t rows = indices[k].dim(0);
    std::vector<std::int64_t> order(static_cast<std::size_t>(rows));
    std::iota(order.begin(), order.end(), 0);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[*rc::gen::inRange<std::size_t>(0, i)]);
    reorder_entries(order, indices[k], values[k]);
  }
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expect_outcome(shuffled, run_valid(*layer, g.c, "SparseConcat")), {},
                    "permuting the entries inside each input changes nothing");
}

// Along dim 0, inputs that are each sorted (coordinates in range) come out appended in order.
RC_GTEST_PROP(SparseConcat, SortedInputsAlongDim0Append, ()) {
  const GeneratedCase g = *generators::valid_sparse_concat(SparseMode::kDense);
  conformance::Case c = g.c;
  const std::int64_t r = generators::input_list(g.c, "shapes")[0].dim(0);
  const std::int64_t attr = g.c.attrs.at("concat_dim");
  const std::int64_t cd = attr < 0 ? attr + r : attr;
  c.attrs["concat_dim"] = *rc::gen::arbitrary<bool>() ? 0 : -r;
  auto& indices = std::get<std::vector<Tensor>>(c.inputs["indices"]);
  auto& values = std::get<std::vector<Tensor>>(c.inputs["values"]);
  auto& shapes = std::get<std::vector<Tensor>>(c.inputs["shapes"]);
  // Move the generated concat dim to the front: coordinates stay inside their shapes.
  auto to_front = [&](std::vector<std::int64_t> v, std::int64_t columns) {
    for (std::size_t row = 0; row * columns < v.size(); ++row)
      std::rotate(v.begin() + row * columns, v.begin() + row * columns + cd, v.begin() + row * columns + cd + 1);
    return v;
  };
  for (std::size_t k = 0; k < indices.size(); ++k) {  // then sort each input's entries
    shapes[k] =
        generators::index_tensor(DType::kInt64, shapes[k].shape(), to_front(generators::index_values(shapes[k]), r));
    indices[k] =
        generators::index_tensor(DType::kInt64, indices[k].shape(), to_front(generators::index_values(indices[k]), r));
    const std::int64_t rows = indices[k].dim(0);
    const std::vector<std::int64_t> flat = generators::index_values(indices[k]);
    std::vector<std::int64_t> order(static_cast<std::size_t>(rows));
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
      return std::lexicographical_compare(flat.begin() + a * r, flat.begin() + (a + 1) * r, flat.begin() + b * r,
                                          flat.begin() + (b + 1) * r);
    });
    reorder_entries(order, indices[k], values[k]);
  }
  Shape shape;
  const std::vector<Entry> appended = offset_entries(c, nullptr, &shape);  // inputs in order
  const conformance::Case expected = expect_outputs(c, sparse_outputs(c, appended, shape));
  for (const OpTable* layer : layers())
    expect_conforms(*layer, expected, {}, "sorted inputs concatenated along dim 0 are appended in order");
}

}  // namespace
}  // namespace opconform::properties
