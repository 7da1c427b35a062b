// The tensor helpers of every opconform test (namespace opconform::testing): tensors from
// values, tensors of distinct values in every dtype, bit-for-bit comparison that names the first
// differing coordinate, and status matching.
#pragma once

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::testing {

// --- Building tensors -----------------------------------------------------------------------

// A tensor of `shape` holding `values` row-major.
template <class T>
Tensor tensor(Shape shape, const std::vector<T>& values) {
  return Tensor::from_values<T>(std::move(shape), values);
}
inline Tensor i32(Shape shape, const std::vector<std::int32_t>& values) { return tensor(std::move(shape), values); }
inline Tensor i64(Shape shape, const std::vector<std::int64_t>& values) { return tensor(std::move(shape), values); }
inline Tensor f32(Shape shape, const std::vector<float>& values) { return tensor(std::move(shape), values); }

// A float32 tensor of the given bit patterns.
inline Tensor f32_bits(Shape shape, const std::vector<std::uint32_t>& bits) {
  std::vector<float> values;
  for (std::uint32_t b : bits) values.push_back(std::bit_cast<float>(b));
  return tensor<float>(std::move(shape), values);
}

// float32 1, 2, ..., n (row-major), the payload of the spec's golden examples.
inline Tensor iota_f32(Shape shape) {
  Tensor t(DType::kFloat32, std::move(shape));
  for (std::int64_t i = 0; i < t.num_elements(); ++i) t.data<float>()[i] = static_cast<float>(i + 1);
  return t;
}

// Value number i of a sequence, so that a wrong permutation, a missed write or a shallow copy
// cannot go unseen:
//  - bool alternates, true first;
//  - strings differ in text and length and all live on the heap (a shallow copy shows under ASan);
//  - other types are bit patterns (NaN payloads included for the floating types), never all
//    zero (T{}), pairwise distinct over 2^(8*width) - 1 consecutive i (every 8-byte word is a
//    bijection of i), and with distinct lowest bytes over 255 consecutive i.
template <class T>
T distinct_value(std::uint64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 2 == 0;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string payload on the heap #" + std::to_string(i) + std::string(i % 40, 'x');
  } else {
    static_assert(std::is_trivially_copyable_v<T>);
    // The first word: i taken to [1, 2^bits - 1], times an odd factor (a bijection that keeps
    // its low `bits` bits nonzero).
    constexpr std::size_t bits = 8 * (sizeof(T) < 8 ? sizeof(T) : 8);
    constexpr std::uint64_t nonzero_words = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (bits % 64)) - 1;
    std::uint64_t x = (i % nonzero_words + 1) * 0x9E3779B97F4A7C15ull;
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
    for (std::int64_t k = 0; k < t.num_elements(); ++k) p[k] = distinct_value<T>(first + static_cast<std::uint64_t>(k));
  });
  return t;
}

// --- Comparing ------------------------------------------------------------------------------

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
  if constexpr (std::is_same_v<T, std::string>)
    return a[k] == b[k];
  else
    return std::memcmp(a + k, b + k, sizeof(T)) == 0;
}

// Bit-for-bit equality, and `actual` not written past its end; on failure names the first
// differing coordinate and both values.
inline ::testing::AssertionResult BitEqual(const Tensor& actual, const Tensor& expected) {
  if (actual.dtype() != expected.dtype())
    return ::testing::AssertionFailure() << "dtype " << dtype_name(actual.dtype()) << " vs "
                                         << dtype_name(expected.dtype());
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
        return ::testing::AssertionFailure() << "first difference at " << coordinate_string(actual.shape(), k) << ": "
                                             << element_string(a[k]) << " vs expected " << element_string(b[k]);
    return ::testing::AssertionSuccess();
  });
}

// A status equals {code, message}.
inline ::testing::AssertionResult HasStatus(const Status& status, Code code, const std::string& message) {
  if (status.code() == code && status.message() == message) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << status.to_string() << ", expected " << code_name(code) << ": "
                                       << message;
}

// The InvalidArgument status with `message`.
inline Status invalid(std::string message) { return Status(Code::kInvalidArgument, std::move(message)); }

// --- Files ----------------------------------------------------------------------------------

// A file's bytes, or "" when it cannot be read.
inline std::string read_text(const std::string& path) {
  std::string text;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buffer[4096];
    for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, f)) > 0;) text.append(buffer, n);
    std::fclose(f);
  }
  return text;
}

}  // namespace opconform::testing
