// Shared helpers for every benchmark file in bench/ (one Google Benchmark 1.7 binary).
//
// A case is one op call on fixed inputs. register_case() adds, per case:
//   <Op>/<case>/optimized/threads:1, <Op>/<case>/optimized/threads:2,
//   <Op>/<case>/reference (few iterations: the reference materialises copies; only when the
//   case has a reference function, as have all but the sweep's large sizes),
//   <Op>/<case>/memcpy (memcpy of output_bytes between two preallocated, pre-faulted buffers,
//   on huge pages where the ops' outputs are: tensor.h's advise_huge_pages),
//   <Op>/<case>/alloc_memcpy, <Op>/<case>/naive, <Op>/<case>/naive_stream, <Op>/<case>/work
//   and <Op>/<case>/naive_work where the case has them (Case below),
//   <Op>/<case>/verify (untimed check: optimized on 1 and 2 threads equals the reference bit
//   for bit, dtype and shape included; fails the benchmark otherwise; also only with a
//   reference function),
// all with UseRealTime and SetBytesProcessed(iterations * output_bytes), so ratios of the same
// case in the same run compare the kernel with a plain copy. The op benchmarks also report
// the counters peak_extra_bytes / peak_extra_pct: the most heap bytes live at once during one
// call beyond those live before it and beyond output_bytes (requested bytes, counted by the
// binary's global operator new/delete, bench_common.cc; the worst call of the run).
//
//   static const bool registered = [] {
//     auto inputs = std::make_shared<bench::Lazy<Tensor>>([] { return bench::iota_tensor(...); });
//     bench::register_case({"SpaceToBatchND", "f32_8x256x256x32_b2x2", output_bytes,
//                           [=](const ExecOptions& o, std::vector<Tensor>* keep) {
//                             Tensor out;
//                             return keep_outputs(optimized::...(inputs->get(), ..., &out, o), keep, out); },
//                           [=](const ExecOptions& o, std::vector<Tensor>* keep) { ... reference ... }});
//     return true;
//   }();
//
// Allocator: the binary pools freed blocks of 1 MiB and more and hands them to the next
// request they fit, so an op's freshly allocated output reuses the previous call's pages
// instead of page-faulting 4 KiB pages in every call, as TensorFlow's pooling allocator does.
// Set OPCONFORM_BENCH_NO_POOL=1 to measure with plain malloc.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::bench {

// One call of one implementation. Timed calls pass keep = nullptr and the callee drops its
// outputs; the verify benchmark passes a vector that receives every output, in order.
using RunFn = std::function<Status(const ExecOptions& options, std::vector<Tensor>* keep)>;

struct Case {
  std::string op;             // "SpaceToBatchND"
  std::string name;           // "f32_8x256x256x32_b2x2" (no '/')
  std::int64_t output_bytes;  // payload bytes of all outputs one call writes
  RunFn optimized;
  RunFn reference;                        // may be empty: then no reference and no verify benchmark
  std::function<void()> prepare = {};     // builds the inputs before timing; may be empty
  std::int64_t reference_iterations = 1;  // per repetition
  // Seconds each optimized and memcpy repetition runs at least; 0: --benchmark_min_time.
  double min_time = 0;
  // false: the memcpy baseline's buffers are two malloc blocks, wherever malloc puts them.
  // true: one block, the source page-aligned and the target half a page further on modulo
  // the page, so the copy's speed does not depend on where malloc happened to put them
  // (glibc's `rep movsb` copy is 20-30x slower on this AMD guest for some relative placements
  // of small buffers).
  bool memcpy_half_page_apart = false;
  // The outputs' shapes (float32, in output order); when set, <prefix>alloc_memcpy: each output
  // allocated as the ops allocate it (Tensor::uninitialized) and filled by one memcpy, the floor
  // of a whole call. The kernel's time minus this is its fixed cost.
  std::vector<Shape> output_shapes = {};
  // When set, <prefix>naive: a plain row-copy loop into freshly allocated outputs, without
  // validation (what the kernel's data movement must at least match).
  RunFn naive = {};
  // When set, <prefix>naive_stream: the same loop writing with streaming stores (the floor of
  // writing rows to random destinations around the caches).
  RunFn naive_stream = {};
  // When set, <prefix>work: the optimized kernel's data movement alone, on one thread, into
  // an output allocated and faulted in before the timing, without validation (the private
  // entry point the op calls once its checks pass). The verify benchmark checks its output
  // too (keep receives the held output).
  RunFn work = {};
  // When set, <prefix>naive_work: the plain loop of `naive` into that same held output, so
  // that work and naive_work compare the data movement alone.
  RunFn naive_work = {};
};

// Registers the four benchmarks of `c` (see the file comment). Call before benchmark's main
// runs, e.g. from a static initializer.
void register_case(Case c);

// Returns `status`; on success moves `outputs` into *keep when keep is not null.
template <class... Outputs>
Status keep_outputs(Status status, std::vector<Tensor>* keep, Outputs&... outputs) {
  if (keep != nullptr && status.ok()) (keep->push_back(std::move(outputs)), ...);
  return status;
}
Status keep_outputs(Status status, std::vector<Tensor>* keep, std::vector<Tensor>& outputs);

// Heap accounting of the bench binary (bench_common.cc): bytes live now and the most live
// since the last reset_peak_heap_bytes().
std::int64_t live_heap_bytes();
std::int64_t peak_heap_bytes();
void reset_peak_heap_bytes();

// A tensor of `dtype` and `shape` whose elements hold distinct bit patterns where the width
// allows (element i holds i converted to the element type; floats: i as a float, so values
// stay distinct up to 2^24 and then repeat). Strings hold their decimal index.
Tensor iota_tensor(DType dtype, const Shape& shape);

// Payload bytes of a tensor: num_elements * dtype_storage_size.
std::int64_t tensor_bytes(const Tensor& t);

// A value built on first use, so inputs of cases that the --benchmark_filter skips are never
// allocated.
template <class T>
class Lazy {
 public:
  explicit Lazy(std::function<T()> make) : make_(std::move(make)) {}
  T& get() {
    if (!value_) value_.emplace(make_());
    return *value_;
  }

 private:
  std::function<T()> make_;
  std::optional<T> value_;
};

}  // namespace opconform::bench
