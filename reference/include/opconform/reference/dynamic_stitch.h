// SPDX-License-Identifier: Apache-2.0
// Reference DynamicStitch and ParallelDynamicStitch (docs/contract/dynamic_stitch.md).
#pragma once

#include "opconform/ops.h"

namespace opconform::reference {

// merged[indices[m][i...], ...] = data[m][i..., ...]; the last (m, i) wins; gaps are T{}.
Status DynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                     const ExecOptions& options = {});

// As DynamicStitch; which list wins a duplicate index across lists is unspecified.
Status ParallelDynamicStitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                             const ExecOptions& options = {});

}  // namespace opconform::reference
