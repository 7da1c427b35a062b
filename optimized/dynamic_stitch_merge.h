// Private helper of optimized DynamicStitch and ParallelDynamicStitch (nothing else includes
// it, except the size sweep's work benchmark, bench/sweep_bench.cc): their data movement
// alone, without the validation and the output allocation, so that it can be timed on its own.
#pragma once

#include <span>

#include "opconform/exec.h"
#include "opconform/tensor.h"

namespace opconform::optimized::dynamic_stitch {

// Writes every row of `merged`: the row of its last writer (m, i) in order over m then flat i,
// or zero where no index names it. Preconditions (what the ops' validation establishes):
// indices and data pass the page's checks 0-2, every index lies in [0, merged.dim(0)), and
// `merged` is allocated with data[0]'s dtype and shape [rows] + data[0].shape[indices[0].rank:].
// Results do not depend on options.num_threads, options.tile_bytes or
// options.streaming_min_bytes. Throws std::bad_alloc when its scratch (at most ~5% of the
// output) cannot be allocated.
void merge(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor& merged, const ExecOptions& options);

}  // namespace opconform::optimized::dynamic_stitch
