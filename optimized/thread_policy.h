// Private helper of the optimized DynamicStitch, DynamicPartition and SparseConcat: how many
// worker threads a kernel runs on, from ExecOptions::num_threads and the size of the work.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>

namespace opconform::optimized::thread_policy {

// Below this many bytes of work a kernel runs on the calling thread: waking a team costs more.
inline constexpr std::int64_t kMinParallelBytes = std::int64_t{1} << 18;

// Worker threads for ExecOptions::num_threads and `work_bytes` of work, at least 1. An explicit
// count is honoured whatever the work (tests and fuzzers choose it to run the threaded paths on
// small inputs), up to the processors OpenMP sees: more threads than processors only wait for
// each other. 0 means OpenMP's default, or 1 below kMinParallelBytes. The thread count only ever
// changes who runs the chunks, never the result.
inline int resolve_threads(int requested, std::int64_t work_bytes) {
  if (requested > 0) return std::max(1, std::min(requested, omp_get_num_procs()));
  if (work_bytes < kMinParallelBytes) return 1;
  const int threads = omp_get_max_threads();
  return threads > 0 ? threads : 1;
}

}  // namespace opconform::optimized::thread_policy
