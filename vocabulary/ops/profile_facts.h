// Profile facts of sibling ops, stated once for both (docs/contract/profiles.md): the
// predicates for ProfileDifference::applies and each pair's tables. Included only by
// vocabulary/ops/*.cc.
#pragma once

#include <string_view>

#include "opconform/op_registry.h"

namespace opconform::profile_facts {

inline bool contains(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

// tf-cpu's error message ("" when tf-cpu returns a value).
inline std::string_view expected_message(const Status* expected_error) {
  return expected_error ? std::string_view(expected_error->message()) : std::string_view();
}

// Both reject with the same code (the wording or the check order differs).
inline bool same_code(const OpCall&, const Status* expected_error, const Status& actual) {
  return expected_error && expected_error->code() == actual.code();
}

// TensorFlow Lite's kernel types for SpaceToBatchND, BatchToSpaceND, SpaceToDepth and DepthToSpace.
inline constexpr DType kTfliteTypes[] = {DType::kFloat32, DType::kUInt8, DType::kInt8, DType::kInt32, DType::kInt64};

// SpaceToBatchND and BatchToSpaceND under xla: no four-dim limit.
inline bool exceeds_four_block_dims(const OpCall&, const Status* expected_error, const Status&) {
  return contains(expected_message(expected_error), "but must not exceed 4");
}

// SpaceToBatchND and BatchToSpaceND under tflite: an input rank other than 3 or 4, or
// block_shape's length other than rank - 2.
inline bool outside_tflite_ranks(const OpCall& call, const Status*, const Status&) {
  const Tensor* input = call.find_tensor("input");
  const Tensor* block = call.find_tensor("block_shape");
  if (!input) return false;
  const bool block_dims_not_rank_minus_2 = block && block->num_elements() != input->rank() - 2;
  return input->rank() < 3 || input->rank() > 4 || block_dims_not_rank_minus_2;
}

// SpaceToBatchND and BatchToSpaceND under tflite: tf-cpu rejects negative block values or
// negative paddings, which TensorFlow Lite does not check.
inline bool unchecked_block_or_paddings(const OpCall&, const Status* expected_error, const Status&) {
  const std::string_view message = expected_message(expected_error);
  return contains(message, "must be positive") || message == "Paddings must be non-negative";
}

// SpaceToBatchND and BatchToSpaceND under tflite: int8 or uint8 data with a non-zero entry in
// the paddings (SpaceToBatchND) or crops (BatchToSpaceND), which TensorFlow Lite pads with the
// zero point.
inline bool zero_point_padding(const OpCall& call, const Status*, const Status&) {
  const Tensor* input = call.find_tensor("input");
  if (!input || (input->dtype() != DType::kInt8 && input->dtype() != DType::kUInt8)) return false;
  const Tensor* t = call.find_tensor("paddings");
  if (t == nullptr) t = call.find_tensor("crops");
  if (t == nullptr || (t->dtype() != DType::kInt32 && t->dtype() != DType::kInt64)) return false;
  for (std::int64_t i = 0; i < t->num_elements(); ++i)
    if (t->index_value(i) != 0) return true;
  return false;
}

// The facts of SpaceToBatchND and BatchToSpaceND.
inline constexpr ProfileDtypes kSpaceBatchDtypes[] = {
    {"tflite", "input", kTfliteTypes, "TensorFlow Lite's kernel takes float32, uint8, int8, int32 and int64 only"}};
inline constexpr ProfileDifference kSpaceBatchDifferences[] = {
    {"xla", Disagreement::kErrorMismatch, &same_code, "XLA checks in another order and words its checks otherwise"},
    {"xla", Disagreement::kErrorVsValue, &exceeds_four_block_dims, "XLA has no four-dim limit"},
    {"tflite", Disagreement::kValueVsError | Disagreement::kErrorMismatch, &outside_tflite_ranks,
     "TensorFlow Lite takes input rank 3 or 4 with rank - 2 block dims only"},
    {"tflite", Disagreement::kErrorVsValue, &unchecked_block_or_paddings,
     "TensorFlow Lite checks neither the sign of block values nor negative paddings"},
    {"tflite", Disagreement::kMismatch, &zero_point_padding, "TensorFlow Lite pads int8 and uint8 with the zero point"},
};

// DynamicStitch and ParallelDynamicStitch under xla: older XLA rejects gaps.
inline bool rejects_gaps(const OpCall&, const Status*, const Status& actual) {
  return contains(actual.message(), "not all indices are used");
}

// The facts of DynamicStitch and ParallelDynamicStitch.
inline constexpr ProfileDifference kStitchDifferences[] = {
    {"xla", Disagreement::kErrorMismatch, &same_code, "XLA checks in another order and words its checks otherwise"},
    {"xla", Disagreement::kValueVsError, &rejects_gaps, "older XLA rejects gaps: not all indices are used"},
};

// SpaceToDepth and DepthToSpace: tf-cpu rejects the data_format (NCHW, NCHW_VECT_C).
inline bool only_nhwc_on_cpu(const OpCall&, const Status* expected_error, const Status&) {
  return contains(expected_message(expected_error), "Only NHWC data_format supported");
}

// SpaceToDepth and DepthToSpace under tflite: block_size 1, which TensorFlow Lite accepts.
inline bool block_size_one(const OpCall& call, const Status*, const Status&) {
  const std::int64_t* block = call.find_attr("block_size");
  return block && *block == 1;
}

// SpaceToDepth and DepthToSpace under xla: the types of the XLA device in every version of
// tensorflow/compiler/tf2xla/xla_op_registry.h read (the kernels take any T the device has;
// newer versions add more).
inline constexpr DType kXlaEveryVersionTypes[] = {DType::kInt32, DType::kInt64, DType::kFloat32, DType::kFloat64,
                                                  DType::kBool};

// SpaceToDepth and DepthToSpace under xla: tf-cpu has no kernel for the quint8 or qint32 data,
// which newer XLA device type lists hold.
inline bool quantized_unregistered_on_cpu(const OpCall& call, const Status* expected_error, const Status&) {
  const Tensor* input = call.find_tensor("input");
  return input && (input->dtype() == DType::kQUInt8 || input->dtype() == DType::kQInt32) && expected_error &&
         expected_error->code() == Code::kUnimplemented;
}

// The facts of SpaceToDepth and DepthToSpace.
inline constexpr ProfileDtypes kDepthSpaceDtypes[] = {
    {"tflite", "input", kTfliteTypes, "TensorFlow Lite's kernel takes float32, uint8, int8, int32 and int64 only"},
    {"xla", "input", kXlaEveryVersionTypes,
     "XLA takes the XLA device's types, which vary by version: int32, int64, float32, float64 and bool in all"},
};
inline constexpr ProfileDifference kDepthSpaceDifferences[] = {
    {"xla", Disagreement::kErrorMismatch, &same_code,
     "XLA words its rank and divisibility checks otherwise (tf2xla/kernels/spacetodepth_op.cc, depthtospace_op.cc)"},
    {"xla", Disagreement::kErrorVsValue | Disagreement::kErrorMismatch, &only_nhwc_on_cpu,
     "XLA lowers NCHW and NCHW_VECT_C too (the value is not checked)"},
    {"xla", Disagreement::kErrorVsValue, &quantized_unregistered_on_cpu,
     "newer XLA devices take quint8 and qint32, for which tf-cpu has no kernel"},
    {"tflite", Disagreement::kErrorMismatch, &only_nhwc_on_cpu,
     "TensorFlow Lite has no data_format: NCHW and NCHW_VECT_C cannot be expressed"},
    {"tflite", Disagreement::kErrorVsValue, &block_size_one, "TensorFlow Lite does not check block_size >= 2"},
};

}  // namespace opconform::profile_facts
