// mykernels: naive kernels of a small third-party library, for DynamicStitch,
// ParallelDynamicStitch and DynamicPartition. They know nothing about opconform: tensors are
// raw buffers with a dtype and a shape, errors are a code and a message, outputs come from a
// caller's allocator. The conformance/ and plugin/ folders connect them to opconform.
//
// The kernels follow opconform's contract for these ops (docs/contract/dynamic_stitch.md,
// installed with opconform's docs): checks in the contract's order with its codes and messages,
// the caller's memory limit checked before anything is allocated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mykernels {

// TensorFlow's dtypes. The kernels move elements as bytes, so they support every fixed-size
// dtype; string is known (argument-type checks name it) but not supported.
enum class DataType {
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

const char* type_name(DataType type);  // "float32", "qint8", ...
std::optional<DataType> type_from_name(std::string_view name);
std::size_t type_size(DataType type);  // bytes per element; 0: string

enum class Code { kOk, kInvalidArgument, kResourceExhausted, kUnimplemented };

struct Result {
  Code code = Code::kOk;
  std::string message;
  bool ok() const { return code == Code::kOk; }
};

using Shape = std::vector<std::int64_t>;

// A dense row-major tensor owned by the caller: prod(dims) elements of `type` at `data`.
struct TensorView {
  DataType type;
  Shape dims;
  const void* data;
};

// Returns the buffer for output `index` (prod(dims) elements of `type`, contents unspecified),
// or nullptr when the memory cannot be had. The kernels call it only after every check passed.
using Allocate = std::function<void*(int index, DataType type, const Shape& dims)>;

// merged[indices[m][i], ...] = data[m][i, ...]; rows no index names are zero.
// indices are int32. `memory_limit` bounds the bytes the output counts for (64 + elements * size).
Result dynamic_stitch(const std::vector<TensorView>& indices, const std::vector<TensorView>& data,
                      std::int64_t memory_limit, const Allocate& allocate);
Result parallel_dynamic_stitch(const std::vector<TensorView>& indices, const std::vector<TensorView>& data,
                               std::int64_t memory_limit, const Allocate& allocate);

// outputs[p] (index p of the allocator, p < num_partitions) holds, in order, the slices
// data[j, ...] whose partitions[j] == p. partitions are int32.
Result dynamic_partition(const TensorView& data, const TensorView& partitions, std::int64_t num_partitions,
                         std::int64_t memory_limit, const Allocate& allocate);

}  // namespace mykernels
