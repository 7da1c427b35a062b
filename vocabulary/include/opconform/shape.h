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
std::int64_t multiply_without_overflow(std::int64_t x, std::int64_t y);

// Builds a shape dim by dim as TensorShape::AddDimWithStatus does, with its messages:
//   "Expected a non-negative size, got <size>", "Too many dimensions in tensor",
//   "Encountered overflow when multiplying <num_elements> with <size>, result: <r>".
class ShapeBuilder {
 public:
  Status add_dim(std::int64_t size);
  const Shape& dims() const { return dims_; }
  std::int64_t num_elements() const { return num_elements_; }

 private:
  Shape dims_;
  std::int64_t num_elements_ = 1;
};

// Element count of a shape whose dims are all >= 0 and whose product fits in int64;
// -1 when that does not hold.
std::int64_t checked_num_elements(std::span<const std::int64_t> dims);

}  // namespace opconform
