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

}  // namespace opconform
