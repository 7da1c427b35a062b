// libtorch (CPU) as an opconform plug-in (opconform/plugin_abi.h, ABI v1, through the generic
// entry point opconform_run_op). Each op is the obvious composition of torch calls, and every
// check and result is torch's:
//   SparseConcat:     sparse_coo_tensor per input, at::cat along concat_dim, coalesce()
//                     (coalesce sorts and SUMS duplicate coordinates; TensorFlow keeps them).
//   DynamicStitch:    merged = zeros([max(index)+1] + rest); merged.index_put_({index}, data)
//                     (index_put_ wraps negative indices; with duplicates its result is
//                     undefined in torch's docs, so the adapter answers UNIMPLEMENTED there).
//   DynamicPartition: outputs[i] = data[partitions == i] (boolean-mask indexing).
//   SpaceToDepth:     at::pixel_unshuffle, DepthToSpace: at::pixel_shuffle, between two
//                     layout and channel-order changes (DepthSpace below): torch's ops are
//                     channels-first with CRD channels, TensorFlow's NHWC with DCR channels.
// Kept to this one translation unit on ATen only: torch headers are slow to compile.
#include <opconform/plugin_abi.h>

#include "adapter_plugin.h"

#include <ATen/ATen.h>
#include <torch/csrc/api/include/torch/version.h>

#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace {

using opconform_adapters::Fail;

std::optional<at::ScalarType> TorchType(int32_t dtype) {
  switch (dtype) {
    case OPCONFORM_DTYPE_FLOAT32: return at::kFloat;
    case OPCONFORM_DTYPE_FLOAT64: return at::kDouble;
    case OPCONFORM_DTYPE_FLOAT16: return at::kHalf;
    case OPCONFORM_DTYPE_BFLOAT16: return at::kBFloat16;
    case OPCONFORM_DTYPE_INT8: return at::kChar;
    case OPCONFORM_DTYPE_INT16: return at::kShort;
    case OPCONFORM_DTYPE_INT32: return at::kInt;
    case OPCONFORM_DTYPE_INT64: return at::kLong;
    case OPCONFORM_DTYPE_UINT8: return at::kByte;
    case OPCONFORM_DTYPE_BOOL: return at::kBool;
    case OPCONFORM_DTYPE_COMPLEX64: return at::kComplexFloat;
    case OPCONFORM_DTYPE_COMPLEX128: return at::kComplexDouble;
    default: return std::nullopt;
  }
}

// The opconform dtype of a torch result (the inverse of TorchType).
int32_t OpconformType(at::ScalarType type) {
  for (int32_t dtype :
       {OPCONFORM_DTYPE_FLOAT32, OPCONFORM_DTYPE_FLOAT64, OPCONFORM_DTYPE_FLOAT16, OPCONFORM_DTYPE_BFLOAT16,
        OPCONFORM_DTYPE_INT8, OPCONFORM_DTYPE_INT16, OPCONFORM_DTYPE_INT32, OPCONFORM_DTYPE_INT64,
        OPCONFORM_DTYPE_UINT8, OPCONFORM_DTYPE_BOOL, OPCONFORM_DTYPE_COMPLEX64, OPCONFORM_DTYPE_COMPLEX128}) {
    if (TorchType(dtype) == type) return dtype;
  }
  return -1;  // not reached: every torch result here has one of the types above
}

// Thrown for a dtype torch has no type for; answered as UNIMPLEMENTED.
struct Unsupported {
  std::string message;
};

// A read-only view of an input as a torch tensor (no copy).
at::Tensor View(const opconform_tensor& t) {
  const std::optional<at::ScalarType> type = TorchType(t.dtype);
  if (!type) throw Unsupported{"adapter: torch has no type for dtype " + std::to_string(t.dtype)};
  std::vector<int64_t> dims(t.dims, t.dims + t.rank);
  return at::from_blob(const_cast<void*>(t.data), dims, at::TensorOptions().dtype(*type));
}

// Copies `value` (any layout) into output `index` of the op, in the dtype torch gave it (at::cat
// promotes mixed dtypes; the comparison shows that); false when the buffer is refused.
bool Emit(const opconform_call* call, int32_t index, const at::Tensor& value) {
  const at::Tensor dense = value.contiguous();
  const std::vector<int64_t> dims(dense.sizes().begin(), dense.sizes().end());
  void* out = call->allocate_output(call->caller, index, OpconformType(dense.scalar_type()),
                                    static_cast<int32_t>(dims.size()), dims.data());
  if (out == nullptr) return false;
  std::memcpy(out, dense.data_ptr(), dense.numel() * dense.element_size());
  return true;
}

// Runs `body`, turning torch's exceptions into INVALID_ARGUMENT with the first line of the
// message (torch appends a C++ backtrace).
template <typename Body>
int32_t Guarded(const opconform_call* call, Body body) {
  try {
    return body();
  } catch (const Unsupported& u) {
    return Fail(call, OPCONFORM_CODE_UNIMPLEMENTED, u.message);
  } catch (const std::exception& e) {
    std::string what = e.what();
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "torch: " + what.substr(0, what.find('\n')));
  }
}

constexpr int32_t kRefused = OPCONFORM_CODE_RESOURCE_EXHAUSTED;

int32_t Stitch(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
               const opconform_tensor* data, int64_t num_data) {
  return Guarded(call, [&]() -> int32_t {
    if (num_indices != num_data || num_data < 1) {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: indices and data lists differ");
    }
    const at::Tensor first = View(data[0]);
    if (data[0].rank < indices[0].rank) {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                  "adapter: data[0] has a lower rank than indices[0] (no row shape to take)");
    }
    const std::vector<int64_t> rest(first.sizes().begin() + indices[0].rank, first.sizes().end());
    std::vector<at::Tensor> flat_indices, flat_values;
    for (int64_t i = 0; i < num_data; ++i) {
      const at::Tensor index = View(indices[i]).to(at::kLong).reshape({-1});
      std::vector<int64_t> shape{index.numel()};
      shape.insert(shape.end(), rest.begin(), rest.end());
      flat_indices.push_back(index);
      flat_values.push_back(View(data[i]).reshape(shape));
    }
    const at::Tensor index = at::cat(flat_indices);
    const at::Tensor values = at::cat(flat_values);
    if (std::get<0>(at::_unique(index)).numel() != index.numel()) {
      return Fail(call, OPCONFORM_CODE_UNIMPLEMENTED,
                  "adapter: duplicate indices (torch index_put_ leaves the winner undefined)");
    }
    std::vector<int64_t> merged_shape{index.numel() == 0 ? 0 : index.max().item<int64_t>() + 1};
    merged_shape.insert(merged_shape.end(), rest.begin(), rest.end());
    at::Tensor merged = at::zeros(merged_shape, values.options());
    merged.index_put_({index}, values);
    return Emit(call, 0, merged) ? OPCONFORM_CODE_OK : kRefused;
  });
}

// b * b, or nullopt when b < 1 or the square overflows int64 (then the channel reorder is
// skipped and torch's own check of b answers).
std::optional<int64_t> BlockArea(int64_t b) {
  int64_t area;
  if (b < 1 || __builtin_mul_overflow(b, b, &area)) return std::nullopt;
  return area;
}

// TensorFlow's channel order (DCR: depth (by*b + bx)*C + c) of a channels-first x [..., C*b*b,
// H, W] as torch's (CRD: c*b*b + by*b + bx), or back with to_tf; x unchanged when b*b does not
// divide its channels (torch then rejects it itself).
at::Tensor ReorderChannels(const at::Tensor& x, int64_t b, bool to_tf) {
  const std::optional<int64_t> area = BlockArea(b);
  const int64_t channels = x.size(-3);
  if (!area || channels % *area != 0) return x;
  std::vector<int64_t> split(x.sizes().begin(), x.sizes().end());
  split.insert(split.end() - 3, 0);  // [..., A, B, H, W] with A*B = channels
  const size_t a = split.size() - 4;
  split[a] = to_tf ? channels / *area : *area;  // from CRD [C, b*b] or from DCR [b*b, C]
  split[a + 1] = to_tf ? *area : channels / *area;
  std::vector<int64_t> merged(x.sizes().begin(), x.sizes().end());
  return x.reshape(split).transpose(-4, -3).reshape(merged);
}

// SpaceToDepth / DepthToSpace with TensorFlow's semantics on torch's pixel_unshuffle /
// pixel_shuffle: "NHWC" moves the last dim to third from last (channels-first, any batch rank
// torch takes), "NCHW" is torch's own layout; the DCR/CRD reorder goes around torch's op.
// Any other data_format has no torch layout: an adapter answer.
int32_t DepthSpace(const opconform_call* call, bool to_depth, const opconform_tensor* input, int64_t block_size,
                   const opconform_string& data_format) {
  return Guarded(call, [&]() -> int32_t {
    const std::string format(data_format.data ? data_format.data : "", static_cast<size_t>(data_format.size));
    if (format != "NHWC" && format != "NCHW") {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                  "adapter: data_format \"" + format + "\" has no torch layout (NHWC, NCHW)");
    }
    const bool nhwc = format == "NHWC";
    at::Tensor x = View(*input);
    if (nhwc) x = x.movedim(-1, -3);
    at::Tensor y = to_depth ? ReorderChannels(at::pixel_unshuffle(x, block_size), block_size, true)
                            : at::pixel_shuffle(ReorderChannels(x, block_size, false), block_size);
    if (nhwc) y = y.movedim(-3, -1);
    return Emit(call, 0, y) ? OPCONFORM_CODE_OK : kRefused;
  });
}

constexpr uint64_t kAllTorchDtypes =
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT32) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT64) |
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT16) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_BFLOAT16) |
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT8) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT16) |
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT32) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT64) |
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_UINT8) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_BOOL) |
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_COMPLEX64) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_COMPLEX128);
constexpr uint64_t kInt32 = OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT32);
constexpr uint64_t kInt64 = OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT64);

const opconform_op_caps kCaps[] = {
    {OPCONFORM_OP_DYNAMIC_STITCH, 0, kAllTorchDtypes, kInt32, 0, -1, 0, -1},
    {OPCONFORM_OP_DYNAMIC_PARTITION, 0, kAllTorchDtypes, kInt32, 0, -1, 0, -1},
    {OPCONFORM_OP_SPARSE_CONCAT, 0, kAllTorchDtypes, kInt64, 1, -1, 0, -1},
    {OPCONFORM_OP_SPACE_TO_DEPTH, 0, kAllTorchDtypes, 0, 0, -1, 0, -1},
    {OPCONFORM_OP_DEPTH_TO_SPACE, 0, kAllTorchDtypes, 0, 0, -1, 0, -1},
};

const std::string kName = std::string("libtorch cpu ") + TORCH_VERSION;
const opconform_manifest kManifest = opconform_adapters::TfCpuManifest(kName.c_str(), kCaps);

int32_t Partition(const opconform_call* call, const opconform_tensor* data, const opconform_tensor* partitions,
                  int64_t num_partitions) {
  return Guarded(call, [&]() -> int32_t {
    // TensorFlow's attr: an int32 of at least 1. The mask composition runs once per partition,
    // so the adapter checks it before looping.
    if (num_partitions < 1 || num_partitions > std::numeric_limits<int32_t>::max()) {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                  "adapter: num_partitions " + std::to_string(num_partitions) + " is not an int32 >= 1");
    }
    const at::Tensor values = View(*data);
    const at::Tensor parts = View(*partitions);
    for (int64_t i = 0; i < num_partitions; ++i) {
      if (!Emit(call, static_cast<int32_t>(i), values.index({parts == i}))) {
        return kRefused;
      }
    }
    return OPCONFORM_CODE_OK;
  });
}

int32_t SparseConcat(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
                     const opconform_tensor* values, int64_t num_values, const opconform_tensor* shapes,
                     int64_t num_shapes, int64_t concat_dim) {
  return Guarded(call, [&]() -> int32_t {
    if (num_indices != num_values || num_indices != num_shapes) {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: list lengths differ");
    }
    if (num_indices < 2) {  // TensorFlow's attr N: at least 2
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: SparseConcat takes at least 2 inputs");
    }
    std::vector<at::Tensor> sparse;
    for (int64_t i = 0; i < num_indices; ++i) {
      const at::Tensor shape = View(shapes[i]).to(at::kLong);
      const std::vector<int64_t> size(shape.data_ptr<int64_t>(), shape.data_ptr<int64_t>() + shape.numel());
      sparse.push_back(at::sparse_coo_tensor(View(indices[i]).to(at::kLong).t(), View(values[i]), size));
    }
    const at::Tensor result = at::cat(sparse, concat_dim).coalesce();
    const std::vector<int64_t> out_shape(result.sizes().begin(), result.sizes().end());
    const at::Tensor shape_tensor = at::tensor(out_shape, at::kLong);
    if (!Emit(call, 0, result.indices().t()) || !Emit(call, 1, result.values()) || !Emit(call, 2, shape_tensor)) {
      return kRefused;
    }
    return OPCONFORM_CODE_OK;
  });
}

}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)

// The generic entry point; inputs and attrs in the order of docs/plugin-abi.md's table.
extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_run_op(const opconform_call* call, int32_t op,
                                                            const opconform_input* in, int32_t num_inputs,
                                                            const opconform_attr* attrs, int32_t num_attrs) {
  switch (op) {
    case OPCONFORM_OP_DYNAMIC_STITCH:
      if (num_inputs != 2) break;
      return Stitch(call, in[0].tensors, in[0].num_tensors, in[1].tensors, in[1].num_tensors);
    case OPCONFORM_OP_DYNAMIC_PARTITION:
      if (num_inputs != 2 || num_attrs != 1) break;
      return Partition(call, in[0].tensors, in[1].tensors, attrs[0].int_value);
    case OPCONFORM_OP_SPARSE_CONCAT:
      if (num_inputs != 3 || num_attrs != 1) break;
      return SparseConcat(call, in[0].tensors, in[0].num_tensors, in[1].tensors, in[1].num_tensors, in[2].tensors,
                          in[2].num_tensors, attrs[0].int_value);
    case OPCONFORM_OP_SPACE_TO_DEPTH:
    case OPCONFORM_OP_DEPTH_TO_SPACE:
      if (num_inputs != 1 || num_attrs != 2) break;
      return DepthSpace(call, op == OPCONFORM_OP_SPACE_TO_DEPTH, in[0].tensors, attrs[0].int_value,
                        attrs[1].string_value);
    default: return Fail(call, OPCONFORM_CODE_UNIMPLEMENTED, "adapter: op " + std::to_string(op) + " is not listed");
  }
  return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: bad call (inputs/attrs of another op)");
}
