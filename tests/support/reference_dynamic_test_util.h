// Helpers shared by the reference DynamicStitch and DynamicPartition tests: fenced buffers for
// the whole test binary, index and float tensors, and values that differ position by position
// in every dtype. Comparison is tensor_test_util.h's BitEqual.
#pragma once

#include <gtest/gtest.h>

#include <complex>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/tensor.h"
#include "tensor_test_util.h"

namespace opconform::reference_test {

using test_support::BitEqual;

// Every buffer is fenced with a guard region (design.md: fence outputs): each output's guard is
// checked where it is returned and every freed buffer's guard at the end. The reference
// zero-fills its outputs, so the poison byte plays no part here.
class BufferCheckEnvironment : public ::testing::Environment {
 public:
  void SetUp() override { set_buffer_checks({.enabled = true}); }
  void TearDown() override {
    EXPECT_EQ(guard_violations(), 0) << "a buffer was written past its end";
    set_buffer_checks({});
  }
};
inline ::testing::Environment* const kBufferChecks =
    ::testing::AddGlobalTestEnvironment(new BufferCheckEnvironment);

inline Tensor I32(Shape shape, std::vector<std::int32_t> values) {
  return Tensor::from_values<std::int32_t>(std::move(shape), values);
}
inline Tensor F32(Shape shape, std::vector<float> values) {
  return Tensor::from_values<float>(std::move(shape), values);
}

// A value of T that differs for different i (bool: alternates). Strings are long enough to
// live on the heap, so a shallow copy would show under ASan.
template <class T>
T distinct_value(std::int64_t i) {
  if constexpr (std::is_same_v<T, bool>) {
    return i % 2 == 1;
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "string payload number " + std::to_string(i);
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    return T{static_cast<std::uint16_t>(0x3c00 + i)};
  } else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> ||
                       std::is_same_v<T, qint32>) {
    return T{static_cast<decltype(T{}.value)>(i + 1)};
  } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                       std::is_same_v<T, std::complex<double>>) {
    return T(static_cast<typename T::value_type>(i + 1), static_cast<typename T::value_type>(-i));
  } else {
    return static_cast<T>(i + 1);
  }
}

// A tensor of `dtype` whose element k holds distinct_value(first + k).
inline Tensor iota_tensor(DType dtype, Shape shape, std::int64_t first) {
  Tensor t(dtype, std::move(shape));
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = t.data<T>();
    for (std::int64_t k = 0; k < t.num_elements(); ++k) p[k] = distinct_value<T>(first + k);
  });
  return t;
}

}  // namespace opconform::reference_test
