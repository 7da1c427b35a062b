// SPDX-License-Identifier: Apache-2.0
// The dtypes of docs/contract/README.md with TensorFlow's names, their in-memory element
// types, and a visitor that turns a runtime DType into a static element type.
//
//   visit_dtype(t.dtype(), [&](auto tag) { using T = typename decltype(tag)::type; ... });
#pragma once

#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace opconform {

enum class DType : std::uint8_t {
  kFloat32,
  kFloat64,
  kFloat16,
  kBFloat16,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBool,
  kComplex64,
  kComplex128,
  kString,
  kQInt8,
  kQUInt8,
  kQInt32,
};
inline constexpr int kNumDTypes = 19;

// Element types without a native C++ type hold their bits; T{} is the zero of every dtype.
struct float16 {
  std::uint16_t bits = 0;
  friend bool operator==(float16 a, float16 b) { return a.bits == b.bits; }
};
struct bfloat16 {
  std::uint16_t bits = 0;
  friend bool operator==(bfloat16 a, bfloat16 b) { return a.bits == b.bits; }
};
struct qint8 {
  std::int8_t value = 0;
  friend bool operator==(qint8 a, qint8 b) { return a.value == b.value; }
};
struct quint8 {
  std::uint8_t value = 0;
  friend bool operator==(quint8 a, quint8 b) { return a.value == b.value; }
};
struct qint32 {
  std::int32_t value = 0;
  friend bool operator==(qint32 a, qint32 b) { return a.value == b.value; }
};

template <class T>
struct type_tag {
  using type = T;
};

template <DType D>
struct dtype_traits;
#define OPCONFORM_DTYPE(D, T)     \
  template <>                     \
  struct dtype_traits<DType::D> { \
    using type = T;               \
  };
OPCONFORM_DTYPE(kFloat32, float)
OPCONFORM_DTYPE(kFloat64, double)
OPCONFORM_DTYPE(kFloat16, float16)
OPCONFORM_DTYPE(kBFloat16, bfloat16)
OPCONFORM_DTYPE(kInt8, std::int8_t)
OPCONFORM_DTYPE(kInt16, std::int16_t)
OPCONFORM_DTYPE(kInt32, std::int32_t)
OPCONFORM_DTYPE(kInt64, std::int64_t)
OPCONFORM_DTYPE(kUInt8, std::uint8_t)
OPCONFORM_DTYPE(kUInt16, std::uint16_t)
OPCONFORM_DTYPE(kUInt32, std::uint32_t)
OPCONFORM_DTYPE(kUInt64, std::uint64_t)
OPCONFORM_DTYPE(kBool, bool)
OPCONFORM_DTYPE(kComplex64, std::complex<float>)
OPCONFORM_DTYPE(kComplex128, std::complex<double>)
OPCONFORM_DTYPE(kString, std::string)
OPCONFORM_DTYPE(kQInt8, qint8)
OPCONFORM_DTYPE(kQUInt8, quint8)
OPCONFORM_DTYPE(kQInt32, qint32)
#undef OPCONFORM_DTYPE

template <DType D>
using dtype_type = typename dtype_traits<D>::type;

// Calls f(type_tag<T>{}) with T the element type of `dtype`; returns what f returns.
template <class F>
decltype(auto) visit_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kFloat32: return f(type_tag<float>{});
    case DType::kFloat64: return f(type_tag<double>{});
    case DType::kFloat16: return f(type_tag<float16>{});
    case DType::kBFloat16: return f(type_tag<bfloat16>{});
    case DType::kInt8: return f(type_tag<std::int8_t>{});
    case DType::kInt16: return f(type_tag<std::int16_t>{});
    case DType::kInt32: return f(type_tag<std::int32_t>{});
    case DType::kInt64: return f(type_tag<std::int64_t>{});
    case DType::kUInt8: return f(type_tag<std::uint8_t>{});
    case DType::kUInt16: return f(type_tag<std::uint16_t>{});
    case DType::kUInt32: return f(type_tag<std::uint32_t>{});
    case DType::kUInt64: return f(type_tag<std::uint64_t>{});
    case DType::kBool: return f(type_tag<bool>{});
    case DType::kComplex64: return f(type_tag<std::complex<float>>{});
    case DType::kComplex128: return f(type_tag<std::complex<double>>{});
    case DType::kString: return f(type_tag<std::string>{});
    case DType::kQInt8: return f(type_tag<qint8>{});
    case DType::kQUInt8: return f(type_tag<quint8>{});
    case DType::kQInt32: return f(type_tag<qint32>{});
  }
  return f(type_tag<float>{});  // unreachable for valid enum values
}

// TensorFlow's name: "float32", "bfloat16", "string", "qint32", ...
std::string_view dtype_name(DType dtype);
std::optional<DType> dtype_from_name(std::string_view name);

// Bytes one element occupies in a Tensor's buffer (sizeof the element type; string:
// sizeof(std::string)).
std::size_t dtype_storage_size(DType dtype);

// Bytes one element counts for in memory accounting (spec README): the dtype's byte size,
// 24 for string.
std::int64_t dtype_accounting_width(DType dtype);

// All dtypes in enum order, for loops in tests and generators.
const DType* all_dtypes();  // kNumDTypes entries

}  // namespace opconform
