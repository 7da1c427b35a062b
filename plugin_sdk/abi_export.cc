#include "opconform/plugin_sdk/abi_export.h"

#include <cstring>
#include <exception>
#include <string>

#include "opconform/allocation_log.h"
#include "opconform/op_registry.h"
#include "opconform/tensor.h"

namespace opconform::plugin_sdk::abi_export {

namespace {

static_assert(static_cast<int>(DType::kQInt32) == OPCONFORM_DTYPE_QINT32 &&
              static_cast<int>(DType::kString) == OPCONFORM_DTYPE_STRING && kNumDTypes == OPCONFORM_NUM_DTYPES);

std::int32_t abi_code(Code code) {
  switch (code) {
    case Code::kOk: return OPCONFORM_CODE_OK;
    case Code::kInvalidArgument: return OPCONFORM_CODE_INVALID_ARGUMENT;
    case Code::kResourceExhausted: return OPCONFORM_CODE_RESOURCE_EXHAUSTED;
    case Code::kUnimplemented: return OPCONFORM_CODE_UNIMPLEMENTED;
    case Code::kInternal: return OPCONFORM_CODE_INTERNAL;
  }
  return OPCONFORM_CODE_INTERNAL;
}

bool tensors_from_abi(const opconform_tensor* list, std::int64_t count, std::vector<Tensor>* out, std::string* error) {
  if (count < 0 || (count > 0 && list == nullptr)) {
    *error = "bad list descriptor";
    return false;
  }
  out->resize(static_cast<std::size_t>(count));
  for (std::int64_t i = 0; i < count; ++i)
    if (!tensor_from_abi(list[i], &(*out)[i], error)) return false;
  return true;
}

// Runs `body` (which returns a Status and writes outputs itself) with exceptions turned into
// INTERNAL, then reports through the call.
template <class Body>
std::int32_t guarded(const opconform_call* call, Body body) {
  try {
    return finish(call, body());
  } catch (const std::exception& e) {
    return finish(call, internal_error("exception: ", e.what()));
  } catch (...) {
    return finish(call, internal_error("unknown exception"));
  }
}

ExecOptions options_of(const opconform_call* call) {
  ExecOptions options;
  options.memory_limit_bytes = call->memory_limit_bytes;
  return options;
}

// Runs a kernel. When it fails after allocating Tensors (kernels allocate Tensors only for
// their outputs, in output order), the same outputs are requested from the caller, in order,
// as a plug-in that allocates from the caller would have requested them: the caller sees the
// allocation that came before the error.
template <class Kernel>
Status run_kernel(const opconform_call* call, Kernel kernel) {
  TensorAllocationLog log;
  Status status = kernel();
  if (!status.ok()) {
    std::int32_t index = 0;
    for (const TensorAllocation& a : log.entries())
      call->allocate_output(call->caller, index++, static_cast<std::int32_t>(a.dtype),
                            static_cast<std::int32_t>(a.shape.size()), a.shape.data());
  }
  return status;
}

Status refused(std::int32_t index) {
  return resource_exhausted("output ", static_cast<std::int64_t>(index), " could not be allocated");
}

template <class Fn>
std::int32_t space_batch(const opconform_call* call, Fn fn, const opconform_tensor* input,
                         const opconform_tensor* block_shape, const opconform_tensor* amounts) {
  return guarded(call, [&]() -> Status {
    Tensor a, b, c, out;
    std::string error;
    if (!tensor_from_abi(*input, &a, &error) || !tensor_from_abi(*block_shape, &b, &error) ||
        !tensor_from_abi(*amounts, &c, &error))
      return invalid_argument("bad tensor descriptor: ", error);
    OPCONFORM_RETURN_IF_ERROR(run_kernel(call, [&] { return fn(a, b, c, &out, options_of(call)); }));
    if (!write_output(call, 0, out)) return refused(0);
    return Status();
  });
}

template <class Fn>
std::int32_t stitch(const opconform_call* call, Fn fn, const opconform_tensor* indices, std::int64_t num_indices,
                    const opconform_tensor* data, std::int64_t num_data) {
  return guarded(call, [&]() -> Status {
    std::vector<Tensor> idx, dat;
    std::string error;
    if (!tensors_from_abi(indices, num_indices, &idx, &error) || !tensors_from_abi(data, num_data, &dat, &error))
      return invalid_argument("bad tensor descriptor: ", error);
    Tensor merged;
    OPCONFORM_RETURN_IF_ERROR(run_kernel(call, [&] { return fn(idx, dat, &merged, options_of(call)); }));
    if (!write_output(call, 0, merged)) return refused(0);
    return Status();
  });
}

}  // namespace

bool tensor_from_abi(const opconform_tensor& t, Tensor* out, std::string* error) {
  if (t.dtype < 0 || t.dtype >= OPCONFORM_NUM_DTYPES) {
    *error = "dtype " + std::to_string(t.dtype);
    return false;
  }
  if (t.rank < 0 || t.rank > kMaxDims || (t.rank > 0 && t.dims == nullptr)) {
    *error = "rank " + std::to_string(t.rank);
    return false;
  }
  Shape shape(t.dims, t.dims + t.rank);
  const std::int64_t n = checked_num_elements(shape);
  if (n < 0 || (n > 0 && t.data == nullptr)) {
    *error = "shape " + shape_string(shape);
    return false;
  }
  const auto dtype = static_cast<DType>(t.dtype);
  Tensor result(dtype, shape);
  if (dtype == DType::kString) {
    const auto* strings = static_cast<const opconform_string*>(t.data);
    std::string* dst = result.data<std::string>();
    for (std::int64_t i = 0; i < n; ++i) {
      if (strings[i].size < 0 || (strings[i].size > 0 && strings[i].data == nullptr)) {
        *error = "string element " + std::to_string(i);
        return false;
      }
      dst[i].assign(strings[i].data, static_cast<std::size_t>(strings[i].size));
    }
  } else if (dtype == DType::kBool) {
    const auto* bytes = static_cast<const std::uint8_t*>(t.data);
    bool* dst = result.data<bool>();
    for (std::int64_t i = 0; i < n; ++i) dst[i] = bytes[i] != 0;
  } else if (n > 0) {
    std::memcpy(result.raw_data(), t.data, static_cast<std::size_t>(n) * dtype_storage_size(dtype));
  }
  *out = std::move(result);
  return true;
}

bool write_output(const opconform_call* call, std::int32_t index, const Tensor& t) {
  void* buffer =
      call->allocate_output(call->caller, index, static_cast<std::int32_t>(t.dtype()), t.rank(), t.shape().data());
  if (buffer == nullptr) return false;
  const std::int64_t n = t.num_elements();
  if (t.dtype() == DType::kString) {
    auto* slots = static_cast<opconform_string*>(buffer);
    const std::string* src = t.data<std::string>();
    for (std::int64_t i = 0; i < n; ++i) {
      const auto size = static_cast<std::int64_t>(src[i].size());
      char* bytes = call->allocate_bytes(call->caller, size);
      if (bytes == nullptr) return false;
      if (size > 0) std::memcpy(bytes, src[i].data(), src[i].size());
      slots[i] = opconform_string{bytes, size};
    }
  } else if (t.dtype() == DType::kBool) {
    auto* bytes = static_cast<std::uint8_t*>(buffer);
    const bool* src = t.data<bool>();
    for (std::int64_t i = 0; i < n; ++i) bytes[i] = src[i] ? 1 : 0;
  } else if (n > 0) {
    std::memcpy(buffer, t.raw_data(), static_cast<std::size_t>(n) * dtype_storage_size(t.dtype()));
  }
  return true;
}

std::int32_t finish(const opconform_call* call, const Status& status) {
  if (!status.ok())
    call->set_message(call->caller, status.message().data(), static_cast<std::int64_t>(status.message().size()));
  return abi_code(status.code());
}

opconform_op_caps unlimited_caps(int op) {
  opconform_op_caps caps{};
  caps.op = op;
  caps.dtypes = (std::uint64_t{1} << OPCONFORM_NUM_DTYPES) - 1;
  caps.param_dtypes = caps.dtypes;  // the kernels run the argument-type checks themselves
  caps.min_rank = 0;
  caps.max_rank = -1;
  caps.min_block_dims = 0;
  caps.max_block_dims = -1;
  return caps;
}

std::int32_t space_to_batch_nd(const OpTable& table, const opconform_call* call, const opconform_tensor* input,
                               const opconform_tensor* block_shape, const opconform_tensor* paddings) {
  return space_batch(call, table.space_to_batch_nd, input, block_shape, paddings);
}

std::int32_t batch_to_space_nd(const OpTable& table, const opconform_call* call, const opconform_tensor* input,
                               const opconform_tensor* block_shape, const opconform_tensor* crops) {
  return space_batch(call, table.batch_to_space_nd, input, block_shape, crops);
}

std::int32_t dynamic_stitch(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                            std::int64_t num_indices, const opconform_tensor* data, std::int64_t num_data) {
  return stitch(call, table.dynamic_stitch, indices, num_indices, data, num_data);
}

std::int32_t parallel_dynamic_stitch(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                                     std::int64_t num_indices, const opconform_tensor* data, std::int64_t num_data) {
  return stitch(call, table.parallel_dynamic_stitch, indices, num_indices, data, num_data);
}

std::int32_t dynamic_partition(const OpTable& table, const opconform_call* call, const opconform_tensor* data,
                               const opconform_tensor* partitions, std::int64_t num_partitions) {
  return guarded(call, [&]() -> Status {
    Tensor d, p;
    std::string error;
    if (!tensor_from_abi(*data, &d, &error) || !tensor_from_abi(*partitions, &p, &error))
      return invalid_argument("bad tensor descriptor: ", error);
    std::vector<Tensor> outputs;
    OPCONFORM_RETURN_IF_ERROR(
        run_kernel(call, [&] { return table.dynamic_partition(d, p, num_partitions, &outputs, options_of(call)); }));
    for (std::size_t i = 0; i < outputs.size(); ++i)
      if (!write_output(call, static_cast<std::int32_t>(i), outputs[i])) return refused(static_cast<std::int32_t>(i));
    return Status();
  });
}

std::int32_t sparse_concat(const OpTable& table, const opconform_call* call, const opconform_tensor* indices,
                           std::int64_t num_indices, const opconform_tensor* values, std::int64_t num_values,
                           const opconform_tensor* shapes, std::int64_t num_shapes, std::int64_t concat_dim) {
  return guarded(call, [&]() -> Status {
    std::vector<Tensor> idx, val, shp;
    std::string error;
    if (!tensors_from_abi(indices, num_indices, &idx, &error) || !tensors_from_abi(values, num_values, &val, &error) ||
        !tensors_from_abi(shapes, num_shapes, &shp, &error))
      return invalid_argument("bad tensor descriptor: ", error);
    SparseTensor out;
    OPCONFORM_RETURN_IF_ERROR(
        run_kernel(call, [&] { return table.sparse_concat(idx, val, shp, concat_dim, &out, options_of(call)); }));
    if (!write_output(call, 0, out.indices)) return refused(0);
    if (!write_output(call, 1, out.values)) return refused(1);
    if (!write_output(call, 2, out.shape)) return refused(2);
    return Status();
  });
}

std::int32_t run_op(const OpTable& table, const opconform_call* call, std::int32_t op, const opconform_input* inputs,
                    std::int32_t num_inputs, const opconform_attr* attrs, std::int32_t num_attrs) {
  return guarded(call, [&]() -> Status {
    if (op < 0 || op >= kNumOps || !provides(table, kAllOps[op])) return unimplemented("op ", op, " is not provided");
    const OpInfo& info = op_info(kAllOps[op]);
    const OpSignature& signature = info.signature;
    if (num_inputs != static_cast<std::int64_t>(signature.inputs.size()) || (num_inputs > 0 && inputs == nullptr))
      return invalid_argument("bad call: ", num_inputs, " inputs for ", op_name(info.op));
    const std::size_t num_int_attrs = signature.attrs.size();
    if (num_attrs != static_cast<std::int64_t>(num_int_attrs + signature.string_attrs.size()) ||
        (num_attrs > 0 && attrs == nullptr))
      return invalid_argument("bad call: ", num_attrs, " attributes for ", op_name(info.op));
    Values values;
    std::string error;
    for (std::size_t i = 0; i < signature.inputs.size(); ++i) {
      const Slot& slot = signature.inputs[i];
      std::vector<Tensor> tensors;
      if (!tensors_from_abi(inputs[i].tensors, inputs[i].num_tensors, &tensors, &error) ||
          (!slot.is_list && tensors.size() != 1))
        return invalid_argument("bad tensor descriptor: input ", slot.name, ": ",
                                error.empty() ? "not one tensor" : error);
      if (slot.is_list)
        values.emplace(slot.name, std::move(tensors));
      else
        values.emplace(slot.name, std::move(tensors[0]));
    }
    IntAttrs int_attrs;
    StringAttrs string_attrs;
    for (std::size_t i = 0; i < num_int_attrs; ++i) int_attrs.emplace(signature.attrs[i], attrs[i].int_value);
    for (std::size_t i = 0; i < signature.string_attrs.size(); ++i) {
      const opconform_string& s = attrs[num_int_attrs + i].string_value;
      if (s.size < 0 || (s.size > 0 && s.data == nullptr))
        return invalid_argument("bad attribute: ", signature.string_attrs[i]);
      string_attrs.emplace(signature.string_attrs[i],
                           std::string(s.data ? s.data : "", static_cast<std::size_t>(s.size)));
    }
    Values outputs = placeholder_outputs(info);
    OPCONFORM_RETURN_IF_ERROR(run_kernel(call, [&] {
      return info.invoke(table, {values, int_attrs, string_attrs}, &outputs, options_of(call));
    }));
    std::int32_t index = 0;
    for (const Slot& slot : signature.outputs) {
      const Value& value = outputs.at(std::string(slot.name));
      if (const Tensor* t = std::get_if<Tensor>(&value)) {
        if (!write_output(call, index, *t)) return refused(index);
        ++index;
        continue;
      }
      for (const Tensor& t : std::get<std::vector<Tensor>>(value)) {
        if (!write_output(call, index, t)) return refused(index);
        ++index;
      }
    }
    return Status();
  });
}

}  // namespace opconform::plugin_sdk::abi_export
