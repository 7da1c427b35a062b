// Benchmarks of DynamicStitch and DynamicPartition (bench_common.h: optimized on 1 and 2
// threads, reference, and a memcpy of the output bytes, per case).
//
// DynamicStitch: a random permutation of the N output rows split into 4 equal index lists
// (float32 rows of 4 B: N = 16M, 256 B: N = 256K, 4 KiB: N = 16K). "dup50": a random half of
// the positions keeps its permutation row, every other position repeats the row of a random
// kept position, so exactly 50% of the indices are duplicates, N/2 rows are gaps (zeroed) and
// the output keeps N rows.
// DynamicPartition: data of the same N rows, each row sent to a uniformly random partition of
// 4 or 64.
// DynamicStitch/<4-byte case>/scatter_floor: not an op call but the floor of any kernel that
// writes 4-byte rows straight to their random destinations: one forward pass of
// out[index[i]] = data[i] over the lists (no validation, no zeroing, losers written too) into
// a pre-faulted buffer. Its ratio to memcpy bounds what such a kernel can reach here.
//
//   build-bench/bench/opconform_bench --benchmark_filter='DynamicStitch|DynamicPartition'
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "bench_common.h"
#include "opconform/optimized/dynamic_partition.h"
#include "opconform/optimized/dynamic_stitch.h"
#include "opconform/reference/dynamic_partition.h"
#include "opconform/reference/dynamic_stitch.h"

namespace opconform::bench {
namespace {

struct RowSize {
  const char* name;
  std::int64_t rows;
  std::int64_t floats_per_row;
};
constexpr RowSize kRowSizes[] = {
    {"16Mx4B", std::int64_t{16} << 20, 1},
    {"256Kx256B", std::int64_t{256} << 10, 64},
    {"16Kx4KiB", std::int64_t{16} << 10, 1024},
};

Shape row_shape(std::int64_t rows, const RowSize& size) {
  return size.floats_per_row == 1 ? Shape{rows} : Shape{rows, size.floats_per_row};
}

struct StitchInputs {
  std::vector<Tensor> indices;
  std::vector<Tensor> data;
};

StitchInputs make_stitch_inputs(const RowSize& size, bool duplicates) {
  std::mt19937_64 rng(42);
  std::vector<std::int32_t> order(static_cast<std::size_t>(size.rows));
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  if (duplicates) {
    // positions[0, kept) keep their rows; the one holding row N-1 among them keeps the shape.
    std::vector<std::uint32_t> positions(order.size());
    std::iota(positions.begin(), positions.end(), 0u);
    std::shuffle(positions.begin(), positions.end(), rng);
    const std::size_t kept = positions.size() / 2;
    const auto last = static_cast<std::uint32_t>(
        std::find(order.begin(), order.end(), static_cast<std::int32_t>(size.rows - 1)) - order.begin());
    std::iter_swap(std::find(positions.begin(), positions.end(), last), positions.begin());
    for (std::size_t j = kept; j < positions.size(); ++j) order[positions[j]] = order[positions[rng() % kept]];
  }
  StitchInputs in;
  const std::int64_t per_list = size.rows / 4;
  for (int m = 0; m < 4; ++m) {
    Tensor index(DType::kInt32, {per_list});
    std::copy_n(order.begin() + m * per_list, per_list, index.data<std::int32_t>());
    in.indices.push_back(std::move(index));
    in.data.push_back(iota_tensor(DType::kFloat32, row_shape(per_list, size)));
  }
  return in;
}

struct PartitionInputs {
  Tensor data;
  Tensor partitions;
};

PartitionInputs make_partition_inputs(const RowSize& size, std::int64_t k) {
  std::mt19937_64 rng(7);
  PartitionInputs in{iota_tensor(DType::kFloat32, row_shape(size.rows, size)), Tensor(DType::kInt32, {size.rows})};
  for (std::int32_t& p : in.partitions.values<std::int32_t>())
    p = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
  return in;
}

void register_scatter_floor(const RowSize& size, bool duplicates, std::shared_ptr<Lazy<StitchInputs>> inputs) {
  const std::string name =
      std::string("DynamicStitch/f32_") + size.name + (duplicates ? "_dup50" : "_perm") + "/scatter_floor";
  benchmark::RegisterBenchmark(name.c_str(),
                               [size, inputs](benchmark::State& state) {
                                 const StitchInputs& in = inputs->get();
                                 std::vector<float> out(static_cast<std::size_t>(size.rows), 0.0f);  // pre-faulted
                                 for (auto _ : state) {
                                   for (std::size_t m = 0; m < in.indices.size(); ++m) {
                                     const std::int32_t* index = in.indices[m].data<std::int32_t>();
                                     const float* rows = in.data[m].data<float>();
                                     const std::int64_t n = in.indices[m].num_elements();
                                     for (std::int64_t i = 0; i < n; ++i)
                                       out[static_cast<std::size_t>(index[i])] = rows[i];
                                   }
                                   benchmark::DoNotOptimize(out.data());
                                   benchmark::ClobberMemory();
                                 }
                                 state.SetBytesProcessed(state.iterations() * size.rows * 4);
                               })
      ->UseRealTime()
      ->Unit(benchmark::kMillisecond);
}

const bool registered = [] {
  for (const RowSize& size : kRowSizes) {
    const std::int64_t output_bytes = size.rows * size.floats_per_row * 4;
    for (const bool duplicates : {false, true}) {
      auto inputs =
          std::make_shared<Lazy<StitchInputs>>([size, duplicates] { return make_stitch_inputs(size, duplicates); });
      register_case({"DynamicStitch", std::string("f32_") + size.name + (duplicates ? "_dup50" : "_perm"), output_bytes,
                     [inputs](const ExecOptions& o, std::vector<Tensor>* keep) {
                       Tensor out;
                       return keep_outputs(optimized::DynamicStitch(inputs->get().indices, inputs->get().data, &out, o),
                                           keep, out);
                     },
                     [inputs](const ExecOptions& o, std::vector<Tensor>* keep) {
                       Tensor out;
                       return keep_outputs(reference::DynamicStitch(inputs->get().indices, inputs->get().data, &out, o),
                                           keep, out);
                     },
                     [inputs] { inputs->get(); }, 1});
      if (size.floats_per_row == 1) register_scatter_floor(size, duplicates, inputs);
    }
    for (const std::int64_t k : {4, 64}) {
      auto inputs = std::make_shared<Lazy<PartitionInputs>>([size, k] { return make_partition_inputs(size, k); });
      register_case(
          {"DynamicPartition", std::string("f32_") + size.name + "_k" + std::to_string(k), output_bytes,
           [inputs, k](const ExecOptions& o, std::vector<Tensor>* keep) {
             std::vector<Tensor> out;
             return keep_outputs(optimized::DynamicPartition(inputs->get().data, inputs->get().partitions, k, &out, o),
                                 keep, out);
           },
           [inputs, k](const ExecOptions& o, std::vector<Tensor>* keep) {
             std::vector<Tensor> out;
             return keep_outputs(reference::DynamicPartition(inputs->get().data, inputs->get().partitions, k, &out, o),
                                 keep, out);
           },
           [inputs] { inputs->get(); }, 1});
    }
  }
  return true;
}();

}  // namespace
}  // namespace opconform::bench
