// Reference DynamicPartition: a literal transcription of docs/contract/dynamic_stitch.md.
// Checks run in the page's order (after the README's pre-checks); then each slice data[j, ...]
// is appended to outputs[partitions[j]], j in row-major order (a stable split).
//
// Memory: the request of all outputs, 64 * num_partitions + data elements * width, is checked
// against the limit before any num_partitions-sized bookkeeping exists, so a huge
// num_partitions under a small limit fails without allocating for it.
#include "opconform/reference/dynamic_partition.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <new>
// mutant-site: dp_string_c_str
#include <string>
// mutant-site end

namespace opconform::reference {
namespace {

// Spec page: TensorFlow CPU registers every dtype except the quantized ones.
bool registered_on_cpu(DType dtype) {
  switch (dtype) {
    case DType::kQInt8:
    case DType::kQUInt8:
    case DType::kQInt32: return false;
    default: return true;
  }
}

// TensorShapeUtils::StartsWith: shape's first rank(prefix) dims equal prefix.
bool starts_with(const Shape& shape, const Shape& prefix) {
  if (shape.size() < prefix.size()) return false;
  return std::equal(prefix.begin(), prefix.end(), shape.begin());
}

// "" for a scalar shape, else the unflattened row-major coordinates of `flat` as "[i0,i1,...]".
// Precondition: 0 <= flat < number of elements of shape.
std::string position_string(const Shape& shape, std::int64_t flat) {
  if (shape.empty()) return "";
  Shape coordinates(shape.size());
  for (std::size_t d = shape.size(); d-- > 0;) {
    coordinates[d] = flat % shape[d];
    flat /= shape[d];
  }
  return shape_string(coordinates);
}

// Bytes the first `num_outputs` outputs request when together they hold `entries` slices of
// `slice_elements` elements: 64 * num_outputs + entries * slice_elements * width; -1 on
// overflow. Preconditions: all arguments >= 0.
std::int64_t request_bytes_of_outputs(std::int64_t num_outputs, std::int64_t entries, std::int64_t slice_elements,
                                      std::int64_t width) {
  const std::int64_t headers = multiply_without_overflow(64, num_outputs);
  const std::int64_t payload = multiply_without_overflow(multiply_without_overflow(entries, slice_elements), width);
  std::int64_t total = 0;
  if (headers < 0 || payload < 0 || __builtin_add_overflow(headers, payload, &total)) return -1;
  return total;
}

// The RESOURCE_EXHAUSTED of the first output q whose running total (outputs 0..q) exceeds the
// limit. Precondition: the request of all outputs exceeds it. Output sizes come from a sorted
// copy of the partition values (input-sized), never from a num_partitions-sized array.
Status first_output_over_limit(DType dtype, std::span<const std::int32_t> partition_values, const Shape& slice_shape,
                               std::int64_t slice_elements, std::int64_t num_partitions, std::int64_t limit) {
  std::vector<std::int32_t> sorted(partition_values.begin(), partition_values.end());
  std::sort(sorted.begin(), sorted.end());
  // Number of partition entries with value <= q.
  auto entries_up_to = [&](std::int64_t q) -> std::int64_t {
    return std::upper_bound(sorted.begin(), sorted.end(), q) - sorted.begin();
  };
  const std::int64_t width = dtype_accounting_width(dtype);
  auto exceeds = [&](std::int64_t q) {
    const std::int64_t bytes = request_bytes_of_outputs(q + 1, entries_up_to(q), slice_elements, width);
    return bytes < 0 || bytes > limit;
  };
  // The running total grows with q and exceeds the limit at q = num_partitions - 1: binary
  // search for the first q where it does.
  std::int64_t low = 0;
  std::int64_t high = num_partitions - 1;
  while (low < high) {
    const std::int64_t middle = low + (high - low) / 2;
    if (exceeds(middle)) {
      high = middle;
    } else {
      low = middle + 1;
    }
  }
  const std::int64_t q = low;
  // Request output q against what outputs 0..q-1 left of the limit: it fails there, with
  // MemoryAccount's own message naming output q's shape.
  const std::int64_t entries_before = q == 0 ? 0 : entries_up_to(q - 1);
  const std::int64_t bytes_before = request_bytes_of_outputs(q, entries_before, slice_elements, width);
  Shape shape = {entries_up_to(q) - entries_before};
  shape.insert(shape.end(), slice_shape.begin(), slice_shape.end());
  MemoryAccount rest_of_limit(limit - bytes_before);
  return rest_of_limit.request(dtype, shape);
}

}  // namespace

Status DynamicPartition(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                        std::vector<Tensor>* outputs, const ExecOptions& options) {
  // Pre-check 1 (README): argument types.
  if (partitions.dtype() != DType::kInt32)
    return invalid_argument("Input 'partitions' of 'DynamicPartition' Op has type ", dtype_name(partitions.dtype()),
                            " that does not match expected type of int32.");
  // Pre-check 2 / check 0: the attribute's minimum.
  // mutant-site: dp_accepts_zero_partitions
  if (num_partitions < 1)
    // mutant-site end
    return invalid_argument("Value for attr 'num_partitions' of ", num_partitions, " must be at least minimum 1");
  // Pre-check 3: kernel registration for T.
  const DType dtype = data.dtype();
  if (!registered_on_cpu(dtype))
    // mutant-site: dp_wrong_code_registration
    return unimplemented("No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible with T=",
                         // mutant-site end
                         dtype_name(dtype));
  // Check 0: the kernel reads num_partitions as an int32.
  // mutant-site: dp_int32_num_partitions
  if (num_partitions > std::numeric_limits<std::int32_t>::max())
    return invalid_argument("Attr num_partitions has value ", num_partitions, " out of range for an int32");
  // mutant-site end

  // Check 1: data.shape starts with partitions.shape.
  // mutant-site: dp_no_prefix_check
  if (!starts_with(data.shape(), partitions.shape()))
    return invalid_argument("data.shape must start with partitions.shape, got data.shape = ",
                            // mutant-site end
                            shape_string(data.shape()), ", partitions.shape = ", shape_string(partitions.shape()));

  // Check 2: every partition value, in flat order, lies in [0, num_partitions).
  const std::span<const std::int32_t> partition_values = partitions.values<std::int32_t>();
  const auto entries = static_cast<std::int64_t>(partition_values.size());
  for (std::int64_t j = 0; j < entries; ++j) {
    const std::int64_t p = partition_values[j];
    // mutant-site: dp_drops_out_of_range dp_outputs_before_range_check
    if (p < 0 || p >= num_partitions)
      return invalid_argument("partitions", position_string(partitions.shape(), j), " = ", p, " is not in [0, ",
                              num_partitions, ")");
    // mutant-site end
  }

  // Check 3: outputs[q] has shape [count(partitions == q)] + data.shape[rank(partitions):].
  // First the request of all outputs together, before any per-partition bookkeeping.
  const Shape slice_shape(data.shape().begin() + partitions.rank(), data.shape().end());
  const std::int64_t slice_elements = entries > 0 ? data.num_elements() / entries : 0;
  // mutant-site: dp_drops_out_of_range
  const std::int64_t all_outputs_bytes = request_bytes_of_outputs(
      // mutant-site end
      // mutant-site: dp_drops_out_of_range
      num_partitions, entries, slice_elements, dtype_accounting_width(dtype));
  // mutant-site end
  // mutant-site: dp_no_memory_accounting
  if (all_outputs_bytes < 0 || all_outputs_bytes > options.memory_limit_bytes)
    return first_output_over_limit(dtype, partition_values, slice_shape, slice_elements,
                                   // mutant-site end
                                   num_partitions, options.memory_limit_bytes);

  // Everything fits, and the two num_partitions counters below take less than the 64 bytes
  // per output already accounted. Each output is requested, then allocated (T{} everywhere).
  Shape allocating = data.shape();  // what a std::bad_alloc names: the output being allocated
  try {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(num_partitions), 0);
    // mutant-site: dp_drops_out_of_range dp_outputs_before_range_check
    for (std::int64_t j = 0; j < entries; ++j) ++counts[partition_values[j]];
    // mutant-site end
    MemoryAccount account(options.memory_limit_bytes);
    std::vector<Tensor> results;
    results.reserve(static_cast<std::size_t>(num_partitions));
    for (std::int64_t q = 0; q < num_partitions; ++q) {
      ShapeBuilder shape;
      OPCONFORM_RETURN_IF_ERROR(shape.add_dim(counts[q]));
      for (std::int64_t d : slice_shape) OPCONFORM_RETURN_IF_ERROR(shape.add_dim(d));
      // mutant-site: dp_no_memory_accounting
      OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape.dims()));
      // mutant-site end
      allocating = shape.dims();
      results.emplace_back(dtype, shape.dims());
    }

    // Result: outputs[p][next_row[p]++, ...] = data[j, ...] for j in row-major order.
    // mutant-site: dp_outputs_before_range_check
    std::vector<std::int64_t> next_row(static_cast<std::size_t>(num_partitions), 0);
    // mutant-site end
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* in = data.data<T>();
      // mutant-site: dp_unstable dp_drops_out_of_range dp_outputs_before_range_check
      for (std::int64_t j = 0; j < entries; ++j) {
        const std::int32_t p = partition_values[j];
        // mutant-site end
        T* out = results[p].data<T>();
        for (std::int64_t k = 0; k < slice_elements; ++k)
          // mutant-site: dp_string_c_str
          out[next_row[p] * slice_elements + k] = in[j * slice_elements + k];
        // mutant-site end
        ++next_row[p];
      }
    });
    // mutant-site: dp_outputs_before_range_check
    *outputs = std::move(results);
    // mutant-site end
  } catch (const std::bad_alloc&) {
    // The allocator refused what the limit allowed: the same error as an over-limit request.
    return resource_exhausted("OOM when allocating tensor with shape", shape_string(allocating), " and type ",
                              dtype_name(dtype));
  }
  return Status();
}

}  // namespace opconform::reference
