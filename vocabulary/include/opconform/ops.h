// SPDX-License-Identifier: Apache-2.0
// The ops of the suite (op_list.inc, the registry's list), the typed C++ signature each
// implementation layer exposes in its own namespace (opconform::reference,
// opconform::optimized), one op per header per layer, and OpTable, one implementation of them:
//
//   Status SpaceToBatchND(const Tensor& input, const Tensor& block_shape,
//                         const Tensor& paddings, Tensor* output, const ExecOptions& = {});
//
// Contract (docs/contract/README.md): on error the outputs are left untouched; on success
// they are replaced. Checks run in the spec's order; the first failing one is reported.
// Integer attributes are int64 so out-of-range attribute values can be expressed and rejected.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform {

// The typed C++ signatures, one per calling convention (op_list.inc names each op's).
using SpaceBatchKernel = Status(const Tensor& input, const Tensor& block_shape, const Tensor& paddings_or_crops,
                                Tensor* output, const ExecOptions& options);
using StitchKernel = Status(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                            const ExecOptions& options);
using PartitionKernel = Status(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                               std::vector<Tensor>* outputs, const ExecOptions& options);
using SparseConcatKernel = Status(std::span<const Tensor> indices, std::span<const Tensor> values,
                                  std::span<const Tensor> shapes, std::int64_t concat_dim, SparseTensor* output,
                                  const ExecOptions& options);
using DepthSpaceKernel = Status(const Tensor& input, std::int64_t block_size, std::string_view data_format,
                                Tensor* output, const ExecOptions& options);

enum class Op {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) k##Name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
};
inline constexpr Op kAllOps[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) Op::k##Name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
};
inline constexpr int kNumOps = static_cast<int>(std::size(kAllOps));

// TensorFlow's name ("SpaceToBatchND") and snake_case name ("space_to_batch_nd").
inline const char* op_name(Op op) {
  constexpr const char* kNames[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) #Name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  };
  const int i = static_cast<int>(op);
  return i >= 0 && i < kNumOps ? kNames[i] : "?";
}
inline const char* op_snake_name(Op op) {
  constexpr const char* kNames[] = {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) #snake_name,
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  };
  const int i = static_cast<int>(op);
  return i >= 0 && i < kNumOps ? kNames[i] : "?";
}
// The op with TensorFlow's name `name` (what vectors and the protocol say).
inline std::optional<Op> op_from_name(std::string_view name) {
  for (Op op : kAllOps)
    if (name == op_name(op)) return op;
  return std::nullopt;
}
// The op with this name or snake_case name (what command lines accept).
inline std::optional<Op> op_from_either_name(std::string_view name) {
  for (Op op : kAllOps)
    if (name == op_name(op) || name == op_snake_name(op)) return op;
  return std::nullopt;
}

// One implementation of the ops, so tests, benchmarks, fuzzers and the validator can run
// "each implementation" through one list: a name, then one kernel per op in op_list.inc's
// order (null: not provided). New ops are appended, so a table written by position keeps its
// meaning.
struct OpTable {
  const char* name;
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) Kernel* snake_name;
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
};

// Whether `table` has a kernel for `op` (its entry is not null).
inline bool provides(const OpTable& table, Op op) {
  switch (op) {
#define OPCONFORM_OP(Name, snake_name, UPPER_NAME, Kernel) \
  case Op::k##Name:                                        \
    return table.snake_name != nullptr;
#include "opconform/op_list.inc"
#undef OPCONFORM_OP
  }
  return false;
}

}  // namespace opconform
