// SPDX-License-Identifier: Apache-2.0
// The signatures every implementation layer exposes, in its own namespace
// (opconform::reference, opconform::optimized), one op per header per layer:
//
//   Status SpaceToBatchND(const Tensor& input, const Tensor& block_shape,
//                         const Tensor& paddings, Tensor* output, const ExecOptions& = {});
//   Status BatchToSpaceND(const Tensor& input, const Tensor& block_shape,
//                         const Tensor& crops, Tensor* output, const ExecOptions& = {});
//   Status DynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data,
//                        Tensor* merged, const ExecOptions& = {});
//   Status ParallelDynamicStitch(...same as DynamicStitch...);
//   Status DynamicPartition(const Tensor& data, const Tensor& partitions,
//                           std::int64_t num_partitions, std::vector<Tensor>* outputs,
//                           const ExecOptions& = {});
//   Status SparseConcat(std::span<const Tensor> indices, std::span<const Tensor> values,
//                       std::span<const Tensor> shapes, std::int64_t concat_dim,
//                       SparseTensor* output, const ExecOptions& = {});
//
// Contract (docs/contract/README.md): on error the outputs are left untouched; on success
// they are replaced. Checks run in the spec's order; the first failing one is reported.
// Attributes are int64 so out-of-range attribute values can be expressed and rejected.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform {

enum class Op {
  kSpaceToBatchND,
  kBatchToSpaceND,
  kDynamicStitch,
  kParallelDynamicStitch,
  kDynamicPartition,
  kSparseConcat,
};
inline constexpr int kNumOps = 6;
inline constexpr Op kAllOps[kNumOps] = {Op::kSpaceToBatchND,    Op::kBatchToSpaceND,
                                        Op::kDynamicStitch,     Op::kParallelDynamicStitch,
                                        Op::kDynamicPartition,  Op::kSparseConcat};

inline const char* op_name(Op op) {
  switch (op) {
    case Op::kSpaceToBatchND: return "SpaceToBatchND";
    case Op::kBatchToSpaceND: return "BatchToSpaceND";
    case Op::kDynamicStitch: return "DynamicStitch";
    case Op::kParallelDynamicStitch: return "ParallelDynamicStitch";
    case Op::kDynamicPartition: return "DynamicPartition";
    case Op::kSparseConcat: return "SparseConcat";
  }
  return "?";
}

// One implementation of all six ops, so tests, benchmarks, fuzzers and the validator can run
// "each implementation" through one list.
struct OpTable {
  const char* name;
  Status (*space_to_batch_nd)(const Tensor&, const Tensor&, const Tensor&, Tensor*,
                              const ExecOptions&);
  Status (*batch_to_space_nd)(const Tensor&, const Tensor&, const Tensor&, Tensor*,
                              const ExecOptions&);
  Status (*dynamic_stitch)(std::span<const Tensor>, std::span<const Tensor>, Tensor*,
                           const ExecOptions&);
  Status (*parallel_dynamic_stitch)(std::span<const Tensor>, std::span<const Tensor>, Tensor*,
                                    const ExecOptions&);
  Status (*dynamic_partition)(const Tensor&, const Tensor&, std::int64_t, std::vector<Tensor>*,
                              const ExecOptions&);
  Status (*sparse_concat)(std::span<const Tensor>, std::span<const Tensor>,
                          std::span<const Tensor>, std::int64_t, SparseTensor*,
                          const ExecOptions&);
};

// Whether `table` has a kernel for `op` (its entry is not null).
inline bool provides(const OpTable& table, Op op) {
  switch (op) {
    case Op::kSpaceToBatchND: return table.space_to_batch_nd != nullptr;
    case Op::kBatchToSpaceND: return table.batch_to_space_nd != nullptr;
    case Op::kDynamicStitch: return table.dynamic_stitch != nullptr;
    case Op::kParallelDynamicStitch: return table.parallel_dynamic_stitch != nullptr;
    case Op::kDynamicPartition: return table.dynamic_partition != nullptr;
    case Op::kSparseConcat: return table.sparse_concat != nullptr;
  }
  return false;
}

}  // namespace opconform
