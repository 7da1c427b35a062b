// Size sweep (binary opconform_bench_sweep, apart from the fixed table's opconform_bench): one
// case per op and output size, from 4 KiB to 1 GiB of output in three steps per octave (x1,
// x1.25, x1.5), each registered through bench_common.h's register_case, so every size runs
// the optimized kernel on 1 and 2 threads and a memcpy of the same output bytes in the same
// process (pre-faulted buffers, pooling allocator). The reference and verify benchmarks exist
// only up to kReferenceMaxBytes (the reference kernels take seconds to minutes at 1 GiB).
//
//   SpaceToBatchND  float32 input [1, H, 8, 16], block [2, 2], no padding (64 B chunks);
//   BatchToSpaceND  the SpaceToBatchND output of the same size, [4, H/2, 4, 16], crops 0
//                   (both also have naive_stream: the plain loop in space order with
//                   streaming stores, the batch side four interleaved streams);
//   DynamicStitch, ParallelDynamicStitch
//                   a random permutation of N float32 rows of 256 B in 4 equal index lists
//                   (DynamicStitch also has naive_stream: the plain loop with streaming
//                   stores, the floor of writing rows to random destinations around the
//                   caches);
//   DynamicPartition
//                   N rows of 256 B, each to a uniformly random one of 4 partitions (with
//                   naive_stream: the plain loop with streaming stores);
//   (the three row ops also with rows of 64 B, the narrowest the in-cache figures cover,
//   from 64 KiB to 32 MiB: <rows>x64B in the case name);
//   SparseConcat    4 inputs of rank 3, shape [D, 16, 16], n entries each at distinct random
//                   coordinates (a quarter of the cells), sorted row-major, concat dim 1
//                   (the merge by prefix runs); output bytes = 28 per entry + 24.
//
// Benchmark names are <Op>/<bytes>B_<shape>/<impl>; bench/sweep_report.py reads the bytes from
// the name. The memcpy baselines use Case::memcpy_half_page_apart: at the small sizes the
// placement malloc happens to give two buffers decides whether glibc's copy runs at full speed
// or 20-30x slower on this machine. Registration is size-major (every op at one size, then the next size), and only
// one input set is alive at a time: building the next case's inputs releases the previous
// case's (this relies on the benchmarks running in registration order, i.e. without
// --benchmark_enable_random_interleaving, which still works, only rebuilding inputs often).
//
//   bench/measure.sh --sweep build-bench bench/results/sweep-a
//   python3 bench/sweep_report.py bench/results/sweep-*/sweep.json.gz
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "bench_common.h"
#include "dynamic_stitch_merge.h"
#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/dynamic_partition.h"
#include "opconform/optimized/dynamic_stitch.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/optimized/sparse_concat.h"
#include "opconform/reference/batch_to_space_nd.h"
#include "opconform/reference/dynamic_partition.h"
#include "opconform/reference/dynamic_stitch.h"
#include "opconform/reference/space_to_batch_nd.h"
#include "opconform/reference/sparse_concat.h"
#include "opconform/tensor.h"
#include "row_copy.h"
#include "space_batch_movers.h"

namespace opconform::bench {
namespace {

constexpr std::int64_t kMinBytes = std::int64_t{4} << 10;
constexpr std::int64_t kMaxBytes = std::int64_t{1} << 30;
constexpr std::int64_t kReferenceMaxBytes = std::int64_t{4} << 20;
// Seconds per repetition of each optimized and memcpy benchmark (the 1 GiB calls take longer
// than this on their own, so those run one call per repetition).
constexpr double kMinTime = 0.05;

// The work and naive_work benchmarks (bench_common.h) run up to here: from 16 MiB the whole
// call, validation and allocation included, is ahead of the plain loop with its allocation,
// and so is the work alone.
constexpr std::int64_t kWorkMaxBytes = std::int64_t{32} << 20;

// The output the work and naive_work benchmarks write into: allocated and faulted in on first
// use, kept with the case's inputs. `poisoned`: every byte set to 0xA5 first, so that a row the
// kernel fails to write shows in verify.
Tensor& held_output(std::optional<Tensor>& held, const Shape& shape, bool poisoned) {
  if (!held) {
    held.emplace(Tensor::uninitialized(DType::kFloat32, shape));
    std::memset(held->raw_data(), 0, static_cast<std::size_t>(tensor_bytes(*held)));
  }
  if (poisoned) std::memset(held->raw_data(), 0xA5, static_cast<std::size_t>(tensor_bytes(*held)));
  return *held;
}

// The inputs of the case being measured, the only ones alive: asking for another key drops
// the held inputs before building the new ones. Benchmarks call it from the main thread only,
// once per timed call, so it allocates nothing when the key is held: `make` is taken as it is
// (as a std::function it would copy the caller's lambda and its captures on every call).
class CurrentInputs {
 public:
  template <class T, class Make>
  T& get(const std::string& key, const Make& make) {
    if (key != key_) {
      held_.reset();
      key_.clear();
      held_ = std::make_shared<T>(make());
      key_ = key;
    }
    return *static_cast<T*>(held_.get());
  }

 private:
  std::string key_;
  std::shared_ptr<void> held_;
};

CurrentInputs& current() {
  static CurrentInputs* inputs = new CurrentInputs();
  return *inputs;
}

// Output sizes: 4 KiB x 2^k x {1, 1.25, 1.5} up to 1 GiB, all multiples of 1 KiB.
std::vector<std::int64_t> sweep_sizes() {
  std::vector<std::int64_t> sizes;
  for (std::int64_t octave = kMinBytes; octave <= kMaxBytes; octave *= 2)
    for (const std::int64_t quarters : {4, 5, 6})
      if (octave * quarters / 4 <= kMaxBytes) sizes.push_back(octave * quarters / 4);
  return sizes;
}

std::string name_of(std::int64_t bytes, const std::string& shape) { return std::to_string(bytes) + "B_" + shape; }

// ---- SpaceToBatchND / BatchToSpaceND -------------------------------------------------------

constexpr std::int64_t kSpaceW = 8, kSpaceC = 16;

struct SpaceInputs {
  Tensor data, block, zeros;
  std::optional<Tensor> held;  // work and naive_work's output
};

// The plain loops' naive_stream variants write with row_copy's streaming stores, which are
// plain stores without SSE2: there the cases have no naive_stream.
#if defined(__SSE2__)
constexpr bool kHasStreamingLoop = true;
#else
constexpr bool kHasStreamingLoop = false;
#endif

// The plain loop: one 64-byte memcpy per output position, in output order (no padding:
// batch-side (o0 * 2 + o1, y, x) is space-side (2y + o0, 2x + o1)). With `streaming`, the same
// chunks in space order (the space side one stream, the batch side four: the kernels' order)
// with streaming stores: the floor of four interleaved streams around the caches.
void space_batch_plain_loop(const Tensor& input, bool to_batch, std::int64_t h, Tensor& out, bool streaming = false) {
  const auto* s = static_cast<const std::byte*>(input.raw_data());
  auto* d = static_cast<std::byte*>(out.raw_data());
  constexpr std::int64_t kChunk = kSpaceC * 4;
  if (streaming) {
    for (std::int64_t sy = 0; sy < h; ++sy)
      for (std::int64_t sx = 0; sx < kSpaceW; ++sx) {
        const std::int64_t k = sy % 2 * 2 + sx % 2;
        const std::int64_t b = ((k * (h / 2) + sy / 2) * (kSpaceW / 2) + sx / 2) * kChunk;
        const std::int64_t sp = (sy * kSpaceW + sx) * kChunk;
        optimized::row_copy::stream_row(to_batch ? d + b : d + sp, to_batch ? s + sp : s + b, kChunk);
      }
    optimized::row_copy::stream_fence();
    return;
  }
  for (std::int64_t k = 0; k < 4; ++k)
    for (std::int64_t y = 0; y < h / 2; ++y)
      for (std::int64_t x = 0; x < kSpaceW / 2; ++x) {
        const std::int64_t b = ((k * (h / 2) + y) * (kSpaceW / 2) + x) * kChunk;
        const std::int64_t sp = ((2 * y + k / 2) * kSpaceW + 2 * x + k % 2) * kChunk;
        std::memcpy(to_batch ? d + b : d + sp, to_batch ? s + sp : s + b, kChunk);
      }
}

void register_space_batch(std::int64_t bytes) {
  const std::int64_t h = bytes / (kSpaceW * kSpaceC * 4);  // even: bytes is a multiple of 1 KiB
  const Shape space = {1, h, kSpaceW, kSpaceC};
  const Shape batch = {4, h / 2, kSpaceW / 2, kSpaceC};
  const bool with_reference = bytes <= kReferenceMaxBytes;
  for (const bool to_batch : {true, false}) {
    const std::string op = to_batch ? "SpaceToBatchND" : "BatchToSpaceND";
    const Shape& in_shape = to_batch ? space : batch;
    const std::string key = op + "/" + std::to_string(bytes);
    const std::string shape_name =
        to_batch ? "1x" + std::to_string(h) + "x8x16_b2x2" : "4x" + std::to_string(h / 2) + "x4x16_b2x2";
    auto inputs = [key, in_shape]() -> SpaceInputs& {
      return current().get<SpaceInputs>(key, [in_shape] {
        return SpaceInputs{iota_tensor(DType::kFloat32, in_shape), Tensor::from_values<std::int64_t>({2}, {2, 2}),
                           Tensor::from_values<std::int64_t>({2, 2}, {0, 0, 0, 0}), std::nullopt};
      });
    };
    const auto run = [inputs, to_batch](bool optimized) {
      return [inputs, to_batch, optimized](const ExecOptions& o, std::vector<Tensor>* keep) {
        SpaceInputs& in = inputs();
        Tensor out;
        Status status;
        if (to_batch)
          status = optimized ? optimized::SpaceToBatchND(in.data, in.block, in.zeros, &out, o)
                             : reference::SpaceToBatchND(in.data, in.block, in.zeros, &out, o);
        else
          status = optimized ? optimized::BatchToSpaceND(in.data, in.block, in.zeros, &out, o)
                             : reference::BatchToSpaceND(in.data, in.block, in.zeros, &out, o);
        return keep_outputs(status, keep, out);
      };
    };
    const auto plain_loop = [inputs, to_batch, h, out_shape = to_batch ? batch : space](bool streaming) -> RunFn {
      return [inputs, to_batch, h, out_shape, streaming](const ExecOptions&, std::vector<Tensor>* keep) {
        SpaceInputs& in = inputs();
        Tensor out;  // as a caller holds an output before the call
        out = Tensor::uninitialized(DType::kFloat32, out_shape);
        space_batch_plain_loop(in.data, to_batch, h, out, streaming);
        return keep_outputs(Status(), keep, out);
      };
    };
    const RunFn naive_work = [inputs, to_batch, h, out_shape = to_batch ? batch : space](const ExecOptions&,
                                                                                         std::vector<Tensor>*) {
      SpaceInputs& in = inputs();
      space_batch_plain_loop(in.data, to_batch, h, held_output(in.held, out_shape, false));
      return Status();
    };
    // The kernel's work: the collapsed plan, built as the op builds it once its checks pass
    // (space [H, 8] in blocks [2, 2], depth 16), then the data-movement kernel.
    const RunFn work = [inputs, to_batch, h, out_shape = to_batch ? batch : space](const ExecOptions& o,
                                                                                   std::vector<Tensor>* keep) {
      SpaceInputs& in = inputs();
      Tensor& out = held_output(in.held, out_shape, keep != nullptr);
      optimized::space_batch::Plan plan;
      for (const std::int64_t v : {h, kSpaceW}) {
        plan.space.push_back(v);
        plan.block.push_back(2);
        plan.start.push_back(0);
        plan.blocked.push_back(v / 2);
      }
      plan.depth = kSpaceC;
      if (to_batch)
        optimized::space_batch::space_to_batch(plan, in.data, out, o);
      else
        optimized::space_batch::batch_to_space(plan, in.data, out, o);
      if (keep != nullptr) keep->push_back(out);
      return Status();
    };
    Case c{op,
           name_of(bytes, shape_name),
           bytes,
           run(true),
           with_reference ? RunFn(run(false)) : RunFn(),
           [inputs] { inputs(); },
           1,
           kMinTime,
           true,
           with_reference ? std::vector<Shape>{to_batch ? batch : space} : std::vector<Shape>{},
           plain_loop(false),
           kHasStreamingLoop ? plain_loop(true) : RunFn()};
    if (bytes <= kWorkMaxBytes) {
      c.work = work;
      c.naive_work = naive_work;
    }
    register_case(std::move(c));
  }
}

// ---- DynamicStitch / ParallelDynamicStitch / DynamicPartition ------------------------------

// Rows of 256 B at every size; rows of 64 B (the narrowest the in-cache figures cover) from
// 64 KiB to 32 MiB.
constexpr std::int64_t kRowFloats = 64;
constexpr std::int64_t kNarrowRowFloats = 16;
constexpr std::int64_t kNarrowMinBytes = std::int64_t{64} << 10;
constexpr std::int64_t kNarrowMaxBytes = std::int64_t{32} << 20;
constexpr int kLists = 4;
constexpr std::int64_t kPartitions = 4;

struct StitchInputs {
  std::vector<Tensor> indices, data;
  std::optional<Tensor> held;  // work and naive_work's output
};

// The plain loop: every position's row copied to its index, in order (the indices are a
// permutation: no gaps to zero). With `streaming`, the rows are written with streaming stores
// (around the caches, the floor of the kernel's streaming paths).
template <std::int64_t RowFloats>
void stitch_plain_loop(const StitchInputs& in, bool streaming, Tensor& out) {
  auto* d = static_cast<std::byte*>(out.raw_data());
  constexpr std::int64_t kRow = RowFloats * 4;
  for (std::size_t m = 0; m < in.indices.size(); ++m) {
    const std::int32_t* index = in.indices[m].data<std::int32_t>();
    const auto* s = static_cast<const std::byte*>(in.data[m].raw_data());
    for (std::int64_t i = 0; i < in.indices[m].num_elements(); ++i) {
      if (streaming)
        optimized::row_copy::stream_row(d + index[i] * kRow, s + i * kRow, kRow);
      else
        std::memcpy(d + index[i] * kRow, s + i * kRow, kRow);
    }
  }
  if (streaming) optimized::row_copy::stream_fence();
}

StitchInputs make_stitch_inputs(std::int64_t rows, std::int64_t row_floats) {
  std::mt19937_64 rng(42);
  std::vector<std::int32_t> order(static_cast<std::size_t>(rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  StitchInputs in;
  const std::int64_t per_list = rows / kLists;
  for (int m = 0; m < kLists; ++m) {
    Tensor index(DType::kInt32, {per_list});
    std::copy_n(order.begin() + m * per_list, per_list, index.data<std::int32_t>());
    in.indices.push_back(std::move(index));
    in.data.push_back(iota_tensor(DType::kFloat32, {per_list, row_floats}));
  }
  return in;
}

struct PartitionInputs {
  Tensor data, partitions;
};

PartitionInputs make_partition_inputs(std::int64_t rows, std::int64_t row_floats) {
  std::mt19937_64 rng(7);
  PartitionInputs in{iota_tensor(DType::kFloat32, {rows, row_floats}), Tensor(DType::kInt32, {rows})};
  for (std::int32_t& p : in.partitions.values<std::int32_t>())
    p = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(kPartitions));
  return in;
}

template <std::int64_t RowFloats>
void register_rows(std::int64_t bytes) {
  const std::int64_t rows = bytes / (RowFloats * 4);  // a multiple of 4
  const bool with_reference = bytes <= kReferenceMaxBytes;
  const std::string shape_name = std::to_string(rows) + "x" + std::to_string(RowFloats * 4) + "B";
  const std::string key_suffix = std::to_string(bytes) + "/" + std::to_string(RowFloats);

  // Both stitch ops share one input set per size (same key).
  auto stitch_inputs = [key = "stitch/" + key_suffix, rows]() -> StitchInputs& {
    return current().get<StitchInputs>(key, [rows] { return make_stitch_inputs(rows, RowFloats); });
  };
  for (const bool parallel : {false, true}) {
    const auto run = [stitch_inputs, parallel](bool optimized) {
      return [stitch_inputs, parallel, optimized](const ExecOptions& o, std::vector<Tensor>* keep) {
        StitchInputs& in = stitch_inputs();
        Tensor out;
        Status status;
        if (parallel)
          status = optimized ? optimized::ParallelDynamicStitch(in.indices, in.data, &out, o)
                             : reference::ParallelDynamicStitch(in.indices, in.data, &out, o);
        else
          status = optimized ? optimized::DynamicStitch(in.indices, in.data, &out, o)
                             : reference::DynamicStitch(in.indices, in.data, &out, o);
        return keep_outputs(status, keep, out);
      };
    };
    const auto plain_loop = [stitch_inputs, rows](bool streaming) -> RunFn {
      return [stitch_inputs, rows, streaming](const ExecOptions&, std::vector<Tensor>* keep) {
        Tensor out;
        out = Tensor::uninitialized(DType::kFloat32, {rows, RowFloats});
        stitch_plain_loop<RowFloats>(stitch_inputs(), streaming, out);
        return keep_outputs(Status(), keep, out);
      };
    };
    const RunFn naive_work = [stitch_inputs, rows](const ExecOptions&, std::vector<Tensor>*) {
      StitchInputs& in = stitch_inputs();
      stitch_plain_loop<RowFloats>(in, false, held_output(in.held, {rows, RowFloats}, false));
      return Status();
    };
    const RunFn work = [stitch_inputs, rows](const ExecOptions& o, std::vector<Tensor>* keep) {
      StitchInputs& in = stitch_inputs();
      Tensor& out = held_output(in.held, {rows, RowFloats}, keep != nullptr);
      optimized::dynamic_stitch::merge(in.indices, in.data, out, o);
      if (keep != nullptr) keep->push_back(out);
      return Status();
    };
    Case c{parallel ? "ParallelDynamicStitch" : "DynamicStitch",
           name_of(bytes, shape_name + "_perm"),
           bytes,
           run(true),
           with_reference ? RunFn(run(false)) : RunFn(),
           [stitch_inputs] { stitch_inputs(); },
           1,
           kMinTime,
           true,
           with_reference ? std::vector<Shape>{{rows, RowFloats}} : std::vector<Shape>{},
           parallel ? RunFn() : plain_loop(false),
           parallel || !kHasStreamingLoop ? RunFn() : plain_loop(true)};
    if (!parallel && bytes <= kWorkMaxBytes) {
      c.work = work;
      c.naive_work = naive_work;
    }
    register_case(std::move(c));
  }

  auto partition_inputs = [key = "partition/" + key_suffix, rows]() -> PartitionInputs& {
    return current().get<PartitionInputs>(key, [rows] { return make_partition_inputs(rows, RowFloats); });
  };
  const auto run = [partition_inputs](bool optimized) {
    return [partition_inputs, optimized](const ExecOptions& o, std::vector<Tensor>* keep) {
      PartitionInputs& in = partition_inputs();
      std::vector<Tensor> out;
      const Status status = optimized ? optimized::DynamicPartition(in.data, in.partitions, kPartitions, &out, o)
                                      : reference::DynamicPartition(in.data, in.partitions, kPartitions, &out, o);
      return keep_outputs(status, keep, out);
    };
  };
  // The plain loop: count each partition's rows, allocate, copy every row to the next slot.
  // With `streaming`, the rows go out with streaming stores (the floor of writing four
  // interleaved outputs around the caches).
  const auto plain_loop = [partition_inputs](bool streaming) -> RunFn {
    return [partition_inputs, streaming](const ExecOptions&, std::vector<Tensor>* keep) {
      PartitionInputs& in = partition_inputs();
      const std::int32_t* part = in.partitions.data<std::int32_t>();
      const std::int64_t n = in.partitions.num_elements();
      std::int64_t count[kPartitions] = {};
      for (std::int64_t j = 0; j < n; ++j) ++count[part[j]];
      std::vector<Tensor> out;
      std::byte* d[kPartitions];
      for (std::int64_t p = 0; p < kPartitions; ++p) {
        out.push_back(Tensor::uninitialized(DType::kFloat32, {count[p], RowFloats}));
        d[p] = static_cast<std::byte*>(out.back().raw_data());
      }
      const auto* s = static_cast<const std::byte*>(in.data.raw_data());
      constexpr std::int64_t kRow = RowFloats * 4;
      for (std::int64_t j = 0; j < n; ++j) {
        if (streaming)
          optimized::row_copy::stream_row(d[part[j]], s + j * kRow, kRow);
        else
          std::memcpy(d[part[j]], s + j * kRow, kRow);
        d[part[j]] += kRow;
      }
      if (streaming) optimized::row_copy::stream_fence();
      return keep_outputs(Status(), keep, out);
    };
  };
  std::vector<Shape> shapes;  // each partition's share, as the inputs will draw it
  if (with_reference) {
    const PartitionInputs drawn = make_partition_inputs(rows, RowFloats);
    std::int64_t count[kPartitions] = {};
    for (const std::int32_t p : drawn.partitions.values<std::int32_t>()) ++count[p];
    for (const std::int64_t c : count) shapes.push_back({c, RowFloats});
  }
  register_case({"DynamicPartition", name_of(bytes, shape_name + "_k4"), bytes, run(true),
                 with_reference ? RunFn(run(false)) : RunFn(), [partition_inputs] { partition_inputs(); }, 1, kMinTime,
                 true, shapes, plain_loop(false), kHasStreamingLoop ? plain_loop(true) : RunFn()});
}

// ---- SparseConcat --------------------------------------------------------------------------

constexpr int kSparseInputs = 4;
constexpr std::int64_t kSparseRank = 3;
constexpr std::int64_t kCellsPerRow = 16 * 16;  // dims 1 and 2 of every input
constexpr std::int64_t kEntryBytes = kSparseRank * 8 + 4;

struct SparseInputs {
  std::vector<Tensor> indices, values, shapes;
};

// n distinct cells of [rows, 16, 16] per input (selection sampling: ascending, so sorted).
SparseInputs make_sparse_inputs(std::int64_t n, std::int64_t rows) {
  std::mt19937_64 rng(5);
  SparseInputs in;
  const auto cells = static_cast<std::uint64_t>(rows * kCellsPerRow);
  for (int k = 0; k < kSparseInputs; ++k) {
    Tensor index(DType::kInt64, {n, kSparseRank});
    std::int64_t* p = index.data<std::int64_t>();
    std::uint64_t chosen = 0;
    for (std::uint64_t c = 0; c < cells && chosen < static_cast<std::uint64_t>(n); ++c) {
      if (rng() % (cells - c) < static_cast<std::uint64_t>(n) - chosen) {
        *p++ = static_cast<std::int64_t>(c / kCellsPerRow);
        *p++ = static_cast<std::int64_t>(c / 16 % 16);
        *p++ = static_cast<std::int64_t>(c % 16);
        ++chosen;
      }
    }
    in.indices.push_back(std::move(index));
    in.values.push_back(iota_tensor(DType::kFloat32, {n}));
    in.shapes.push_back(Tensor::from_values<std::int64_t>({kSparseRank}, {rows, 16, 16}));
  }
  return in;
}

void register_sparse_concat(std::int64_t target_bytes) {
  const std::int64_t n = (target_bytes - kSparseRank * 8) / kEntryBytes / kSparseInputs;  // per input
  const std::int64_t rows = std::max<std::int64_t>(1, (4 * n + kCellsPerRow - 1) / kCellsPerRow);
  const std::int64_t bytes = kSparseInputs * n * kEntryBytes + kSparseRank * 8;
  const bool with_reference = bytes <= kReferenceMaxBytes;
  auto inputs = [key = "sparse/" + std::to_string(bytes), n, rows]() -> SparseInputs& {
    return current().get<SparseInputs>(key, [n, rows] { return make_sparse_inputs(n, rows); });
  };
  const auto run = [inputs](bool optimized) {
    return [inputs, optimized](const ExecOptions& o, std::vector<Tensor>* keep) {
      SparseInputs& in = inputs();
      SparseTensor out;
      const Status status = optimized ? optimized::SparseConcat(in.indices, in.values, in.shapes, 1, &out, o)
                                      : reference::SparseConcat(in.indices, in.values, in.shapes, 1, &out, o);
      return keep_outputs(status, keep, out.indices, out.values, out.shape);
    };
  };
  register_case({"SparseConcat",
                 name_of(bytes, "4x" + std::to_string(n) + "_" + std::to_string(rows) + "x16x16_dim1_sorted"), bytes,
                 run(true), with_reference ? RunFn(run(false)) : RunFn(), [inputs] { inputs(); }, 1, kMinTime, true});
}

// The start and join of an empty parallel region of two threads: the cost the kernels'
// thread decision weighs (optimized/thread_policy.h measures it once per process the same way).
void register_region_cost() {
  benchmark::RegisterBenchmark("OpenMPRegion/empty/start_join/threads:2",
                               [](benchmark::State& state) {
                                 for (auto _ : state) {
#pragma omp parallel num_threads(2)
                                   benchmark::ClobberMemory();
                                 }
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMicrosecond);
}

// The machine, in the JSON's context, for bench/sweep_report.py's figure: the CPU's name, the
// caches as the kernels read them, where glibc's memcpy starts streaming (as
// row_copy::memcpy_streaming_min_bytes computes it) and where tensors get huge pages.
void add_machine_context() {
  std::string cpu = "unknown CPU";
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      cpu = line.substr(line.find(':') + 2);
      break;
    }
  const optimized::row_copy::CacheSizes& caches = optimized::row_copy::cache_sizes();
  benchmark::AddCustomContext("opconform_cpu", cpu);
  benchmark::AddCustomContext("opconform_l1d_bytes", std::to_string(caches.l1d));
  benchmark::AddCustomContext("opconform_l2_bytes", std::to_string(caches.l2));
  benchmark::AddCustomContext("opconform_memcpy_streaming_min_bytes",
                              std::to_string(optimized::row_copy::memcpy_streaming_min_bytes()));
  benchmark::AddCustomContext("opconform_huge_page_min_bytes", std::to_string(huge_page_min_bytes()));
}

const bool registered = [] {
  add_machine_context();
  register_region_cost();
  // Empty outputs: the fixed cost alone (no SparseConcat case: its output always holds the shape).
  register_space_batch(0);
  register_rows<kRowFloats>(0);
  for (const std::int64_t bytes : sweep_sizes()) {
    register_space_batch(bytes);
    register_rows<kRowFloats>(bytes);
    if (bytes >= kNarrowMinBytes && bytes <= kNarrowMaxBytes) register_rows<kNarrowRowFloats>(bytes);
    register_sparse_concat(bytes);
  }
  return true;
}();

}  // namespace
}  // namespace opconform::bench
