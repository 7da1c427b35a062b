#include "opconform/dtype.h"

namespace opconform {

namespace {
constexpr DType kAll[kNumDTypes] = {
    DType::kFloat32, DType::kFloat64, DType::kFloat16, DType::kBFloat16,  DType::kInt8,
    DType::kInt16,   DType::kInt32,   DType::kInt64,   DType::kUInt8,     DType::kUInt16,
    DType::kUInt32,  DType::kUInt64,  DType::kBool,    DType::kComplex64, DType::kComplex128,
    DType::kString,  DType::kQInt8,   DType::kQUInt8,  DType::kQInt32,
};
constexpr std::string_view kNames[kNumDTypes] = {
    "float32", "float64", "float16", "bfloat16",  "int8",       "int16",  "int32", "int64",  "uint8",  "uint16",
    "uint32",  "uint64",  "bool",    "complex64", "complex128", "string", "qint8", "quint8", "qint32",
};
}  // namespace

std::string_view dtype_name(DType dtype) { return kNames[static_cast<int>(dtype)]; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (kNames[i] == name) return kAll[i];
  return std::nullopt;
}

std::size_t dtype_storage_size(DType dtype) {
  return visit_dtype(dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
}

std::int64_t dtype_accounting_width(DType dtype) {
  if (dtype == DType::kString) return 24;
  return static_cast<std::int64_t>(dtype_storage_size(dtype));
}

const DType* all_dtypes() { return kAll; }

}  // namespace opconform
