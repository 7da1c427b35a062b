// Private helpers of the optimized SpaceToDepth and DepthToSpace (docs/contract/
// space_to_depth.md): their shared checks and the one kernel both ops are.
//
// In NHWC both ops are a permutation of runs of b*C contiguous elements, C the depth of the
// space side [N, H, W, C]: the run of space row (n, h) at block column j (elements
// [j*b, j*b + b) of W, all C of each) is run s = (n*H + h)*(W/b) + j of the space side, and
// run d = ((n*(H/b) + h/b)*(W/b) + j)*b + h%b of the depth side [N, H/b, W/b, b*b*C].
// SpaceToDepth copies run s to run d; DepthToSpace copies run d to run s.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "opconform/ops.h"

namespace opconform::optimized::depth_space {

// Pre-check 2 (block_size >= 2, data_format one of the three), pre-check 3 (`op`'s CPU
// registration: the dtype, then NHWC), step 1 (block_size fits int32), step 2 (rank 4).
Status check_common(const char* op, const Tensor& input, std::int64_t block_size, std::string_view data_format,
                    std::string_view rank_message);

// The space side's shape [N, H, W, C] and the block size of a validated call.
struct Geometry {
  std::int64_t batch = 0, height = 0, width = 0, depth = 0, block = 2;
};

// The memory request for an output of `dtype` and `*shape`, then the output, uninitialised
// (the kernel writes every element); it takes *shape (no copy; intact on an error). An
// optional, not a Tensor: a default-constructed Tensor costs a heap allocation of its own.
Status allocate_output(DType dtype, Shape* shape, const ExecOptions& options, std::optional<Tensor>* output);

// Moves every run from `src` to `dst`; `to_depth`: src is the space side (SpaceToDepth).
// Works by depth-side rows (depth_space_kernel.cc): each is its b space rows interleaved in
// chunks of b*C elements. Threads per thread_policy.h; rows are cut into tiles of
// options.tile_bytes (16 KiB by default) of output, at least one position (b chunks). Every
// output element is written exactly once by one thread, so the result does not depend on the
// knobs. There is no streaming-store path (on the 2-core guest, staged streaming stores lost to
// cached ones: DepthToSpace 0.78-0.81 of memcpy against 0.94-1.06), so
// options.streaming_min_bytes is not used.
void move_runs(const Geometry& g, bool to_depth, const Tensor& src, Tensor& dst, const ExecOptions& options);

}  // namespace opconform::optimized::depth_space
