#include "opconform/generators/index_boundaries.h"

#include <algorithm>
#include <limits>

#include <rapidcheck.h>

#include "opconform/generators/generated_case.h"
#include "check_generators.h"

namespace opconform::generators {

int boundary_case_one_in(Op op) { return op_generators(op).boundary_case_one_in; }

std::int64_t index_dtype_max(const OpInfo& info, const IndexLike& v) {
  if (v.kind == IndexLike::Kind::kInput)
    for (const Slot& s : info.signature.inputs)
      if (s.name == v.name && s.dtype_role == "int32") return kInt32Max;
  return kInt64Max;
}

std::vector<BoundaryStatus> boundary_statuses(const OpInfo& info, const IndexLike& v) {
  std::vector<BoundaryStatus> statuses;
  const std::int64_t max = index_dtype_max(info, v);
  for (std::int64_t b : kIndexWidthBoundaries) {
    if (b > max) {
      statuses.push_back({b, false, "beyond the int32 dtype"});
      continue;
    }
    const auto excluded =
        std::find_if(v.excluded.begin(), v.excluded.end(), [b](const ExcludedBoundary& e) { return e.boundary == b; });
    if (excluded != v.excluded.end())
      statuses.push_back({b, false, std::string(excluded->why)});
    else
      statuses.push_back({b, true, {}});
  }
  return statuses;
}

std::vector<std::int64_t> reachable_boundaries(const OpInfo& info, const IndexLike& v) {
  std::vector<std::int64_t> reachable;
  for (const BoundaryStatus& s : boundary_statuses(info, v))
    if (s.reachable) reachable.push_back(s.boundary);
  return reachable;
}

std::vector<std::int64_t> index_like_values(const conformance::Case& c, const IndexLike& v) {
  std::vector<std::int64_t> values;
  if (v.kind == IndexLike::Kind::kAttr) {
    if (const auto it = c.attrs.find(std::string(v.name)); it != c.attrs.end()) values.push_back(it->second);
    return values;
  }
  const auto it = c.inputs.find(std::string(v.name));
  if (it == c.inputs.end()) return values;
  const auto add = [&values](const Tensor& t) {
    if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) return;
    const std::vector<std::int64_t> more = index_values(t);
    values.insert(values.end(), more.begin(), more.end());
  };
  if (const auto* list = std::get_if<std::vector<Tensor>>(&it->second)) {
    for (const Tensor& t : *list) add(t);
  } else {
    add(std::get<Tensor>(it->second));
  }
  return values;
}

// A uniform draw from [lo, hi) at any size (RapidCheck scales inRange's range with the size).
template <class T>
T uniform(T lo, T hi) {
  return *rc::gen::resize(rc::kNominalSize, rc::gen::inRange<T>(lo, hi));
}

std::optional<BoundaryTarget> draw_boundary_target(Op op) {
  const OpInfo& info = op_info(op);
  if (info.index_like.empty() || uniform(0, boundary_case_one_in(op)) != 0) return std::nullopt;
  const IndexLike& v = info.index_like[uniform<std::size_t>(0, info.index_like.size())];
  const std::vector<std::int64_t> reachable = reachable_boundaries(info, v);
  if (reachable.empty()) return std::nullopt;
  const std::int64_t b = reachable[uniform<std::size_t>(0, reachable.size())];
  return BoundaryTarget{v.name, b + uniform<std::int64_t>(-1, 2)};
}

}  // namespace opconform::generators
