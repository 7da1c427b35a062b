// What the ops' scalings for large_valid_case (op_generators.h) share: byte counts and the
// shape and tensor edits that take a valid case to kParallelWorkBytes of data. Private to
// generators/; each op's scaling is its OpGenerators::widen (check_generators.h).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "opconform/generators/generated_case.h"
#include "opconform/generators/op_generators.h"

namespace opconform::generators::widen {

inline std::int64_t data_bytes(const Tensor& t) {
  return t.num_elements() * static_cast<std::int64_t>(dtype_storage_size(t.dtype()));
}
inline std::int64_t data_bytes(const std::vector<Tensor>& list) {
  std::int64_t total = 0;
  for (const Tensor& t : list) total += data_bytes(t);
  return total;
}
// The factor that takes `bytes` (> 0) to kParallelWorkBytes or beyond.
inline std::int64_t widening(std::int64_t bytes) { return (kParallelWorkBytes + bytes - 1) / bytes; }

inline Shape appended(Shape shape, std::int64_t dim) {
  shape.push_back(dim);
  return shape;
}

inline Shape prepended(const Shape& shape, std::int64_t dim) {
  Shape s{dim};
  s.insert(s.end(), shape.begin(), shape.end());
  return s;
}

// [times] + t.shape: t's elements `times` times over.
inline Tensor stacked(const Tensor& t, std::int64_t times) {
  Tensor out(t.dtype(), prepended(t.shape(), times));
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::int64_t k = 0; k < times; ++k)
      std::copy_n(t.data<T>(), t.num_elements(), out.data<T>() + k * t.num_elements());
  });
  return out;
}

// The rows of the [n, r] int64 matrix m, `times` times over: as n-row blocks or row by row.
inline Tensor repeated_rows(const Tensor& m, std::int64_t times, bool row_by_row) {
  const std::int64_t n = m.dim(0), r = m.dim(1);
  Tensor out(DType::kInt64, {n * times, r});
  for (std::int64_t k = 0; k < n * times; ++k)
    std::copy_n(m.data<std::int64_t>() + (row_by_row ? k / times : k % n) * r, r, out.data<std::int64_t>() + k * r);
  return out;
}

}  // namespace opconform::generators::widen
