// SPDX-License-Identifier: Apache-2.0
// What every op takes besides its inputs: the caller's memory limit (spec README, "Memory
// accounting") and the execution knobs of the optimized layer (the reference ignores them).
#pragma once

#include <cstdint>
#include <string>

#include "opconform/dtype.h"
#include "opconform/shape.h"
#include "opconform/status.h"

namespace opconform {

// Bytes an op's outputs may request in total when the caller names no limit.
inline constexpr std::int64_t kDefaultMemoryLimit = std::int64_t{4} << 30;

// The optimized kernels' execution knobs (the reference ignores them); results never depend on
// them. A conformance case carries its memory limit itself, so what runs a case takes these.
struct Knobs {
  // Worker threads at most (0: the hardware's count); a call starts a second thread only when
  // the bytes it moves pay for starting it, and keeps to one where calls of its size, timed as
  // they ran, showed that a second did not pay on this machine. With tile_bytes set too,
  // exactly this many (tests and fuzzers reach the threaded paths on small inputs that way).
  int num_threads = 0;
  // Tile size in bytes for blocked loops (0: the kernel's default).
  std::int64_t tile_bytes = 0;
  // Outputs of at least this many bytes take the kernel's streaming-store paths where it has
  // them (0: the kernel's default, sized to the machine's caches; 1: every eligible output).
  // Tests and fuzzers set it to reach those paths on small inputs.
  std::int64_t streaming_min_bytes = 0;
};

// What an op call takes besides its inputs: the knobs and the memory limit.
struct ExecOptions : Knobs {
  // Bytes the op's outputs may request in total (64 + elements * width per output).
  std::int64_t memory_limit_bytes = kDefaultMemoryLimit;
};

// "num_threads=<n> tile_bytes=<t> streaming_min_bytes=<s>": the optimized kernels' knobs, as
// failure reports print them.
std::string knobs_string(const Knobs& knobs);

// Running total of an op's output requests against the limit, outputs in their order:
//   MemoryAccount account(options.memory_limit_bytes);
//   OPCONFORM_RETURN_IF_ERROR(account.request(dtype, shape));   // per output, then allocate
// request() fails with RESOURCE_EXHAUSTED
// "OOM when allocating tensor with shape<shape> and type <dtype>" once the total exceeds the
// limit or overflows. Precondition: the shape is valid (dims >= 0, element count fits).
class MemoryAccount {
 public:
  explicit MemoryAccount(std::int64_t limit_bytes) : limit_(limit_bytes) {}
  Status request(DType dtype, const Shape& shape);
  std::int64_t total_bytes() const { return total_; }

 private:
  std::int64_t limit_;
  std::int64_t total_ = 0;
};

// Bytes one output of this dtype and shape counts for: 64 + elements * width, or -1 when
// that overflows int64.
std::int64_t output_request_bytes(DType dtype, const Shape& shape);

}  // namespace opconform
