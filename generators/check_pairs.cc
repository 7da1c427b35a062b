#include "opconform/generators/check_pairs.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>

#include "opconform/generators/depth_space.h"
#include "opconform/generators/op_generators.h"
#include "opconform/generators/payload.h"
#include "opconform/generators/rules.h"
#include "wide_arithmetic.h"

namespace opconform::generators {
namespace {

// A breaker breaks one rule on top of a case failing a later one; false when the case leaves
// it no room (e.g. no non-empty index list to put a bad index in).
using Breaker = std::function<bool(conformance::Case&)>;

Tensor& tensor(conformance::Case& c, const std::string& name) { return std::get<Tensor>(c.inputs.at(name)); }
std::vector<Tensor>& list(conformance::Case& c, const std::string& name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}

// The same shape with a payload of another dtype (an index tensor's values kept between int32
// and int64).
Tensor retyped(const Tensor& t, DType dtype) {
  const bool index = [](DType d) { return d == DType::kInt32 || d == DType::kInt64; }(t.dtype());
  if (index && (dtype == DType::kInt32 || dtype == DType::kInt64)) return index_tensor(dtype, t.shape(), index_values(t));
  return *gen_payload(dtype, t.shape());
}

DType other_dtype(DType dtype) { return *gen_dtype_among(dtypes_except({dtype})); }
DType non_index_dtype() { return *gen_dtype_among(dtypes_except({DType::kInt32, DType::kInt64})); }

// A member of list `name` drawn from index `first` on. Precondition: the list has more than
// `first` members.
Tensor& any_member(conformance::Case& c, const std::string& name, std::size_t first = 0) {
  std::vector<Tensor>& members = list(c, name);
  return members[*rc::gen::inRange<std::size_t>(first, members.size())];
}

// Breaks a list's dtype rule: any member retyped to a dtype other than `dtype`; false when the
// list is empty.
bool member_not_of(conformance::Case& c, const std::string& name, DType dtype) {
  if (list(c, name).empty()) return false;
  Tensor& t = any_member(c, name);
  t = retyped(t, other_dtype(dtype));
  return true;
}

// Breaks a list's same-dtype rule: a member after the first retyped to another dtype than the
// first's; false when the list has fewer than two members.
bool member_unlike_first(conformance::Case& c, const std::string& name) {
  if (list(c, name).size() < 2) return false;
  Tensor& t = any_member(c, name, 1);
  t = retyped(t, other_dtype(list(c, name)[0].dtype()));
  return true;
}

// Breaks a list's vector rule: a vector member reshaped to [n, 1] or [1, n]; false when the
// drawn member is not a vector.
bool vector_member_made_matrix(conformance::Case& c, const std::string& name) {
  Tensor& t = any_member(c, name);
  if (t.rank() != 1) return false;
  t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{t.dim(0), 1}, {1, t.dim(0)}}));
  return true;
}

// A fresh payload of t's dtype under `shape`; false (t unchanged) when it would be large.
bool reshape_fresh(Tensor& t, Shape shape) {
  const std::int64_t n = checked_num_elements(shape);
  if (n < 0 || n > 4 * kMaxCaseElements) return false;
  t = *gen_payload(t.dtype(), std::move(shape));
  return true;
}

// --- SpaceToBatchND and BatchToSpaceND -----------------------------------------------------

const char* pairs_name(Op op) { return op == Op::kSpaceToBatchND ? "paddings" : "crops"; }

// The block dims of a case whose block_shape is [m] and pairs [m, 2] (else nullopt).
struct Blocks {
  std::vector<std::int64_t> block, pairs;
  int m() const { return static_cast<int>(block.size()); }
  bool trivial(int i) const { return block[i] == 1 && pairs[2 * i] == 0 && pairs[2 * i + 1] == 0; }
  int first_nontrivial() const {
    for (int i = 0; i < m(); ++i)
      if (!trivial(i)) return i;
    return m() > 0 ? 0 : -1;
  }
  I128 product() const { return exact_product(block); }
};
std::optional<Blocks> blocks_of(conformance::Case& c) {
  const Tensor& block = tensor(c, "block_shape");
  const Tensor& pairs = tensor(c, pairs_name(c.op));
  for (const Tensor* t : {&block, &pairs})
    if (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64) return std::nullopt;
  if (block.rank() != 1 || pairs.rank() != 2 || pairs.dim(0) != block.dim(0) || pairs.dim(1) != 2) return std::nullopt;
  return Blocks{index_values(block), index_values(pairs)};
}
// Writes the block values (int64 when a value leaves int32) and the pairs (int64 always when
// `wide_pairs`).
void set_blocks(conformance::Case& c, const Blocks& b, bool wide_pairs = false) {
  const auto fits32 = [](const std::vector<std::int64_t>& v) {
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x >= kInt32Min && x <= kInt32Max; });
  };
  Tensor& block = tensor(c, "block_shape");
  Tensor& pairs = tensor(c, pairs_name(c.op));
  block = index_tensor(fits32(b.block) ? block.dtype() : DType::kInt64, {b.m()}, b.block);
  pairs = index_tensor(!wide_pairs && fits32(b.pairs) ? pairs.dtype() : DType::kInt64, {b.m(), 2}, b.pairs);
}

std::int64_t index_max(const Tensor& t) { return t.dtype() == DType::kInt32 ? kInt32Max : kInt64Max; }

// Raises block values (keeping their signs, none zero) until |product| > 2^63 - 1 + extra.
bool raise_block_product(conformance::Case& c, Blocks& b, I128 target) {
  const std::int64_t dmax = index_max(tensor(c, "block_shape"));
  const int start = *rc::gen::inRange(0, b.m());
  for (int k = 0; k < b.m(); ++k) {
    const int i = (start + k) % b.m();
    I128 others = 1;
    for (int k = 0; k < b.m(); ++k)
      if (k != i) others *= b.block[k] < 0 ? -b.block[k] : b.block[k];
    if (others >= target) return true;
    const I128 need = (target + others - 1) / others;
    const std::int64_t sign = b.block[i] < 0 ? -1 : 1;
    if (need <= dmax) {
      b.block[i] = sign * static_cast<std::int64_t>(need);
      return true;
    }
    b.block[i] = sign * dmax;
  }
  return false;
}

std::map<std::string_view, Breaker> space_batch_breakers(Op op) {
  const std::string pairs = pairs_name(op);
  const bool s2b = op == Op::kSpaceToBatchND;
  std::map<std::string_view, Breaker> b;
  b["arg-types-block-shape"] = [](conformance::Case& c) {
    tensor(c, "block_shape") = retyped(tensor(c, "block_shape"), non_index_dtype());
    return true;
  };
  b[s2b ? "arg-types-paddings" : "arg-types-crops"] = [pairs](conformance::Case& c) {
    tensor(c, pairs) = retyped(tensor(c, pairs), non_index_dtype());
    return true;
  };
  b["registration"] = [op](conformance::Case& c) {
    tensor(c, "input") = retyped(tensor(c, "input"), *gen_dtype_among(unregistered_dtypes(op)));
    return true;
  };
  b["block-shape-rank"] = [](conformance::Case& c) {
    Tensor& block = tensor(c, "block_shape");
    if (block.rank() != 1) return false;
    const std::int64_t m = block.dim(0);
    std::vector<Shape> shapes = {{1, m}, {m, 1}};
    if (m == 1) shapes.push_back({});
    block = reshaped(block, *rc::gen::elementOf(shapes));
    return true;
  };
  b["input-rank"] = [](conformance::Case& c) {
    Tensor& input = tensor(c, "input");
    const Tensor& block = tensor(c, "block_shape");
    const std::int64_t m = block.rank() == 1 ? block.dim(0) : 0;
    if (input.rank() <= m) return false;
    const auto rank = static_cast<std::size_t>(*rc::gen::inRange<std::int64_t>(0, m + 1));
    const Shape shape(input.shape().begin(), input.shape().begin() + static_cast<std::ptrdiff_t>(rank));
    return reshape_fresh(input, shape);
  };
  b[s2b ? "paddings-shape" : "crops-shape"] = [pairs](conformance::Case& c) {
    Tensor& t = tensor(c, pairs);
    if (t.rank() != 2) return false;
    const std::int64_t m = t.dim(0);
    t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{m, 2, 1}, {1, m, 2}, {2 * m}}));
    return true;
  };
  if (s2b) {
    b["block-positive"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl || bl->m() == 0) return false;
      const int i = *rc::gen::inRange(0, bl->m());
      bl->block[i] = bl->block[i] > 0 && *rc::gen::arbitrary<bool>() ? -bl->block[i] : 0;
      set_blocks(c, *bl);
      return true;
    };
    b["block-product"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl || bl->m() < 2 || bl->product() <= 0) return false;
      if (!raise_block_product(c, *bl, kTwoPow63)) return false;
      set_blocks(c, *bl);
      return true;
    };
  } else {
    b["block-product-overflow"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl || bl->m() < 2 || bl->product() == 0) return false;
      if (!raise_block_product(c, *bl, kTwoPow63 + 1)) return false;
      set_blocks(c, *bl);
      return true;
    };
    b["block-product-positive"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl || bl->m() == 0) return false;
      bl->block[*rc::gen::inRange(0, bl->m())] = 0;
      set_blocks(c, *bl);
      return true;
    };
    b["batch-divisible"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      Tensor& input = tensor(c, "input");
      if (!bl || input.rank() == 0 || bl->product() < 2 || bl->product() > kInt64Max) return false;
      Shape shape = input.shape();
      shape[0] += 1;
      return reshape_fresh(input, shape);
    };
  }
  // Five more block dims of block 2 and size 0 after the others: more than four internal dims.
  b["max-internal-dims"] = [s2b](conformance::Case& c) {
    auto bl = blocks_of(c);
    Tensor& input = tensor(c, "input");
    if (!bl || input.rank() < bl->m() + 1) return false;
    Shape shape = input.shape();
    for (int k = 0; k < 5; ++k) {
      bl->block.push_back(2);
      bl->pairs.insert(bl->pairs.end(), {0, 0});
      shape.insert(shape.begin() + 1 + bl->m() - 1, 0);
    }
    if (!s2b) {
      if (shape[0] > kInt64Max / 32) return false;
      shape[0] *= 32;
    }
    set_blocks(c, *bl);
    return reshape_fresh(input, shape);
  };
  if (s2b) {
    // B * P overflows; the input stays empty (a dim of size 0 after the batch).
    b["batch-overflow"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      Tensor& input = tensor(c, "input");
      if (!bl || input.rank() < 1) return false;
      const I128 p = bl->product();
      if (p < 2 || p > kInt64Max) return false;
      Shape shape = input.shape();
      if (std::find(shape.begin() + 1, shape.end(), 0) == shape.end()) shape.push_back(0);
      shape[0] = draw_edge(static_cast<std::int64_t>((kTwoPow63 + p - 1) / p), kInt64Max);
      return reshape_fresh(input, shape);
    };
    // Two leading trivial dims, of sizes s and 0: the output's element count overflows at s,
    // before any internal dim is looked at; the input stays empty.
    b["output-shape-overflow"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      Tensor& input = tensor(c, "input");
      if (!bl || input.rank() < bl->m() + 1) return false;
      const I128 p = bl->product();
      if (p < 2 || p > kInt64Max) return false;
      Shape shape = input.shape();
      shape[0] = std::max<std::int64_t>(shape[0], 1);
      const I128 batch_out = static_cast<I128>(shape[0]) * p;
      if (batch_out >= kTwoPow63) return false;
      const I128 lo = (kTwoPow63 + batch_out - 1) / batch_out, hi = (kTwoPow63 - 1) / shape[0];
      if (lo > hi) return false;
      const std::int64_t s = draw_edge(static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi));
      shape.insert(shape.begin() + 1, {s, 0});
      bl->block.insert(bl->block.begin(), {1, 1});
      bl->pairs.insert(bl->pairs.begin(), {0, 0, 0, 0});
      set_blocks(c, *bl);
      return reshape_fresh(input, shape);
    };
  }
  // The per-dim checks: broken at the first internal dim, which is checked first.
  b[s2b ? "paddings-negative" : "crops-negative"] = [](conformance::Case& c) {
    auto bl = blocks_of(c);
    if (!bl || bl->m() == 0) return false;
    const int i = bl->first_nontrivial();
    bl->pairs[2 * i + *rc::gen::inRange(0, 2)] = -*rc::gen::inRange<std::int64_t>(1, 3);
    set_blocks(c, *bl);
    return true;
  };
  if (s2b) {
    b["padded-overflow"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      const Tensor& input = tensor(c, "input");
      if (!bl || bl->m() == 0 || input.rank() < bl->m() + 1) return false;
      const int i = bl->first_nontrivial();
      if (input.dim(1 + i) + bl->pairs[2 * i] == 0) bl->pairs[2 * i] = 1;
      bl->pairs[2 * i + 1] = kInt64Max;
      set_blocks(c, *bl, true);
      return true;
    };
    b["divisibility"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl) return false;
      for (int i = 0; i < bl->m(); ++i) {
        if (bl->block[i] < 2 || bl->pairs[2 * i + 1] == kInt64Max) continue;
        bl->pairs[2 * i + 1] += 1;
        set_blocks(c, *bl);
        return true;
      }
      return false;
    };
  } else {
    b["cropped-overflow"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      if (!bl || bl->m() == 0) return false;
      const int i = bl->first_nontrivial();
      bl->pairs[2 * i] = bl->pairs[2 * i + 1] = kInt64Max;
      set_blocks(c, *bl, true);
      return true;
    };
    b["cropped-negative"] = [](conformance::Case& c) {
      auto bl = blocks_of(c);
      const Tensor& input = tensor(c, "input");
      if (!bl || bl->m() == 0 || input.rank() < bl->m() + 1) return false;
      const int i = bl->first_nontrivial();
      const I128 end = static_cast<I128>(input.dim(1 + i)) * bl->block[i] - bl->pairs[2 * i] + 1;
      if (end < 0 || end > kInt64Max) return false;
      bl->pairs[2 * i + 1] = static_cast<std::int64_t>(end);
      set_blocks(c, *bl);
      return true;
    };
  }
  return b;
}

// --- DynamicStitch and ParallelDynamicStitch -----------------------------------------------

std::map<std::string_view, Breaker> stitch_breakers() {
  std::map<std::string_view, Breaker> b;
  b["arg-types-indices"] = [](conformance::Case& c) { return member_not_of(c, "indices", DType::kInt32); };
  b["arg-types-data"] = [](conformance::Case& c) { return member_unlike_first(c, "data"); };
  b["attr-n"] = [](conformance::Case& c) {
    list(c, "indices").clear();
    return !list(c, "data").empty();
  };
  b["list-length"] = [](conformance::Case& c) {
    auto& data = list(c, "data");
    if (data.empty()) return false;
    data.push_back(data.back().clone());
    return true;
  };
  // A negative index where the largest index is not the only one (the output size stays).
  b["index-range"] = [](conformance::Case& c) {
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
  };
  b["data-shape-prefix"] = [](conformance::Case& c) {
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
  };
  b["trailing-shape"] = [](conformance::Case& c) {
    if (list(c, "data").size() < 2) return false;
    Tensor& t = any_member(c, "data", 1);
    Shape shape = t.shape();
    shape.push_back(1);
    t = reshaped(t, shape);
    return true;
  };
  return b;
}

// --- DynamicPartition ----------------------------------------------------------------------

std::map<std::string_view, Breaker> partition_breakers() {
  std::map<std::string_view, Breaker> b;
  b["arg-types"] = [](conformance::Case& c) {
    tensor(c, "partitions") = retyped(tensor(c, "partitions"), other_dtype(DType::kInt32));
    return true;
  };
  b["num-partitions-min"] = [](conformance::Case& c) {
    c.attrs["num_partitions"] = *rc::gen::element<std::int64_t>(0, -1, kInt32Min, kInt64Min);
    return true;
  };
  b["registration"] = [](conformance::Case& c) {
    tensor(c, "data") = retyped(tensor(c, "data"), *gen_dtype_among(unregistered_dtypes(Op::kDynamicPartition)));
    return true;
  };
  b["num-partitions-int32"] = [](conformance::Case& c) {
    c.attrs["num_partitions"] = draw_edge(kInt32Max + 1, kInt64Max);
    return true;
  };
  b["shape-prefix"] = [](conformance::Case& c) {
    Tensor& data = tensor(c, "data");
    if (tensor(c, "partitions").rank() == 0 || data.rank() == 0) return false;
    Shape shape = data.shape();
    shape[0] = shape[0] > 0 && *rc::gen::arbitrary<bool>() ? shape[0] - 1 : shape[0] + 1;
    return reshape_fresh(data, shape);
  };
  b["partition-range"] = [](conformance::Case& c) {
    Tensor& partitions = tensor(c, "partitions");
    const std::int64_t n = c.attrs.at("num_partitions");
    if (partitions.dtype() != DType::kInt32 || partitions.num_elements() == 0) return false;
    const std::int64_t bad = n <= kInt32Max && *rc::gen::arbitrary<bool>() ? n : -1;
    partitions.data<std::int32_t>()[*rc::gen::inRange<std::int64_t>(0, partitions.num_elements())] =
        static_cast<std::int32_t>(bad);
    return true;
  };
  return b;
}

// --- SparseConcat --------------------------------------------------------------------------

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

std::map<std::string_view, Breaker> sparse_concat_breakers() {
  std::map<std::string_view, Breaker> b;
  b["arg-types-indices"] = [](conformance::Case& c) { return member_not_of(c, "indices", DType::kInt64); };
  b["arg-types-values"] = [](conformance::Case& c) { return member_unlike_first(c, "values"); };
  b["arg-types-shapes"] = [](conformance::Case& c) { return member_not_of(c, "shapes", DType::kInt64); };
  // N = 1: the same number of members dropped from the end of every list.
  b["attr-n"] = [](conformance::Case& c) {
    const std::size_t drop = list(c, "indices").size() - 1;
    for (const char* name : {"indices", "values", "shapes"}) {
      auto& l = list(c, name);
      if (l.size() <= drop) return false;
      l.resize(l.size() - drop);
    }
    return true;
  };
  b["list-length-values"] = [](conformance::Case& c) {
    auto& values = list(c, "values");
    values.push_back(values.back().clone());
    return true;
  };
  b["list-length-shapes"] = [](conformance::Case& c) {
    auto& shapes = list(c, "shapes");
    shapes.push_back(shapes.back().clone());
    return true;
  };
  b["concat-dim-int32"] = [](conformance::Case& c) {
    c.attrs["concat_dim"] = *rc::gen::arbitrary<bool>() ? draw_edge(kInt32Max + 1, kInt64Max)
                                                         : draw_edge(kInt64Min, kInt32Min - 1);
    return true;
  };
  b["registration"] = [](conformance::Case& c) {
    const DType dtype = *gen_dtype_among(unregistered_dtypes(Op::kSparseConcat));
    for (Tensor& t : list(c, "values")) t = retyped(t, dtype);
    return true;
  };
  b["indices-matrix"] = [](conformance::Case& c) {
    Tensor& t = any_member(c, "indices");
    if (t.rank() != 2) return false;
    t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{t.num_elements()}, {t.dim(0), t.dim(1), 1}}));
    return true;
  };
  b["values-vector"] = [](conformance::Case& c) { return vector_member_made_matrix(c, "values"); };
  b["shapes-vector"] = [](conformance::Case& c) { return vector_member_made_matrix(c, "shapes"); };
  b["shape-overflow"] = [](conformance::Case& c) {
    Tensor& t = any_member(c, "shapes");
    auto v = shape_values(t);
    if (!v || v->empty()) return false;
    (*v)[*rc::gen::inRange<std::size_t>(0, v->size())] = -*rc::gen::inRange<std::int64_t>(1, 3);
    t = index_tensor(DType::kInt64, t.shape(), *v);
    return true;
  };
  // 255 dims: shapes[0] (checked before the concat dim) or a later member (checked first in
  // its turn of step 8).
  b["too-many-dims"] = [](conformance::Case& c) {
    auto& shapes = list(c, "shapes");
    const std::size_t k = *rc::gen::arbitrary<bool>() ? 0 : *rc::gen::inRange<std::size_t>(0, shapes.size());
    auto v = shape_values(shapes[k]);
    if (!v) return false;
    v->resize(std::max<std::size_t>(v->size(), 255), 1);
    shapes[k] = index_tensor(DType::kInt64, {static_cast<std::int64_t>(v->size())}, *v);
    return true;
  };
  b["concat-dim-range"] = [](conformance::Case& c) {
    auto v = shape_values(list(c, "shapes")[0]);
    if (!v) return false;
    const auto r = static_cast<std::int64_t>(v->size());
    c.attrs["concat_dim"] = *rc::gen::arbitrary<bool>() ? draw_edge(r, kInt32Max) : draw_edge(kInt32Min, -r - 1);
    return true;
  };
  b["rank-match"] = [](conformance::Case& c) {
    if (list(c, "shapes").size() < 2) return false;
    Tensor& t = any_member(c, "shapes", 1);
    auto v = shape_values(t);
    if (!v) return false;
    if (!v->empty() && *rc::gen::arbitrary<bool>()) v->pop_back();
    else v->push_back(1);
    t = index_tensor(DType::kInt64, {static_cast<std::int64_t>(v->size())}, *v);
    return true;
  };
  b["shape-match"] = [](conformance::Case& c) {
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
  };
  // The concat-dim sum passes 2^63 - 1 at the first member with a non-zero sum before it.
  b["concat-size-overflow"] = [](conformance::Case& c) {
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
  };
  // The concat-dim sizes of members 0 and 1 set so each member's own element count fits but the
  // output's, counted after member 1, passes 2^63 - 1 (the other dims, shared, multiply to >= 2).
  b["output-shape-overflow"] = [](conformance::Case& c) {
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
  };
  // Two members with 2^62 rows of zero columns: the total passes 2^63 - 1.
  b["total-nnz-overflow"] = [](conformance::Case& c) {
    auto& indices = list(c, "indices");
    if (indices.size() < 2) return false;
    const std::size_t k = *rc::gen::inRange<std::size_t>(0, indices.size() - 1);
    for (std::size_t i : {k, k + 1}) indices[i] = Tensor(DType::kInt64, {std::int64_t{1} << 62, 0});
    return true;
  };
  // Checked per member in order: broken in member 0, whose turn comes first.
  b["rows-match"] = [](conformance::Case& c) {
    Tensor& values = list(c, "values")[0];
    if (values.rank() != 1) return false;
    return reshape_fresh(values, {values.dim(0) + 1});
  };
  b["order-length"] = [](conformance::Case& c) {
    Tensor& indices = list(c, "indices")[0];
    if (indices.dtype() != DType::kInt64 || indices.rank() != 2) return false;
    Tensor wider(DType::kInt64, {indices.dim(0), indices.dim(1) + 1});
    for (std::int64_t row = 0; row < indices.dim(0); ++row)
      for (std::int64_t col = 0; col < indices.dim(1); ++col)
        wider.data<std::int64_t>()[row * (indices.dim(1) + 1) + col] = indices.data<std::int64_t>()[row * indices.dim(1) + col];
    indices = std::move(wider);
    return true;
  };
  b["index-offset-overflow"] = [](conformance::Case& c) {
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
  };
  return b;
}

std::map<std::string_view, Breaker> breakers(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND:
    case Op::kBatchToSpaceND: return space_batch_breakers(op);
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: return stitch_breakers();
    case Op::kDynamicPartition: return partition_breakers();
    case Op::kSparseConcat: return sparse_concat_breakers();
    case Op::kSpaceToDepth:
    case Op::kDepthToSpace: return depth_space_breakers(op);
  }
  return {};
}

const std::map<std::string_view, Breaker>& cached_breakers(Op op) {
  static const auto all = [] {
    std::array<std::map<std::string_view, Breaker>, kNumOps> a;
    for (Op o : kAllOps) a[static_cast<int>(o)] = breakers(o);
    return a;
  }();
  return all[static_cast<int>(op)];
}

// Pairs no single input breaks together, by reason. "*" stands for every later rule.
struct Exclusion {
  std::string_view first, second, why;
};
constexpr std::string_view kNonZeroDepth =
    "a depth that b*b does not divide is not 0, so the input would hold the 2^63 / b^2 elements the overflow needs";
constexpr std::string_view kNoOutput =
    "an input that fails this check has no output whose size could exceed the memory limit";
constexpr std::string_view kOneInput = "with N = 1 there is no second member or offset for this check to look at";
constexpr std::string_view kSameAttr = "both checks bound the same attr from opposite sides";
constexpr std::string_view kNoShape =
    "once the concat-dim sum overflows there is no output shape whose element count could overflow";
constexpr std::string_view kNoIndices = "with N = 0 there is no indices tensor to have a wrong type";
constexpr std::string_view kNoLists = "with N = 0 there are no indices or data left for this check to look at";

std::vector<Exclusion> exclusions(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND:
      return {{"output-shape-overflow", "memory-limit", kNoOutput}, {"padded-overflow", "memory-limit", kNoOutput},
              {"batch-overflow", "memory-limit", kNoOutput}};
    case Op::kBatchToSpaceND:
      return {{"block-product-overflow", "memory-limit", kNoOutput}, {"cropped-overflow", "memory-limit", kNoOutput}};
    case Op::kDynamicStitch:
    case Op::kParallelDynamicStitch: {
      std::vector<Exclusion> e = {{"output-shape-overflow", "memory-limit", kNoOutput},
                                  {"arg-types-indices", "attr-n", kNoIndices}};
      for (std::string_view later : {"index-range", "data-shape-prefix", "trailing-shape", "output-shape-overflow",
                                     "memory-limit"})
        e.push_back({"attr-n", later, kNoLists});
      return e;
    }
    case Op::kDynamicPartition:
      return {{"num-partitions-min", "num-partitions-int32", kSameAttr}, {"num-partitions-min", "memory-limit", kNoOutput}};
    case Op::kSparseConcat: {
      std::vector<Exclusion> e;
      for (std::string_view later : {"rank-match", "shape-match", "concat-size-overflow", "output-shape-overflow",
                                     "total-nnz-overflow", "index-offset-overflow", "memory-limit"})
        e.push_back({"attr-n", later, kOneInput});
      for (std::string_view first : {"concat-size-overflow", "output-shape-overflow", "total-nnz-overflow", "shape-overflow"})
        e.push_back({first, "memory-limit", kNoOutput});
      e.push_back({"concat-size-overflow", "output-shape-overflow", kNoShape});
      return e;
    }
    case Op::kSpaceToDepth: return {{"output-dims", "memory-limit", kNoOutput}};
    case Op::kDepthToSpace:
      return {{"output-dims", "memory-limit", kNoOutput}, {"output-shape-overflow", "memory-limit", kNoOutput},
              {"divisibility", "output-shape-overflow", kNonZeroDepth}};
  }
  return {};
}

}  // namespace

std::vector<InfeasiblePair> infeasible_pairs(Op op) {
  std::vector<InfeasiblePair> out;
  for (const Exclusion& e : exclusions(op)) out.push_back({{e.first, e.second}, e.why});
  return out;
}

std::vector<CheckPair> feasible_pairs(Op op) {
  const std::span<const Rule> rules = rules_of(op);
  const std::vector<Exclusion> excluded = exclusions(op);
  std::vector<CheckPair> out;
  for (std::size_t a = 0; a < rules.size(); ++a)
    for (std::size_t b = a + 1; b < rules.size(); ++b) {
      const bool skip = std::any_of(excluded.begin(), excluded.end(), [&](const Exclusion& e) {
        return e.first == rules[a].id && e.second == rules[b].id;
      });
      if (!skip) out.push_back({rules[a].id, rules[b].id});
    }
  return out;
}

rc::Gen<GeneratedCase> pair_case(Op op, CheckPair pair) {
  return rc::gen::exec([op, pair] {
    const auto& all = cached_breakers(op);
    const auto breaker = all.find(pair.first);
    if (breaker == all.end()) throw rc::GenerationFailure("no breaker for " + std::string(pair.first));
    GeneratedCase g = *invalid_case(op, pair.second);
    if (!breaker->second(g.c)) throw rc::GenerationFailure("no room to break " + std::string(pair.first));
    g.rule = std::string(pair.first);
    g.also_breaks = std::string(pair.second);
    return g;
  });
}

rc::Gen<GeneratedCase> any_pair_case(Op op) {
  return rc::gen::mapcat(rc::gen::elementOf(feasible_pairs(op)), [op](CheckPair p) { return pair_case(op, p); });
}

std::optional<rc::Shrinkable<GeneratedCase>> find_pair_case(Op op, CheckPair pair, rc::Random& random, int size,
                                                            int attempts,
                                                            const std::function<bool(const GeneratedCase&)>& hit,
                                                            const std::function<bool()>& stop) {
  const rc::Gen<GeneratedCase> gen = pair_case(op, pair);
  for (int attempt = 0; attempt < attempts && !(stop && stop()); ++attempt) {
    std::optional<rc::Shrinkable<GeneratedCase>> drawn;
    std::optional<GeneratedCase> g;
    try {
      drawn = gen(random.split(), size);
      g = drawn->value();
    } catch (const std::exception&) {
      continue;  // no room for the earlier check on this drawing
    }
    if (hit(*g)) return drawn;
  }
  return std::nullopt;
}

std::uint64_t pair_sweep_seed() {
  const char* seed = std::getenv("OPCONFORM_PAIR_SEED");
  return seed && *seed ? std::strtoull(seed, nullptr, 10) : 1;
}

}  // namespace opconform::generators
