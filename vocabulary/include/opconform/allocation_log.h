// SPDX-License-Identifier: Apache-2.0
// Which Tensors a piece of code allocated: while a TensorAllocationLog is alive, every Tensor
// its thread constructs with a buffer of its own (the constructors, uninitialized() and
// clone(); not copies, which share a buffer) is recorded with its dtype and shape, empty
// tensors included. Kernels allocate Tensors only for their outputs, so around an op call the
// log lists the outputs the op allocated (ops.h: none before validation).
//
//   TensorAllocationLog log;
//   Status s = table.space_to_batch_nd(input, block, paddings, &out, options);
//   if (!s.ok() && !log.entries().empty()) ...   // allocated, then failed
//
// Logs nest: only the innermost live log of a thread records.
#pragma once

#include <string>
#include <vector>

#include "opconform/dtype.h"
#include "opconform/shape.h"

namespace opconform {

struct TensorAllocation {
  DType dtype;
  Shape shape;
};

class TensorAllocationLog {
 public:
  TensorAllocationLog();
  ~TensorAllocationLog();
  TensorAllocationLog(const TensorAllocationLog&) = delete;
  TensorAllocationLog& operator=(const TensorAllocationLog&) = delete;

  const std::vector<TensorAllocation>& entries() const { return entries_; }

  // Called by Tensor for each buffer it allocates.
  static void record(DType dtype, const Shape& shape);

 private:
  TensorAllocationLog* outer_;
  std::vector<TensorAllocation> entries_;
};

// "float32 [2,3], int64 [0]": the entries as a report prints them.
std::string allocations_string(const std::vector<TensorAllocation>& allocations);

}  // namespace opconform
