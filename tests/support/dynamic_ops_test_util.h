// Helpers shared by the optimized DynamicStitch, DynamicPartition and SparseConcat tests:
// tensors with distinct bit patterns, bit-for-bit comparison (tensor_test_util.h), the dtype
// list of the tile-boundary matrix, and poisoned, fenced outputs.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/status.h"
#include "opconform/tensor.h"
#include "tensor_test_util.h"

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

using test_support::BitEqual;
using test_support::coordinate_string;
using test_support::element_equal;
using test_support::element_string;

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
