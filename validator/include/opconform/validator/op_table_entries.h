// Which ops an in-process OpTable provides (its non-null entries). Header-only on
// opconform/ops.h alone, so that the fuzz driver (fuzz/impl_target.cc) and the GoogleTest suite
// (gtest/suite.cc) share it without linking the validator.
#pragma once

#include "opconform/ops.h"

namespace opconform::validator {

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

}  // namespace opconform::validator
