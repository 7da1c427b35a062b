// SPDX-License-Identifier: Apache-2.0
// Dense and sparse tensors: int64 dims, a row-major contiguous buffer of any dtype.
//
// Copies share the buffer (as TensorFlow's Tensor does); clone() makes a deep copy. A buffer
// is 64-byte aligned and value-initialised (T{}: zero, false, or the empty string).
//
//   Tensor t = Tensor::from_values<float>({2, 2}, {1, 2, 3, 4});
//   float* p = t.data<float>();
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/shape.h"

namespace opconform {

// The DType whose element type is T (int8_t -> kInt8, qint8 -> kQInt8, ...).
template <class T>
constexpr DType dtype_of();

class Tensor {
 public:
  // An empty float32 vector, shape [0].
  Tensor() : Tensor(DType::kFloat32, Shape{0}) {}

  // Allocates a value-initialised buffer. Precondition: every dim >= 0 and the element count
  // fits in int64 (checked; std::length_error otherwise). Ops call this only after
  // validation and memory accounting.
  Tensor(DType dtype, Shape shape);

  // As Tensor(dtype, shape), but a trivially copyable dtype's buffer is left uninitialised
  // (strings are still default-constructed). Only for kernels that then write every element:
  // it saves the zero-fill pass that would double their memory traffic.
  static Tensor uninitialized(DType dtype, Shape shape);
  // As uninitialized(dtype, *shape), taking *shape's dims without a copy only when it
  // succeeds: on an exception (std::bad_alloc, std::length_error) *shape is left as it was, so
  // the caller can still name it in its error.
  static Tensor uninitialized_taking(DType dtype, Shape* shape);

  template <class T>
  static Tensor from_values(Shape shape, const std::vector<T>& values) {
    Tensor t(dtype_of<T>(), std::move(shape));
    if (static_cast<std::int64_t>(values.size()) != t.num_elements())
      throw std::length_error("Tensor::from_values: value count does not match the shape");
    std::copy(values.begin(), values.end(), t.data<T>());
    return t;
  }

  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  std::int64_t dim(int i) const { return shape_[i]; }
  std::int64_t num_elements() const { return num_elements_; }

  // Typed access; T must be the element type of dtype() (checked, std::logic_error).
  template <class T>
  T* data() {
    check_type<T>();
    return static_cast<T*>(data_);
  }
  template <class T>
  const T* data() const {
    check_type<T>();
    return static_cast<const T*>(data_);
  }
  template <class T>
  std::span<T> values() {
    return {data<T>(), static_cast<std::size_t>(num_elements_)};
  }
  template <class T>
  std::span<const T> values() const {
    return {data<T>(), static_cast<std::size_t>(num_elements_)};
  }

  // Untyped access to the buffer: num_elements() * dtype_storage_size(dtype()) bytes.
  void* raw_data() { return data_; }
  const void* raw_data() const { return data_; }

  // Element i of an int32 or int64 tensor, widened to int64. Precondition: that dtype.
  std::int64_t index_value(std::int64_t i) const {
    if (dtype_ == DType::kInt32) return static_cast<const std::int32_t*>(data_)[i];
    if (dtype_ == DType::kInt64) return static_cast<const std::int64_t*>(data_)[i];
    not_an_index_tensor();
  }

  Tensor clone() const;

  // Same dtype, shape and bits (strings by bytes).
  bool bit_equal(const Tensor& other) const;

  // False when something wrote past the end of this tensor's buffer (only observable for
  // buffers allocated while BufferChecks were enabled; true otherwise).
  bool guard_intact() const;

 private:
  enum class Fill { kValueInitialize, kUninitialized };
  // Moves `shape` into the tensor once its buffer is allocated (on an exception it is intact).
  Tensor(DType dtype, Shape& shape, Fill fill);
  [[noreturn]] static void not_an_index_tensor();

  template <class T>
  void check_type() const {
    if (dtype_of<std::remove_const_t<T>>() != dtype_)
      throw std::logic_error("Tensor::data<T>: T does not match the tensor's dtype");
  }

  DType dtype_;
  Shape shape_;
  std::int64_t num_elements_ = 0;
  std::shared_ptr<void> storage_;
  void* data_ = nullptr;
  std::size_t guard_bytes_ = 0;
};

// Test hook, process-wide (set it before running ops, not while they run): while enabled,
// every trivially copyable buffer gets `guard_bytes` of guard after its end (checked by
// Tensor::guard_intact and when the buffer is freed), and Tensor::uninitialized buffers are
// filled with `poison_byte` so an element a kernel forgot to write shows up in comparisons.
struct BufferChecks {
  bool enabled = false;
  std::uint8_t poison_byte = 0xA5;
  std::size_t guard_bytes = 64;
};
void set_buffer_checks(const BufferChecks& checks);
const BufferChecks& buffer_checks();
// Buffers freed with a damaged guard since the process started.
std::int64_t guard_violations();

// Large buffers on transparent huge pages (Linux; elsewhere a no-op). A Tensor buffer of at
// least huge_page_min_bytes() is advised to the kernel (madvise MADV_HUGEPAGE on the whole
// 2 MiB pages inside it) before its first write, so where transparent huge pages are
// `always` or `madvise` its pages fault in 2 MiB at a time: a kernel writing rows
// to random places of a large output (DynamicStitch) then misses the TLB once per 2 MiB
// instead of once per 4 KiB. Default 8 MiB; SIZE_MAX turns it off. Process-wide; set it
// before running ops. advise_huge_pages applies the same rule to any buffer of `bytes`
// (benchmarks use it for their memcpy baselines' buffers).
void set_huge_page_min_bytes(std::size_t bytes);
std::size_t huge_page_min_bytes();
void advise_huge_pages(void* buffer, std::size_t bytes);

// A sparse tensor as SparseConcat uses it: indices int64 [nnz, rank], values [nnz],
// shape int64 [rank]. No invariant is enforced: ops validate.
struct SparseTensor {
  Tensor indices;
  Tensor values;
  Tensor shape;
};

template <class T>
constexpr DType dtype_of() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_same_v<U, float>)
    return DType::kFloat32;
  else if constexpr (std::is_same_v<U, double>)
    return DType::kFloat64;
  else if constexpr (std::is_same_v<U, float16>)
    return DType::kFloat16;
  else if constexpr (std::is_same_v<U, bfloat16>)
    return DType::kBFloat16;
  else if constexpr (std::is_same_v<U, std::int8_t>)
    return DType::kInt8;
  else if constexpr (std::is_same_v<U, std::int16_t>)
    return DType::kInt16;
  else if constexpr (std::is_same_v<U, std::int32_t>)
    return DType::kInt32;
  else if constexpr (std::is_same_v<U, std::int64_t>)
    return DType::kInt64;
  else if constexpr (std::is_same_v<U, std::uint8_t>)
    return DType::kUInt8;
  else if constexpr (std::is_same_v<U, std::uint16_t>)
    return DType::kUInt16;
  else if constexpr (std::is_same_v<U, std::uint32_t>)
    return DType::kUInt32;
  else if constexpr (std::is_same_v<U, std::uint64_t>)
    return DType::kUInt64;
  else if constexpr (std::is_same_v<U, bool>)
    return DType::kBool;
  else if constexpr (std::is_same_v<U, std::complex<float>>)
    return DType::kComplex64;
  else if constexpr (std::is_same_v<U, std::complex<double>>)
    return DType::kComplex128;
  else if constexpr (std::is_same_v<U, std::string>)
    return DType::kString;
  else if constexpr (std::is_same_v<U, qint8>)
    return DType::kQInt8;
  else if constexpr (std::is_same_v<U, quint8>)
    return DType::kQUInt8;
  else if constexpr (std::is_same_v<U, qint32>)
    return DType::kQInt32;
  else
    static_assert(sizeof(U) == 0, "not an element type");
}

}  // namespace opconform
