// SPDX-License-Identifier: Apache-2.0
// Optimized DynamicPartition (docs/contract/dynamic_stitch.md).
#pragma once

#include "opconform/ops.h"

namespace opconform::optimized {

// outputs[p] = the slices data[j...] with partitions[j...] == p, in row-major order of j.
Status DynamicPartition(const Tensor& data, const Tensor& partitions, std::int64_t num_partitions,
                        std::vector<Tensor>* outputs, const ExecOptions& options = {});

}  // namespace opconform::optimized
