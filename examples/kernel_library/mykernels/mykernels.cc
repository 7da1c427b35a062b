// The kernels: validate in the contract's order, check the memory limit, then allocate and move
// bytes. Contract: docs/contract/dynamic_stitch.md (checks, messages, memory requests) and
// docs/contract/README.md (pre-checks, TensorShape facts, memory accounting).
#include "mykernels/mykernels.h"

#include <algorithm>
#include <climits>
#include <cstring>
#include <sstream>

namespace mykernels {

namespace {

struct TypeInfo {
  DataType type;
  const char* name;
  std::size_t size;
};
constexpr TypeInfo kTypes[] = {
    {DataType::kFloat32, "float32", 4},
    {DataType::kFloat64, "float64", 8},
    {DataType::kFloat16, "float16", 2},
    {DataType::kBFloat16, "bfloat16", 2},
    {DataType::kInt8, "int8", 1},
    {DataType::kInt16, "int16", 2},
    {DataType::kInt32, "int32", 4},
    {DataType::kInt64, "int64", 8},
    {DataType::kUInt8, "uint8", 1},
    {DataType::kUInt16, "uint16", 2},
    {DataType::kUInt32, "uint32", 4},
    {DataType::kUInt64, "uint64", 8},
    {DataType::kBool, "bool", 1},
    {DataType::kComplex64, "complex64", 8},
    {DataType::kComplex128, "complex128", 16},
    {DataType::kString, "string", 0},
    {DataType::kQInt8, "qint8", 1},
    {DataType::kQUInt8, "quint8", 1},
    {DataType::kQInt32, "qint32", 4},
};

template <class... Parts>
Result error(Code code, const Parts&... parts) {
  std::ostringstream message;
  (message << ... << parts);
  return {code, message.str()};
}
template <class... Parts>
Result invalid(const Parts&... parts) {
  return error(Code::kInvalidArgument, parts...);
}

// TensorShape::DebugString: "[2,3]", "[]" for a scalar.
std::string shape_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t d = 0; d < shape.size(); ++d) out += (d ? "," : "") + std::to_string(shape[d]);
  return out + "]";
}

// Element count of an input's shape (it fits: the input exists).
std::int64_t num_elements(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

bool starts_with(const Shape& shape, const Shape& prefix) {
  return shape.size() >= prefix.size() && std::equal(prefix.begin(), prefix.end(), shape.begin());
}

// shape[from:]. Precondition: from <= rank.
Shape trailing(const Shape& shape, std::size_t from) { return Shape(shape.begin() + from, shape.end()); }

// TensorFlow's MultiplyWithoutOverflow (contract README, "Checked multiply"): -1 for a negative
// factor or an unsigned overflow; a product in [2^63, 2^64) comes back negative.
std::int64_t checked_multiply(std::int64_t x, std::int64_t y) {
  if (x < 0 || y < 0) return -1;
  if (x == 0) return 0;
  std::uint64_t product = 0;
  if (__builtin_mul_overflow(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y), &product)) return -1;
  return static_cast<std::int64_t>(product);
}

// x + y for x, y >= 0; -1 on overflow (or when either is already -1).
std::int64_t checked_add(std::int64_t x, std::int64_t y) {
  std::int64_t sum = 0;
  if (x < 0 || y < 0 || __builtin_add_overflow(x, y, &sum)) return -1;
  return sum;
}

// TensorShape::AddDimWithStatus, with its checks in order (contract README, "Shapes").
Result add_dim(Shape& shape, std::int64_t& elements, std::int64_t size) {
  if (size < 0) return invalid("Expected a non-negative size, got ", size);
  if (shape.size() >= 254) return invalid("Too many dimensions in tensor");
  const std::int64_t product = checked_multiply(elements, size);
  if (product < 0)
    return invalid("Encountered overflow when multiplying ", elements, " with ", size, ", result: ", product);
  shape.push_back(size);
  elements = product;
  return {};
}

// Bytes an output counts for (contract README, "Memory accounting"): 64 + elements * size.
std::int64_t request_bytes(std::int64_t elements, std::size_t element_size) {
  return checked_add(64, checked_multiply(elements, static_cast<std::int64_t>(element_size)));
}

Result out_of_memory(DataType type, const Shape& shape) {
  return error(Code::kResourceExhausted, "OOM when allocating tensor with shape", shape_string(shape), " and type ",
               type_name(type));
}

#define MYKERNELS_RETURN_IF_ERROR(expr) \
  do {                                  \
    Result result_ = (expr);            \
    if (!result_.ok()) return result_;  \
  } while (0)

Result stitch(const char* op, const std::vector<TensorView>& indices, const std::vector<TensorView>& data,
              std::int64_t memory_limit, const Allocate& allocate) {
  // Pre-check 1: argument types (indices are int32; every data tensor has data[0]'s type).
  for (const TensorView& t : indices)
    if (t.type != DataType::kInt32)
      return invalid("Input 'indices' of '", op, "' Op has type ", type_name(t.type),
                     " that does not match expected type of int32.");
  for (const TensorView& t : data)
    if (t.type != data[0].type)
      return invalid("Input 'data' of '", op, "' Op has type ", type_name(t.type), " that does not match type ",
                     type_name(data[0].type), " of argument 'data'.");

  // Step 0 (pre-check 2): N >= 1 and lists of equal length.
  const auto n = static_cast<std::int64_t>(indices.size());
  if (n < 1) return invalid("Value for attr 'N' of ", n, " must be at least minimum 1");
  if (static_cast<std::int64_t>(data.size()) != n)
    return invalid("List argument 'data' to '", op, "' Op with length ", data.size(), " must match length ", n,
                   " of argument 'indices'.");

  // Pre-check 3: registration. TensorFlow registers every T; mykernels has no string support.
  const DataType type = data[0].type;
  if (type_size(type) == 0)
    return error(Code::kUnimplemented, "mykernels: ", op, " does not support T=", type_name(type));

  // Step 1: every index >= 0, in order over m, then over the flat position i inside indices[m]
  // (the message names i only). The maximum is kept in int64: -1 when there is no index.
  std::int64_t max_index = -1;
  for (const TensorView& t : indices) {
    const auto* index = static_cast<const std::int32_t*>(t.data);
    for (std::int64_t i = 0; i < num_elements(t.dims); ++i) {
      if (index[i] < 0) return invalid("indices[", i, "] is out of range");
      max_index = std::max<std::int64_t>(max_index, index[i]);
    }
  }

  // Step 2, for each m in turn: data[m].shape = indices[m].shape + C, C = data[0]'s trailing shape.
  const Shape& data0 = data[0].dims;
  const Shape& indices0 = indices[0].dims;
  for (std::int64_t m = 0; m < n; ++m) {
    const Shape& data_m = data[m].dims;
    const Shape& indices_m = indices[m].dims;
    if (!starts_with(data_m, indices_m))
      return invalid("data[", m, "].shape = ", shape_string(data_m), " does not start with indices[", m,
                     "].shape = ", shape_string(indices_m));
    if (m > 0 && trailing(data_m, indices_m.size()) != trailing(data0, indices0.size()))
      return invalid("Need data[0].shape[", indices0.size(), ":] = data[", m, "].shape[", indices_m.size(),
                     ":], got data[0].shape = ", shape_string(data0), ", data[", m, "].shape = ", shape_string(data_m),
                     ", indices[0].shape = ", shape_string(indices0), ", indices[", m,
                     "].shape = ", shape_string(indices_m));
  }

  // Step 3: the output shape [max_index + 1] + C (checked), then its memory request.
  Shape merged;
  std::int64_t elements = 1;
  MYKERNELS_RETURN_IF_ERROR(add_dim(merged, elements, max_index + 1));
  for (std::int64_t size : trailing(data0, indices0.size())) MYKERNELS_RETURN_IF_ERROR(add_dim(merged, elements, size));
  const std::int64_t bytes = request_bytes(elements, type_size(type));
  if (bytes < 0 || bytes > memory_limit) return out_of_memory(type, merged);

  // Result: gaps are zero (all-zero bytes is T{} for every fixed-size dtype), then the rows in
  // order over m and i, so the last writer of a row wins.
  auto* out = static_cast<char*>(allocate(0, type, merged));
  if (out == nullptr) return out_of_memory(type, merged);
  const std::int64_t rows = max_index + 1;
  const std::size_t row_bytes = rows > 0 ? static_cast<std::size_t>(elements / rows) * type_size(type) : 0;
  if (row_bytes == 0) return {};
  std::memset(out, 0, static_cast<std::size_t>(rows) * row_bytes);
  for (std::int64_t m = 0; m < n; ++m) {
    const auto* index = static_cast<const std::int32_t*>(indices[m].data);
    const auto* in = static_cast<const char*>(data[m].data);
    for (std::int64_t i = 0; i < num_elements(indices[m].dims); ++i)
      std::memcpy(out + static_cast<std::size_t>(index[i]) * row_bytes, in + i * row_bytes, row_bytes);
  }
  return {};
}

// Where a partition id sits, for step 2's message: "" for scalar partitions, else the
// unflattened coordinates "[i0,i1,...]" of flat position j.
std::string position_string(const Shape& shape, std::int64_t j) {
  if (shape.empty()) return "";
  Shape coordinates(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = j % shape[d];
    j /= shape[d];
  }
  return shape_string(coordinates);
}

}  // namespace

const char* type_name(DataType type) { return kTypes[static_cast<int>(type)].name; }

std::optional<DataType> type_from_name(std::string_view name) {
  for (const TypeInfo& info : kTypes)
    if (name == info.name) return info.type;
  return std::nullopt;
}

std::size_t type_size(DataType type) { return kTypes[static_cast<int>(type)].size; }

Result dynamic_stitch(const std::vector<TensorView>& indices, const std::vector<TensorView>& data,
                      std::int64_t memory_limit, const Allocate& allocate) {
  return stitch("DynamicStitch", indices, data, memory_limit, allocate);
}

// Which list wins a duplicate across lists is unspecified; in list order is one allowed outcome.
Result parallel_dynamic_stitch(const std::vector<TensorView>& indices, const std::vector<TensorView>& data,
                               std::int64_t memory_limit, const Allocate& allocate) {
  return stitch("ParallelDynamicStitch", indices, data, memory_limit, allocate);
}

Result dynamic_partition(const TensorView& data, const TensorView& partitions, std::int64_t num_partitions,
                         std::int64_t memory_limit, const Allocate& allocate) {
  // Pre-check 1: argument types.
  if (partitions.type != DataType::kInt32)
    return invalid("Input 'partitions' of 'DynamicPartition' Op has type ", type_name(partitions.type),
                   " that does not match expected type of int32.");
  // Step 0, first half: the attribute's minimum, checked before kernel registration.
  if (num_partitions < 1)
    return invalid("Value for attr 'num_partitions' of ", num_partitions, " must be at least minimum 1");
  // Pre-check 3: registration. TensorFlow has no CPU kernel for the quantized types;
  // mykernels has no string support.
  const DataType type = data.type;
  if (type == DataType::kQInt8 || type == DataType::kQUInt8 || type == DataType::kQInt32)
    return error(Code::kUnimplemented,
                 "No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible with T=", type_name(type));
  if (type_size(type) == 0)
    return error(Code::kUnimplemented, "mykernels: DynamicPartition does not support T=", type_name(type));
  // Step 0, second half: the kernel reads num_partitions as an int32.
  if (num_partitions > INT32_MAX)
    return invalid("Attr num_partitions has value ", num_partitions, " out of range for an int32");

  // Step 1: data.shape starts with partitions.shape.
  if (!starts_with(data.dims, partitions.dims))
    return invalid("data.shape must start with partitions.shape, got data.shape = ", shape_string(data.dims),
                   ", partitions.shape = ", shape_string(partitions.dims));

  // Step 2: every partition id, in flat order, is in [0, num_partitions).
  const auto* ids = static_cast<const std::int32_t*>(partitions.data);
  const std::int64_t entries = num_elements(partitions.dims);
  for (std::int64_t j = 0; j < entries; ++j)
    if (ids[j] < 0 || ids[j] >= num_partitions)
      return invalid("partitions", position_string(partitions.dims, j), " = ", ids[j], " is not in [0, ",
                     num_partitions, ")");

  // Step 3: outputs[p] has shape [count(ids == p)] + slice and counts 64 + its bytes. All of
  // them together: 64 * num_partitions + the data's bytes. That is checked before anything of
  // num_partitions size exists, so a huge num_partitions under a small limit allocates nothing.
  const Shape slice = trailing(data.dims, partitions.dims.size());
  const std::int64_t slice_elements = entries > 0 ? num_elements(data.dims) / entries : 0;
  const std::int64_t row_bytes = checked_multiply(slice_elements, static_cast<std::int64_t>(type_size(type)));
  const std::int64_t total = checked_add(checked_multiply(64, num_partitions), checked_multiply(entries, row_bytes));
  if (total < 0 || total > memory_limit) {
    // The error names the first output at which the running total exceeds the limit. Walk the
    // outputs in order with a sorted copy of the ids (input-sized, never num_partitions-sized);
    // a run of empty outputs costs 64 bytes each and is crossed in one step.
    std::vector<std::int32_t> sorted(ids, ids + entries);
    std::sort(sorted.begin(), sorted.end());
    auto output_shape = [&](std::int64_t rows) {
      Shape shape = {rows};
      shape.insert(shape.end(), slice.begin(), slice.end());
      return shape;
    };
    std::int64_t running = 0;  // bytes of outputs 0 .. p-1, at most memory_limit
    std::size_t next = 0;      // sorted[next] is the first id >= p
    for (std::int64_t p = 0; p < num_partitions; ++p) {
      // Outputs p .. id-1 are empty; as many as (limit - running) / 64 of them still fit.
      const std::int64_t id = next < sorted.size() ? sorted[next] : num_partitions;
      if (id > p && id - p > (memory_limit - running) / 64) return out_of_memory(type, output_shape(0));
      running += 64 * (id - p);
      p = id;
      if (p == num_partitions) break;
      // Output p holds the rows whose id is p.
      std::int64_t rows = 0;
      for (; next < sorted.size() && sorted[next] == p; ++next) ++rows;
      running = checked_add(running, checked_add(64, checked_multiply(rows, row_bytes)));
      if (running < 0 || running > memory_limit) return out_of_memory(type, output_shape(rows));
    }
    return out_of_memory(type, output_shape(0));  // not reached: the total exceeds the limit
  }

  // Everything fits, including the bookkeeping below (less than the 64 bytes per output).
  std::vector<std::int64_t> rows(static_cast<std::size_t>(num_partitions), 0);
  for (std::int64_t j = 0; j < entries; ++j) ++rows[ids[j]];
  std::vector<char*> out(static_cast<std::size_t>(num_partitions));
  for (std::int64_t p = 0; p < num_partitions; ++p) {
    Shape shape;
    std::int64_t elements = 1;
    MYKERNELS_RETURN_IF_ERROR(add_dim(shape, elements, rows[p]));
    for (std::int64_t size : slice) MYKERNELS_RETURN_IF_ERROR(add_dim(shape, elements, size));
    out[p] = static_cast<char*>(allocate(static_cast<int>(p), type, shape));
    if (out[p] == nullptr) return out_of_memory(type, shape);
  }

  // Result: a stable split, slice j appended to its output in row-major order of j. Every
  // element of every output is written.
  if (row_bytes == 0) return {};
  std::vector<std::int64_t> next_row(static_cast<std::size_t>(num_partitions), 0);
  const auto* in = static_cast<const char*>(data.data);
  for (std::int64_t j = 0; j < entries; ++j) {
    const std::int32_t p = ids[j];
    std::memcpy(out[p] + next_row[p]++ * row_bytes, in + j * row_bytes, static_cast<std::size_t>(row_bytes));
  }
  return {};
}

}  // namespace mykernels
