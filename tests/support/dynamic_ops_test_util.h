// Helpers shared by the optimized DynamicStitch, DynamicPartition and SparseConcat tests:
// tensors with distinct bit patterns, bit-for-bit comparison naming the first differing
// coordinate, the dtype list of the tile-boundary matrix, and poisoned, fenced outputs.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::test_util {

// Poisons every uninitialised output and fences every buffer for the whole test binary, so an
// element a kernel forgot shows up in comparisons and a write past the end is caught.
inline const bool kBufferChecksEnabled = [] {
  set_buffer_checks({.enabled = true, .poison_byte = 0xA5, .guard_bytes = 64});
  return true;
}();

// One dtype per element width (1, 2, 4, 8, 16 bytes), bool and string.
inline const std::vector<DType> kMatrixDtypes = {DType::kInt8,       DType::kFloat16,
                                                 DType::kFloat32,    DType::kInt64,
                                                 DType::kComplex128, DType::kBool,
                                                 DType::kString};

// Value number i of a sequence: distinct bit patterns (NaN payloads and -0.0 included for the
// floating types), alternating for bool, heap-allocated strings.
template <class T>
T distinct_value(std::uint64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return (i & 1) != 0;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "payload string that lives on the heap #" + std::to_string(i);
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    std::uint64_t x = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;  // a bijection of i
    unsigned char bytes[sizeof(T)];
    for (std::size_t b = 0; b < sizeof(T); ++b) {
      if (b % 8 == 0 && b > 0) x = x * 0xD1B54A32D192ED03ull + 1;
      bytes[b] = static_cast<unsigned char>(x >> (8 * (b % 8)));
    }
    T value;
    std::memcpy(&value, bytes, sizeof(T));
    return value;
  }
}

// A tensor whose element k holds distinct_value(first + k).
inline Tensor distinct_tensor(DType dtype, Shape shape, std::uint64_t first = 0) {
  Tensor t(dtype, std::move(shape));
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (std::int64_t k = 0; k < t.num_elements(); ++k)
      p[k] = distinct_value<T>(first + static_cast<std::uint64_t>(k));
  });
  return t;
}

inline Tensor I32(Shape shape, const std::vector<std::int32_t>& values) {
  return Tensor::from_values<std::int32_t>(std::move(shape), values);
}
inline Tensor I64(Shape shape, const std::vector<std::int64_t>& values) {
  return Tensor::from_values<std::int64_t>(std::move(shape), values);
}

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

// Bit-for-bit equality; on failure names the first differing coordinate and both values.
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

// A status equals {code, message}.
inline ::testing::AssertionResult HasStatus(const Status& status, Code code,
                                           const std::string& message) {
  if (status.code() == code && status.message() == message) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << status.to_string() << ", expected "
                                       << code_name(code) << ": " << message;
}

// The thread counts every kernel is driven with.
inline const std::vector<int> kThreadCounts = {1, 2, 3, 7};

}  // namespace opconform::test_util
