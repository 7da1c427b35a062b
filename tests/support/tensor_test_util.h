// Tensor comparison helpers shared by every layer's unit tests: a flat position as a
// coordinate, an element as its string or bytes, and bit-for-bit equality that names the first
// differing coordinate.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>

#include "opconform/dtype.h"
#include "opconform/tensor.h"

namespace opconform::test_support {

// "[i,j,k]" of a flat position.
inline std::string coordinate_string(const Shape& shape, std::int64_t flat) {
  Shape c(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    c[d] = shape[d] > 0 ? flat % shape[d] : 0;
    flat = shape[d] > 0 ? flat / shape[d] : 0;
  }
  return shape_string(c);
}

// An element printed as its string or its bytes in hex.
template <class T>
std::string element_string(const T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    return "\"" + value + "\"";
  } else {
    std::ostringstream os;
    os << "0x";
    const auto* bytes = reinterpret_cast<const unsigned char*>(&value);
    static const char* kHex = "0123456789abcdef";
    for (std::size_t b = sizeof(T); b-- > 0;) os << kHex[bytes[b] >> 4] << kHex[bytes[b] & 15];
    return os.str();
  }
}

// Element k of two same-dtype tensors are equal bit for bit.
template <class T>
bool element_equal(const T* a, const T* b, std::int64_t k) {
  if constexpr (std::is_same_v<T, std::string>) return a[k] == b[k];
  else return std::memcmp(a + k, b + k, sizeof(T)) == 0;
}

// Bit-for-bit equality, and `actual` not written past its end; on failure names the first
// differing coordinate and both values.
inline ::testing::AssertionResult BitEqual(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure()
           << "dtype " << dtype_name(actual.dtype()) << " vs " << dtype_name(expected.dtype());
  if (actual.shape() != expected.shape())
    return ::testing::AssertionFailure() << "shape " << shape_string(actual.shape()) << " vs "
                                         << shape_string(expected.shape());
  if (!actual.guard_intact()) return ::testing::AssertionFailure() << "write past the end";
  return visit_dtype(actual.dtype(), [&](auto tag) -> ::testing::AssertionResult {
    using T = typename decltype(tag)::type;
    const T* a = actual.data<T>();
    const T* b = expected.data<T>();
    for (std::int64_t k = 0; k < actual.num_elements(); ++k)
      if (!element_equal(a, b, k))
        return ::testing::AssertionFailure()
               << "first difference at " << coordinate_string(actual.shape(), k) << ": "
               << element_string(a[k]) << " vs expected " << element_string(b[k]);
    return ::testing::AssertionSuccess();
  });
}

}  // namespace opconform::test_support
