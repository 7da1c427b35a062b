#include "opconform/validator/shrink.h"

#include <algorithm>

#include "opconform/op_registry.h"

namespace opconform::validator {

namespace {

using conformance::Case;
using conformance::Value;

// An index-like input of the op (OpInfo::index_like): its values index or size something, so
// the shrinker never zeroes them as it does data.
bool is_index_input(Op op, const std::string& name) {
  const std::span<const IndexLike> index_like = op_info(op).index_like;
  return std::any_of(index_like.begin(), index_like.end(), [&](const IndexLike& value) {
    return value.kind == IndexLike::Kind::kInput && value.name == name;
  });
}

// The tensor `name` (member `member` of a list, or the tensor itself when member < 0).
Tensor* tensor_at(Case& c, const std::string& name, int member) {
  Value& v = c.inputs.at(name);
  if (member < 0) return std::get_if<Tensor>(&v);
  auto* list = std::get_if<std::vector<Tensor>>(&v);
  return list && member < static_cast<int>(list->size()) ? &(*list)[member] : nullptr;
}

struct Ref {
  std::string name;
  int member;  // -1: not a list
};

std::vector<Ref> tensor_refs(const Case& c) {
  std::vector<Ref> refs;
  for (const auto& [name, value] : c.inputs) {
    if (std::holds_alternative<Tensor>(value))
      refs.push_back({name, -1});
    else
      for (std::size_t i = 0; i < std::get<std::vector<Tensor>>(value).size(); ++i)
        refs.push_back({name, static_cast<int>(i)});
  }
  return refs;
}

// Inputs whose dim 0 runs in step (the registry's dim0_pairs: stitch indices[m]/data[m],
// partition data/partitions, SparseConcat indices[i] rows/values[i]) for member m.
std::vector<std::pair<Ref, Ref>> dim0_pairs(const Case& c) {
  std::vector<std::pair<Ref, Ref>> pairs;
  for (const auto& [a, b] : op_info(c.op).dim0_pairs) {
    auto ia = c.inputs.find(std::string(a)), ib = c.inputs.find(std::string(b));
    if (ia == c.inputs.end() || ib == c.inputs.end()) continue;
    const auto* la = std::get_if<std::vector<Tensor>>(&ia->second);
    const auto* lb = std::get_if<std::vector<Tensor>>(&ib->second);
    if (!la && !lb) pairs.push_back({{std::string(a), -1}, {std::string(b), -1}});
    if (!la || !lb) continue;
    for (int m = 0; m < static_cast<int>(std::min(la->size(), lb->size())); ++m)
      pairs.push_back({{std::string(a), m}, {std::string(b), m}});
  }
  return pairs;
}

bool is_zero(const Tensor& t) { return t.bit_equal(Tensor(t.dtype(), t.shape())); }

}  // namespace

Tensor prefix_along(const Tensor& t, int d, std::int64_t n) {
  Shape shape = t.shape();
  const std::int64_t old = shape[d];
  shape[d] = n;
  Tensor out(t.dtype(), shape);
  if (out.num_elements() == 0) return out;  // nothing to copy; the other dims may be huge
  std::int64_t outer = 1, inner = 1;
  for (int i = 0; i < d; ++i) outer *= t.dim(i);
  for (int i = d + 1; i < t.rank(); ++i) inner *= t.dim(i);
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* src = t.data<T>();
    T* dst = out.data<T>();
    for (std::int64_t o = 0; o < outer; ++o) std::copy_n(src + o * old * inner, n * inner, dst + o * n * inner);
  });
  return out;
}

std::vector<Case> shrink_candidates(const Case& c) {
  std::vector<Case> out;
  // 1. Drop list position k from every list input that has it.
  std::size_t longest = 0;
  for (const auto& [name, value] : c.inputs)
    if (auto* list = std::get_if<std::vector<Tensor>>(&value)) longest = std::max(longest, list->size());
  for (std::size_t k = 0; k < longest; ++k) {
    Case x = c;
    for (auto& [name, value] : x.inputs)
      if (auto* list = std::get_if<std::vector<Tensor>>(&value); list && k < list->size())
        list->erase(list->begin() + static_cast<std::ptrdiff_t>(k));
    out.push_back(std::move(x));
  }
  // 2. Shrink dims: paired dim 0 first, then each tensor's dims alone (to 0, half, minus one).
  auto smaller = [](std::int64_t size) {
    std::vector<std::int64_t> sizes = {0, size / 2, size - 1};
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [&](std::int64_t s) { return s < 0 || s >= size; }),
                sizes.end());
    return sizes;
  };
  for (const auto& [a, b] : dim0_pairs(c)) {
    Case probe = c;
    const Tensor* ta = tensor_at(probe, a.name, a.member);
    const Tensor* tb = tensor_at(probe, b.name, b.member);
    if (!ta || !tb || ta->rank() == 0 || tb->rank() == 0 || ta->dim(0) != tb->dim(0)) continue;
    for (std::int64_t n : smaller(ta->dim(0))) {
      Case x = c;
      *tensor_at(x, a.name, a.member) = prefix_along(*ta, 0, n);
      *tensor_at(x, b.name, b.member) = prefix_along(*tb, 0, n);
      out.push_back(std::move(x));
    }
  }
  for (const Ref& r : tensor_refs(c)) {
    Case probe = c;
    const Tensor* t = tensor_at(probe, r.name, r.member);
    for (int d = 0; t && d < t->rank(); ++d)
      for (std::int64_t n : smaller(t->dim(d))) {
        Case x = c;
        *tensor_at(x, r.name, r.member) = prefix_along(*t, d, n);
        out.push_back(std::move(x));
      }
  }
  // 3. Zero each data tensor.
  for (const Ref& r : tensor_refs(c)) {
    if (is_index_input(c.op, r.name)) continue;
    Case x = c;
    Tensor* t = tensor_at(x, r.name, r.member);
    if (!t || t->num_elements() == 0 || is_zero(*t)) continue;
    *t = Tensor(t->dtype(), t->shape());
    out.push_back(std::move(x));
  }
  return out;
}

Case shrink_case(Case c, const std::function<bool(const Case&)>& still_fails, int max_runs, int* steps) {
  *steps = 0;
  int runs = 0;
  bool progress = true;
  while (progress && runs < max_runs) {
    progress = false;
    for (Case& candidate : shrink_candidates(c)) {
      if (runs++ >= max_runs) break;
      if (still_fails(candidate)) {
        c = std::move(candidate);
        ++*steps;
        progress = true;
        break;
      }
    }
  }
  return c;
}

}  // namespace opconform::validator
