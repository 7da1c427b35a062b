// SPDX-License-Identifier: Apache-2.0
// TensorShape facts shared by every op (spec README, "TensorShape facts"): the DebugString
// format, TensorFlow's checked multiply, and appending dims with TensorFlow's messages.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "opconform/status.h"

namespace opconform {

using Shape = std::vector<std::int64_t>;

inline constexpr int kMaxDims = 254;

// "[2,3]", "[]" for a scalar.
std::string shape_string(std::span<const std::int64_t> dims);

// TensorFlow's MultiplyWithoutOverflow: -1 if x < 0 or y < 0; 0 if x == 0; otherwise the
// unsigned 64-bit product read back as int64 (a product in [2^63, 2^64) comes back as a
// wrapped negative), or -1 if the unsigned product overflows.
// Inline: every op calls it per dim on its success path.
inline std::int64_t multiply_without_overflow(std::int64_t x, std::int64_t y) {
  if (x < 0 || y < 0) return -1;
  if (x == 0) return 0;
  const auto ux = static_cast<std::uint64_t>(x);
  const auto uy = static_cast<std::uint64_t>(y);
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(ux, uy, &product)) return -1;
  return static_cast<std::int64_t>(product);  // [2^63, 2^64) reads back negative, as in TF
}

// Builds a shape dim by dim as TensorShape::AddDimWithStatus does, with its messages:
//   "Expected a non-negative size, got <size>", "Too many dimensions in tensor",
//   "Encountered overflow when multiplying <num_elements> with <size>, result: <r>".
class ShapeBuilder {
 public:
  ShapeBuilder() = default;
  // Reserves room for `rank` dims: a shape of at most that rank is built in one allocation.
  explicit ShapeBuilder(std::size_t rank) { dims_.reserve(rank); }
  Status add_dim(std::int64_t size);
  const Shape& dims() const { return dims_; }
  // The dims, for handing the finished shape to Tensor::uninitialized_taking (no copy).
  Shape& mutable_dims() { return dims_; }
  std::int64_t num_elements() const { return num_elements_; }

 private:
  Shape dims_;
  std::int64_t num_elements_ = 1;
};

// Element count of a shape whose dims are all >= 0 and whose product fits in int64;
// -1 when that does not hold.
inline std::int64_t checked_num_elements(std::span<const std::int64_t> dims) {
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return -1;
    count = multiply_without_overflow(count, d);
    if (count < 0) return -1;
  }
  return count;
}

}  // namespace opconform
