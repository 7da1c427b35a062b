// Private helper of every optimized kernel: how many worker threads a call runs on, and
// running a body on them without entering OpenMP at all when that is one thread.
//
// The decision weighs the bytes a call moves against the measured cost of starting and
// joining a parallel region (region_start_ns(), measured once per process, on first need):
// a second thread only runs when the time it saves, at kBytesPerNs per thread, is
// kPayoffFactor times that cost for every region the call starts. So two threads are never
// slower than one by more than the regions' start-up, whatever the thread count asked for.
// The thread count only ever changes who runs the chunks, never the result.
#pragma once

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

#include "opconform/exec.h"

namespace opconform::optimized::thread_policy {

// Below this many bytes of work no thread is started and nothing is measured (a region costs
// microseconds; 64 KiB take a thread about 4 us to copy).
inline constexpr std::int64_t kMinParallelBytes = std::int64_t{64} << 10;
// One thread's copy speed inside the caches, bytes per ns: what a second thread takes over.
inline constexpr std::int64_t kBytesPerNs = 16;
// A thread must save this many times the region's start-up cost: the second thread shares
// the memory bandwidth and the start-up varies (a busy core, a sleeping worker).
inline constexpr std::int64_t kPayoffFactor = 4;

// Processors OpenMP may use, read once (omp_get_num_procs() asks the kernel on every call).
inline int processors() {
  static const int procs = std::max(1, omp_get_num_procs());
  return procs;
}

// Nanoseconds to start and join an empty parallel region of two threads: the median of 9
// after 2 warm-ups (the first creates the workers), measured once per process.
inline std::int64_t region_start_ns() {
  static const std::int64_t ns = [] {
    std::int64_t t[9];
    for (int i = -2; i < 9; ++i) {
      const auto start = std::chrono::steady_clock::now();
#pragma omp parallel num_threads(2)
      { asm volatile("" ::: "memory"); }
      const auto took = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start);
      if (i >= 0) t[i] = took.count();
    }
    std::nth_element(t, t + 4, t + 9);
    return std::max<std::int64_t>(t[4], 1000);
  }();
  return ns;
}

// Bytes of work each thread must have for starting a region to pay.
inline std::int64_t min_bytes_per_thread() {
  return std::max(kMinParallelBytes, kPayoffFactor * kBytesPerNs * region_start_ns());
}

// Worker threads for a call moving `work_bytes` through `regions` parallel regions (each one
// costs region_start_ns() to start), at least 1. The cap is ExecOptions::num_threads (0:
// OpenMP's default), at most the processors OpenMP sees. Within it, the work decides: one
// thread per min_bytes_per_thread() of work per region. An explicit thread count with an
// explicit tile (tile_bytes > 0: tests and fuzzers injecting both to run the threaded paths on
// small inputs) is honoured whatever the work.
inline int threads_for(const Knobs& options, std::int64_t work_bytes, int regions = 1) {
  const bool injected = options.num_threads > 0 && options.tile_bytes > 0;
  // Small work first: no call into OpenMP (omp_get_max_threads is a library call).
  if (!injected && work_bytes / regions < 2 * kMinParallelBytes) return 1;
  const int cap =
      options.num_threads > 0 ? std::min(options.num_threads, processors()) : std::max(1, omp_get_max_threads());
  if (cap <= 1) return 1;
  if (injected) return cap;
  return static_cast<int>(std::clamp<std::int64_t>(work_bytes / regions / min_bytes_per_thread(), 1, cap));
}

// Runs body(t, count) for t in [0, count), count = `threads` (or fewer, as OpenMP grants):
// one thread runs it on the caller, outside OpenMP (no region, no system call).
template <class F>
void run_threads(int threads, F&& body) {
  if (threads <= 1) {
    body(std::int64_t{0}, std::int64_t{1});
    return;
  }
#pragma omp parallel num_threads(threads)
  body(std::int64_t{omp_get_thread_num()}, std::int64_t{omp_get_num_threads()});
}

// [begin of share t, begin of share t + 1) of n items cut into `count` near-equal shares.
inline std::int64_t share_begin(std::int64_t n, std::int64_t count, std::int64_t t) {
  return n / count * t + std::min(t, n % count);
}

}  // namespace opconform::optimized::thread_policy
