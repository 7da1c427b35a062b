#include "op_table.h"

#include <new>
#include <span>
#include <stdexcept>
#include <vector>

#include "mykernels/mykernels.h"

namespace mykernels {
namespace {

using opconform::ExecOptions;
using opconform::Status;
using opconform::Tensor;

// Both sides use TensorFlow's dtype names.
DataType to_mykernels(opconform::DType dtype) { return *type_from_name(opconform::dtype_name(dtype)); }
opconform::DType to_opconform(DataType type) { return *opconform::dtype_from_name(type_name(type)); }

TensorView view(const Tensor& t) { return {to_mykernels(t.dtype()), t.shape(), t.raw_data()}; }

std::vector<TensorView> views(std::span<const Tensor> list) {
  std::vector<TensorView> out;
  for (const Tensor& t : list) out.push_back(view(t));
  return out;
}

Status to_status(const Result& result) {
  switch (result.code) {
    case Code::kOk: return Status();
    case Code::kInvalidArgument: return Status(opconform::Code::kInvalidArgument, result.message);
    case Code::kResourceExhausted: return Status(opconform::Code::kResourceExhausted, result.message);
    case Code::kUnimplemented: return Status(opconform::Code::kUnimplemented, result.message);
  }
  return Status(opconform::Code::kInternal, "unknown mykernels code");
}

// An allocator that puts output i into (*outputs)[i]; nullptr when the memory cannot be had.
Allocate allocator_into(std::vector<Tensor>* outputs) {
  return [outputs](int index, DataType type, const Shape& dims) -> void* {
    try {
      if (outputs->size() <= static_cast<std::size_t>(index)) outputs->resize(index + 1);
      (*outputs)[index] = Tensor(to_opconform(type), dims);
      return (*outputs)[index].raw_data();
    } catch (const std::bad_alloc&) {
      return nullptr;
    } catch (const std::length_error&) {
      return nullptr;
    }
  };
}

// The outputs are replaced only on success (the contract: on error they are left untouched).
template <auto kernel>
Status stitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
              const ExecOptions& options) {
  std::vector<Tensor> outputs;
  const Result result = kernel(views(indices), views(data), options.memory_limit_bytes, allocator_into(&outputs));
  if (result.ok()) *merged = outputs.at(0);
  return to_status(result);
}

Status partition(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                 std::vector<Tensor>* outputs, const ExecOptions& options) {
  std::vector<Tensor> results;
  const Result result = dynamic_partition(view(data), view(partitions), num_partitions, options.memory_limit_bytes,
                                          allocator_into(&results));
  if (result.ok()) *outputs = std::move(results);
  return to_status(result);
}

}  // namespace

const opconform::OpTable& op_table() {
  static const opconform::OpTable table = {
      .name = "mykernels",
      .space_to_batch_nd = nullptr,
      .batch_to_space_nd = nullptr,
      .dynamic_stitch = &stitch<&dynamic_stitch>,
      .parallel_dynamic_stitch = &stitch<&parallel_dynamic_stitch>,
      .dynamic_partition = &partition,
      .sparse_concat = nullptr,
  };
  return table;
}

}  // namespace mykernels
