// What the checks' breakers of every op share (a check's breaker breaks that one check, for
// check pairs: check_pairs.h; private to generators/): each op's breakers live in its own
// generator file, in namespace breakers, next to its check table.
#pragma once

#include <string>
#include <vector>

#include "opconform/generators/generated_case.h"
#include "opconform/generators/payload.h"

namespace opconform::generators::breakers {

inline Tensor& tensor(conformance::Case& c, const std::string& name) { return std::get<Tensor>(c.inputs.at(name)); }
inline std::vector<Tensor>& list(conformance::Case& c, const std::string& name) {
  return std::get<std::vector<Tensor>>(c.inputs.at(name));
}

// The same shape with a payload of another dtype (an index tensor's values kept between int32
// and int64).
inline Tensor retyped(const Tensor& t, DType dtype) {
  const bool index = [](DType d) { return d == DType::kInt32 || d == DType::kInt64; }(t.dtype());
  if (index && (dtype == DType::kInt32 || dtype == DType::kInt64))
    return index_tensor(dtype, t.shape(), index_values(t));
  return *gen_payload(dtype, t.shape());
}

inline DType other_dtype(DType dtype) { return *gen_dtype_among(dtypes_except({dtype})); }
inline DType non_index_dtype() { return *gen_dtype_among(dtypes_except({DType::kInt32, DType::kInt64})); }

// A member of list `name` drawn from index `first` on. Precondition: the list has more than
// `first` members.
inline Tensor& any_member(conformance::Case& c, const std::string& name, std::size_t first = 0) {
  std::vector<Tensor>& members = list(c, name);
  return members[*rc::gen::inRange<std::size_t>(first, members.size())];
}

// Breaks a list's dtype check: any member retyped to a dtype other than `dtype`; false when the
// list is empty.
inline bool member_not_of(conformance::Case& c, const std::string& name, DType dtype) {
  if (list(c, name).empty()) return false;
  Tensor& t = any_member(c, name);
  t = retyped(t, other_dtype(dtype));
  return true;
}

// Breaks a list's same-dtype check: a member after the first retyped to another dtype than the
// first's; false when the list has fewer than two members.
inline bool member_unlike_first(conformance::Case& c, const std::string& name) {
  if (list(c, name).size() < 2) return false;
  Tensor& t = any_member(c, name, 1);
  t = retyped(t, other_dtype(list(c, name)[0].dtype()));
  return true;
}

// Breaks a list's vector check: a vector member reshaped to [n, 1] or [1, n]; false when the
// drawn member is not a vector.
inline bool vector_member_made_matrix(conformance::Case& c, const std::string& name) {
  Tensor& t = any_member(c, name);
  if (t.rank() != 1) return false;
  t = reshaped(t, *rc::gen::elementOf(std::vector<Shape>{{t.dim(0), 1}, {1, t.dim(0)}}));
  return true;
}

// A fresh payload of t's dtype under `shape`; false (t unchanged) when it would be large.
inline bool reshape_fresh(Tensor& t, Shape shape) {
  const std::int64_t n = checked_num_elements(shape);
  if (n < 0 || n > 4 * kMaxCaseElements) return false;
  t = *gen_payload(t.dtype(), std::move(shape));
  return true;
}

}  // namespace opconform::generators::breakers

namespace opconform::generators::breakers {

// The reason shared by the exclusions of every op (check_pairs.h, infeasible_pairs).
inline constexpr std::string_view kNoOutput =
    "an input that fails this check has no output whose size could exceed the memory limit";

}  // namespace opconform::generators::breakers
