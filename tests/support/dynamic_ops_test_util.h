// Helpers shared by the optimized DynamicStitch, DynamicPartition and SparseConcat tests: the
// dtype list of the tile-boundary matrix, the thread counts, and poisoned, fenced outputs.
// Tensors and comparison: tensor_test_util.h.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/status.h"
#include "opconform/tensor.h"
#include "tensor_test_util.h"

namespace opconform::testing {

// Poisons every uninitialised output and fences every buffer for the whole test binary, so an
// element a kernel forgot shows up in comparisons and a write past the end is caught.
inline const bool kBufferChecksEnabled = [] {
  set_buffer_checks({.enabled = true, .poison_byte = 0xA5, .guard_bytes = 64});
  return true;
}();

// One dtype per element width (1, 2, 4, 8, 16 bytes), bool and string.
inline const std::vector<DType> kMatrixDtypes = {DType::kInt8,       DType::kFloat16, DType::kFloat32, DType::kInt64,
                                                 DType::kComplex128, DType::kBool,    DType::kString};

// The thread counts every kernel is driven with.
inline const std::vector<int> kThreadCounts = {1, 2, 3, 7};

}  // namespace opconform::testing
