// libmykernels_plugin.so: mykernels behind opconform's plug-in C ABI (opconform/plugin_abi.h,
// docs/plugin-abi.md), for `opconform validate --impl libmykernels_plugin.so`. Built against
// that one header: no opconform library is linked.
#include <opconform/plugin_abi.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "mykernels/mykernels.h"

namespace {

// Every fixed-size dtype (not string) as T; any dtype for indices and partitions: mykernels runs
// the argument-type checks itself, so cases with wrong index types are judged too.
constexpr std::uint64_t kAllTypes = (std::uint64_t{1} << OPCONFORM_NUM_DTYPES) - 1;
constexpr std::uint64_t kFixedSizeTypes = kAllTypes & ~OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_STRING);

constexpr opconform_op_caps caps(int32_t op) {
  return {.op = op,
          .reserved = 0,
          .dtypes = kFixedSizeTypes,
          .param_dtypes = kAllTypes,
          .min_rank = 0,
          .max_rank = -1,
          .min_block_dims = 0,
          .max_block_dims = -1};
}
constexpr opconform_op_caps kOps[] = {caps(OPCONFORM_OP_DYNAMIC_STITCH), caps(OPCONFORM_OP_PARALLEL_DYNAMIC_STITCH),
                                      caps(OPCONFORM_OP_DYNAMIC_PARTITION)};
const opconform_manifest kManifest = {.abi_version = OPCONFORM_ABI_VERSION,
                                      .struct_size = sizeof(opconform_manifest),
                                      .name = "mykernels (example)",
                                      .profile = "tf-cpu",
                                      .num_ops = 3,
                                      .ops = kOps};

// mykernels::DataType lists the dtypes in the order the ABI numbers them, so a cast converts.
static_assert(static_cast<int>(mykernels::DataType::kFloat32) == OPCONFORM_DTYPE_FLOAT32);
static_assert(static_cast<int>(mykernels::DataType::kString) == OPCONFORM_DTYPE_STRING);
static_assert(static_cast<int>(mykernels::DataType::kQInt32) == OPCONFORM_DTYPE_QINT32);

mykernels::TensorView view(const opconform_tensor& t) {
  return {static_cast<mykernels::DataType>(t.dtype), mykernels::Shape(t.dims, t.dims + t.rank), t.data};
}

std::vector<mykernels::TensorView> views(const opconform_tensor* list, int64_t count) {
  std::vector<mykernels::TensorView> out;
  for (int64_t i = 0; i < count; ++i) out.push_back(view(list[i]));
  return out;
}

// Outputs come from the caller (its buffers are fenced and poisoned: every element must be written).
mykernels::Allocate allocator(const opconform_call* call) {
  return [call](int index, mykernels::DataType type, const mykernels::Shape& dims) -> void* {
    return call->allocate_output(call->caller, index, static_cast<int32_t>(type), static_cast<int32_t>(dims.size()),
                                 dims.data());
  };
}

int32_t finish(const opconform_call* call, const mykernels::Result& result) {
  call->set_message(call->caller, result.message.data(), static_cast<int64_t>(result.message.size()));
  switch (result.code) {
    case mykernels::Code::kOk: return OPCONFORM_CODE_OK;
    case mykernels::Code::kInvalidArgument: return OPCONFORM_CODE_INVALID_ARGUMENT;
    case mykernels::Code::kResourceExhausted: return OPCONFORM_CODE_RESOURCE_EXHAUSTED;
    case mykernels::Code::kUnimplemented: return OPCONFORM_CODE_UNIMPLEMENTED;
  }
  return OPCONFORM_CODE_INTERNAL;
}

// An ABI version 1 caller passes the whole version 1 struct; read nothing beyond struct_size.
bool call_ok(const opconform_call* call) { return call->struct_size >= sizeof(opconform_call); }

}  // namespace

extern "C" {

uint32_t opconform_abi_version(void) { return OPCONFORM_ABI_VERSION; }

const opconform_manifest* opconform_manifest_get(void) { return &kManifest; }

int32_t opconform_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices, int64_t num_indices,
                                 const opconform_tensor* data, int64_t num_data) {
  if (!call_ok(call)) return OPCONFORM_CODE_INTERNAL;
  return finish(call, mykernels::dynamic_stitch(views(indices, num_indices), views(data, num_data),
                                                call->memory_limit_bytes, allocator(call)));
}

int32_t opconform_parallel_dynamic_stitch(const opconform_call* call, const opconform_tensor* indices,
                                          int64_t num_indices, const opconform_tensor* data, int64_t num_data) {
  if (!call_ok(call)) return OPCONFORM_CODE_INTERNAL;
  return finish(call, mykernels::parallel_dynamic_stitch(views(indices, num_indices), views(data, num_data),
                                                         call->memory_limit_bytes, allocator(call)));
}

int32_t opconform_dynamic_partition(const opconform_call* call, const opconform_tensor* data,
                                    const opconform_tensor* partitions, int64_t num_partitions) {
  if (!call_ok(call)) return OPCONFORM_CODE_INTERNAL;
  return finish(call, mykernels::dynamic_partition(view(*data), view(*partitions), num_partitions,
                                                   call->memory_limit_bytes, allocator(call)));
}

}  // extern "C"
