// Small helpers shared by the conformance unit tests.
#pragma once

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "opconform/conformance/vector.h"

namespace opconform::conformance::testing {

template <class T>
Tensor tensor(Shape shape, std::vector<T> values) {
  return Tensor::from_values<T>(std::move(shape), values);
}

inline Tensor f32_bits(Shape shape, const std::vector<std::uint32_t>& bits) {
  std::vector<float> values;
  for (std::uint32_t b : bits) values.push_back(std::bit_cast<float>(b));
  return tensor<float>(std::move(shape), values);
}

inline std::string read_text(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

}  // namespace opconform::conformance::testing
