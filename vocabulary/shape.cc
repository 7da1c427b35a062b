#include "opconform/shape.h"

#include <limits>

namespace opconform {

std::string shape_string(std::span<const std::int64_t> dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i > 0) out += ',';
    out += std::to_string(dims[i]);
  }
  out += ']';
  return out;
}

std::int64_t multiply_without_overflow(std::int64_t x, std::int64_t y) {
  if (x < 0 || y < 0) return -1;
  if (x == 0) return 0;
  const auto ux = static_cast<std::uint64_t>(x);
  const auto uy = static_cast<std::uint64_t>(y);
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(ux, uy, &product)) return -1;
  return static_cast<std::int64_t>(product);  // [2^63, 2^64) reads back negative, as in TF
}

Status ShapeBuilder::add_dim(std::int64_t size) {
  if (size < 0) return invalid_argument("Expected a non-negative size, got ", size);
  if (static_cast<int>(dims_.size()) >= kMaxDims) return invalid_argument("Too many dimensions in tensor");
  const std::int64_t product = multiply_without_overflow(num_elements_, size);
  if (product < 0)
    return invalid_argument("Encountered overflow when multiplying ", num_elements_, " with ", size,
                            ", result: ", product);
  dims_.push_back(size);
  num_elements_ = product;
  return Status();
}

std::int64_t checked_num_elements(std::span<const std::int64_t> dims) {
  std::int64_t count = 1;
  for (std::int64_t d : dims) {
    if (d < 0) return -1;
    count = multiply_without_overflow(count, d);
    if (count < 0) return -1;
  }
  return count;
}

}  // namespace opconform
