// Arm NN (CpuRef backend) as an opconform plug-in (opconform/plugin_abi.h, ABI v1, through the
// generic entry point opconform_run_op): SpaceToBatchND, BatchToSpaceND, SpaceToDepth and
// DepthToSpace, each call built as a one-layer network input -> <layer> -> output, optimized
// for CpuRef and run once.
//
// Arm NN takes block shape and paddings/crops (S2B/B2S) and block_size and the data layout
// (S2D/D2S) as layer attributes (unsigned ints, a DataLayout), not as tensors or int64 attrs:
// the adapter reads them into the descriptor. Values that the descriptor cannot hold
// (block_shape not of shape [2], paddings not [2, 2], a negative or > UINT32_MAX value, an
// input rank other than 4, a data_format other than "NHWC" or "NCHW") never reach Arm NN: the
// adapter answers INVALID_ARGUMENT with a message starting "adapter:" so reports can tell them
// apart. Everything else — shape checks, output shape inference, the copy — is Arm NN's.
#include <opconform/plugin_abi.h>

#include "adapter_plugin.h"

#include <armnn/ArmNN.hpp>
#include <armnn/BackendId.hpp>
#include <armnn/Descriptors.hpp>
#include <armnn/INetwork.hpp>
#include <armnn/IRuntime.hpp>
#include <armnn/Version.hpp>

#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace {

using opconform_adapters::Fail;

constexpr int kRank = 4;  // every layer here: NHWC (or NCHW); S2B/B2S with 2 block dims

// opconform dtype -> Arm NN DataType; quantized types carry scale 1, offset 0 so the bits move
// unchanged and the zero point (padding value) is 0.
std::optional<armnn::DataType> ArmnnType(int32_t dtype) {
  switch (dtype) {
    case OPCONFORM_DTYPE_FLOAT32: return armnn::DataType::Float32;
    case OPCONFORM_DTYPE_FLOAT16: return armnn::DataType::Float16;
    case OPCONFORM_DTYPE_BFLOAT16: return armnn::DataType::BFloat16;
    case OPCONFORM_DTYPE_INT8: return armnn::DataType::QAsymmS8;
    case OPCONFORM_DTYPE_UINT8: return armnn::DataType::QAsymmU8;
    case OPCONFORM_DTYPE_INT16: return armnn::DataType::QSymmS16;
    case OPCONFORM_DTYPE_INT32: return armnn::DataType::Signed32;
    case OPCONFORM_DTYPE_BOOL: return armnn::DataType::Boolean;
    default: return std::nullopt;
  }
}

// The integer elements of an int32/int64 tensor as unsigned ints, or an adapter error.
std::optional<std::vector<unsigned int>> ReadUnsigned(const opconform_tensor& t, std::string* why) {
  int64_t count = 1;
  for (int32_t i = 0; i < t.rank; ++i) count *= t.dims[i];  // shape already checked small
  std::vector<unsigned int> values;
  for (int64_t i = 0; i < count; ++i) {
    int64_t v;
    if (t.dtype == OPCONFORM_DTYPE_INT32) {
      v = static_cast<const int32_t*>(t.data)[i];
    } else if (t.dtype == OPCONFORM_DTYPE_INT64) {
      v = static_cast<const int64_t*>(t.data)[i];
    } else {
      *why = "adapter: block_shape/paddings/crops must be int32 or int64";
      return std::nullopt;
    }
    if (v < 0 || v > std::numeric_limits<unsigned int>::max()) {
      *why = "adapter: value " + std::to_string(v) + " cannot be given to Arm NN (its descriptor holds unsigned ints)";
      return std::nullopt;
    }
    values.push_back(static_cast<unsigned int>(v));
  }
  return values;
}

bool HasShape(const opconform_tensor& t, std::initializer_list<int64_t> dims) {
  if (t.rank != static_cast<int32_t>(dims.size())) return false;
  int32_t i = 0;
  for (int64_t d : dims) {
    if (t.dims[i++] != d) return false;
  }
  return true;
}

armnn::IRuntime& Runtime() {
  static armnn::IRuntimePtr runtime = armnn::IRuntime::Create(armnn::IRuntime::CreationOptions());
  return *runtime;
}

// Builds, optimizes, loads and runs input -> layer -> output; `add_layer` adds the op's layer.
template <typename AddLayer>
int32_t RunOneLayer(const opconform_call* call, const opconform_tensor* input, AddLayer add_layer) {
  const std::optional<armnn::DataType> type = ArmnnType(input->dtype);
  if (!type) return Fail(call, OPCONFORM_CODE_UNIMPLEMENTED, "adapter: dtype has no Arm NN type");
  unsigned int dims[kRank];
  for (int i = 0; i < kRank; ++i) {
    if (input->dims[i] > std::numeric_limits<unsigned int>::max()) {
      return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: dim does not fit Arm NN");
    }
    dims[i] = static_cast<unsigned int>(input->dims[i]);
  }
  armnn::TensorInfo input_info(armnn::TensorShape(kRank, dims), *type, 1.0f, 0);
  // The output shape is left to Arm NN's own shape inference (InferAndValidate).
  armnn::TensorInfo output_info(armnn::TensorShape(kRank, false), *type, 1.0f, 0);

  armnn::IRuntime& runtime = Runtime();
  // Arm NN reads the shape inference method from the network options (and the optimizer's).
  const armnn::BackendOptions infer("ShapeInferenceMethod", {{"InferAndValidate", true}});
  armnn::INetworkPtr network = armnn::INetwork::Create({infer});
  armnn::IConnectableLayer* in = network->AddInputLayer(0);
  armnn::IConnectableLayer* layer = add_layer(*network);
  armnn::IConnectableLayer* out = network->AddOutputLayer(0);
  in->GetOutputSlot(0).Connect(layer->GetInputSlot(0));
  layer->GetOutputSlot(0).Connect(out->GetInputSlot(0));
  in->GetOutputSlot(0).SetTensorInfo(input_info);
  layer->GetOutputSlot(0).SetTensorInfo(output_info);

  armnn::OptimizerOptions options;
  options.m_shapeInferenceMethod = armnn::ShapeInferenceMethod::InferAndValidate;
  std::vector<std::string> messages;
  armnn::IOptimizedNetworkPtr optimized =
      armnn::Optimize(*network, {armnn::Compute::CpuRef}, runtime.GetDeviceSpec(), options,
                      armnn::Optional<std::vector<std::string>&>(messages));
  if (!optimized) {
    std::string text = "Arm NN Optimize failed";
    for (const std::string& m : messages) text += ": " + m;
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, text);
  }
  armnn::NetworkId id;
  std::string load_error;
  if (runtime.LoadNetwork(id, std::move(optimized), load_error) != armnn::Status::Success) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "Arm NN LoadNetwork failed: " + load_error);
  }
  struct Unload {
    armnn::IRuntime& runtime;
    armnn::NetworkId id;
    ~Unload() { runtime.UnloadNetwork(id); }
  } unload{runtime, id};

  const armnn::TensorShape shape = runtime.GetOutputTensorInfo(id, 0).GetShape();
  int64_t out_dims[kRank];
  for (int i = 0; i < kRank; ++i) out_dims[i] = shape[i];
  void* output = call->allocate_output(call->caller, 0, input->dtype, kRank, out_dims);
  if (output == nullptr) {
    return Fail(call, OPCONFORM_CODE_RESOURCE_EXHAUSTED, "adapter: output buffer refused");
  }
  armnn::InputTensors inputs{{0, armnn::ConstTensor(runtime.GetInputTensorInfo(id, 0), input->data)}};
  armnn::OutputTensors outputs{{0, armnn::Tensor(runtime.GetOutputTensorInfo(id, 0), output)}};
  if (runtime.EnqueueWorkload(id, inputs, outputs) != armnn::Status::Success) {
    return Fail(call, OPCONFORM_CODE_INTERNAL, "Arm NN EnqueueWorkload failed");
  }
  return OPCONFORM_CODE_OK;
}

// Shared by both ops: reads block and paddings/crops into a Descriptor (NHWC), then runs the
// layer that `add` makes of it.
template <typename Descriptor>
int32_t SpaceBatch(const opconform_call* call, const opconform_tensor* input, const opconform_tensor* block_shape,
                   const opconform_tensor* pads,
                   armnn::IConnectableLayer* (armnn::INetwork::*add)(const Descriptor&, const char*)) {
  if (input->rank != kRank) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: Arm NN takes rank-4 input only");
  }
  if (!HasShape(*block_shape, {2}) || !HasShape(*pads, {2, 2})) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                "adapter: Arm NN takes block_shape of shape [2] and paddings/crops of shape [2, 2]");
  }
  std::string why;
  const auto block = ReadUnsigned(*block_shape, &why);
  if (!block) return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, why);
  const auto pad = ReadUnsigned(*pads, &why);
  if (!pad) return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, why);
  const std::vector<std::pair<unsigned int, unsigned int>> pad_list{{(*pad)[0], (*pad)[1]}, {(*pad)[2], (*pad)[3]}};
  try {
    return RunOneLayer(call, input, [&](armnn::INetwork& net) {
      Descriptor d(*block, pad_list);
      d.m_DataLayout = armnn::DataLayout::NHWC;
      return (net.*add)(d, nullptr);
    });
  } catch (const std::exception& e) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, std::string("Arm NN: ") + e.what());
  }
}

// Shared by SpaceToDepth and DepthToSpace: block_size and data_format into a
// SpaceToDepthDescriptor (DepthToSpaceDescriptor is the same type), then the layer `add` makes.
// "NHWC" and "NCHW" are Arm NN's DataLayouts and reach it as given (TensorFlow's CPU kernels
// take only NHWC; Arm NN computes NCHW too).
int32_t DepthSpace(const opconform_call* call, const opconform_tensor* input, int64_t block_size,
                   const opconform_string& data_format,
                   armnn::IConnectableLayer* (armnn::INetwork::*add)(const armnn::SpaceToDepthDescriptor&,
                                                                     const char*)) {
  if (input->rank != kRank) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: Arm NN takes rank-4 input only");
  }
  if (block_size < 0 || block_size > std::numeric_limits<unsigned int>::max()) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                "adapter: block_size " + std::to_string(block_size) +
                    " cannot be given to Arm NN (its descriptor holds an unsigned int)");
  }
  const std::string format(data_format.data ? data_format.data : "", static_cast<size_t>(data_format.size));
  armnn::DataLayout layout;
  if (format == "NHWC") {
    layout = armnn::DataLayout::NHWC;
  } else if (format == "NCHW") {
    layout = armnn::DataLayout::NCHW;
  } else {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT,
                "adapter: data_format \"" + format + "\" is no Arm NN DataLayout (NHWC, NCHW)");
  }
  try {
    return RunOneLayer(call, input, [&](armnn::INetwork& net) {
      return (net.*add)(armnn::SpaceToDepthDescriptor(static_cast<unsigned int>(block_size), layout), nullptr);
    });
  } catch (const std::exception& e) {
    return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, std::string("Arm NN: ") + e.what());
  }
}

constexpr uint64_t kDtypes = OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT32) |
                             OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_FLOAT16) |
                             OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_BFLOAT16);
constexpr uint64_t kParamDtypes =
    OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT32) | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT64);

// What CpuRef's IsSpaceToDepthSupported / IsDepthToSpaceSupported accept, through ArmnnType:
// Float32, Float16, BFloat16, QAsymmS8, QAsymmU8, QSymmS16 (not Signed32, QSymmS8, Boolean).
constexpr uint64_t kDepthSpaceDtypes = kDtypes | OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT8) |
                                       OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_UINT8) |
                                       OPCONFORM_DTYPE_BIT(OPCONFORM_DTYPE_INT16);

const opconform_op_caps kCaps[] = {
    {OPCONFORM_OP_SPACE_TO_BATCH_ND, 0, kDtypes, kParamDtypes, kRank, kRank, 2, 2},
    {OPCONFORM_OP_BATCH_TO_SPACE_ND, 0, kDtypes, kParamDtypes, kRank, kRank, 2, 2},
    {OPCONFORM_OP_SPACE_TO_DEPTH, 0, kDepthSpaceDtypes, 0, kRank, kRank, 0, -1},
    {OPCONFORM_OP_DEPTH_TO_SPACE, 0, kDepthSpaceDtypes, 0, kRank, kRank, 0, -1},
};

const std::string kName = std::string("armnn-cpuref (libarmnn ") + ARMNN_VERSION + ")";
const opconform_manifest kManifest = opconform_adapters::TfCpuManifest(kName.c_str(), kCaps);

}  // namespace

OPCONFORM_PLUGIN_MANIFEST(kManifest)

// The generic entry point; inputs and attrs in the order of docs/plugin-abi.md's table:
//   S2B/B2S: input, block_shape, paddings/crops;  S2D/D2S: input; block_size, data_format.
extern "C" OPCONFORM_PLUGIN_EXPORT int32_t opconform_run_op(const opconform_call* call, int32_t op,
                                                            const opconform_input* inputs, int32_t num_inputs,
                                                            const opconform_attr* attrs, int32_t num_attrs) {
  switch (op) {
    case OPCONFORM_OP_SPACE_TO_BATCH_ND:
    case OPCONFORM_OP_BATCH_TO_SPACE_ND:
      if (num_inputs != 3) break;
      return op == OPCONFORM_OP_SPACE_TO_BATCH_ND
                 ? SpaceBatch<armnn::SpaceToBatchNdDescriptor>(call, inputs[0].tensors, inputs[1].tensors,
                                                               inputs[2].tensors,
                                                               &armnn::INetwork::AddSpaceToBatchNdLayer)
                 : SpaceBatch<armnn::BatchToSpaceNdDescriptor>(call, inputs[0].tensors, inputs[1].tensors,
                                                               inputs[2].tensors,
                                                               &armnn::INetwork::AddBatchToSpaceNdLayer);
    case OPCONFORM_OP_SPACE_TO_DEPTH:
    case OPCONFORM_OP_DEPTH_TO_SPACE:
      if (num_inputs != 1 || num_attrs != 2) break;
      return DepthSpace(call, inputs[0].tensors, attrs[0].int_value, attrs[1].string_value,
                        op == OPCONFORM_OP_SPACE_TO_DEPTH ? &armnn::INetwork::AddSpaceToDepthLayer
                                                          : &armnn::INetwork::AddDepthToSpaceLayer);
    default: return Fail(call, OPCONFORM_CODE_UNIMPLEMENTED, "adapter: op " + std::to_string(op) + " is not listed");
  }
  return Fail(call, OPCONFORM_CODE_INVALID_ARGUMENT, "adapter: bad call (inputs/attrs of another op)");
}
