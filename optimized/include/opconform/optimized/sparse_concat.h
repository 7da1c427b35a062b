// SPDX-License-Identifier: Apache-2.0
// Optimized SparseConcat (docs/contract/sparse_concat.md).
#pragma once

#include "opconform/ops.h"

namespace opconform::optimized {

// Concatenates N >= 2 sparse tensors along concat_dim (negative counts from the end); the
// output entries are sorted row-major, duplicates kept.
Status SparseConcat(std::span<const Tensor> indices, std::span<const Tensor> values, std::span<const Tensor> shapes,
                    std::int64_t concat_dim, SparseTensor* output, const ExecOptions& options = {});

}  // namespace opconform::optimized
