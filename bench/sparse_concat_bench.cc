// Benchmarks of SparseConcat (bench_common.h: optimized on 1 and 2 threads, reference, and a
// memcpy of the output bytes, per case).
//
// 4 inputs of rank 3, shape [256, 256, 256] each, 2.5M float32 entries each (10M in all) at
// distinct random coordinates: concat dim 0 and 1 with every input sorted row-major, concat
// dim 2 with every input in random order.
//
//   build-bench/bench/opconform_bench --benchmark_filter='SparseConcat'
#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "bench_common.h"
#include "opconform/optimized/sparse_concat.h"
#include "opconform/reference/sparse_concat.h"

namespace opconform::bench {
namespace {

constexpr int kInputs = 4;
constexpr std::int64_t kEntriesPerInput = 2'500'000;
constexpr std::int64_t kRank = 3;

struct SparseInputs {
  std::vector<Tensor> indices, values, shapes;
};

SparseInputs make_inputs(bool sorted) {
  std::mt19937_64 rng(5);
  SparseInputs in;
  for (int k = 0; k < kInputs; ++k) {
    // Selection sampling: kEntriesPerInput distinct cells of the 2^24 (3 x 8 bits), ascending.
    std::vector<std::uint32_t> cells;
    cells.reserve(static_cast<std::size_t>(kEntriesPerInput));
    constexpr std::uint64_t kCells = std::uint64_t{1} << 24;
    for (std::uint64_t c = 0; c < kCells; ++c) {
      const std::uint64_t needed = static_cast<std::uint64_t>(kEntriesPerInput) - cells.size();
      if (rng() % (kCells - c) < needed) cells.push_back(static_cast<std::uint32_t>(c));
    }
    if (!sorted) std::shuffle(cells.begin(), cells.end(), rng);
    Tensor index(DType::kInt64, {kEntriesPerInput, kRank});
    std::int64_t* p = index.data<std::int64_t>();
    for (const std::uint32_t c : cells) {
      *p++ = c >> 16;
      *p++ = (c >> 8) & 0xFF;
      *p++ = c & 0xFF;
    }
    in.indices.push_back(std::move(index));
    in.values.push_back(iota_tensor(DType::kFloat32, {kEntriesPerInput}));
    in.shapes.push_back(Tensor::from_values<std::int64_t>({kRank}, {256, 256, 256}));
  }
  return in;
}

const bool registered = [] {
  const std::int64_t total = kInputs * kEntriesPerInput;
  const std::int64_t output_bytes = total * (kRank * 8 + 4) + kRank * 8;
  auto sorted = std::make_shared<Lazy<SparseInputs>>([] { return make_inputs(true); });
  auto shuffled = std::make_shared<Lazy<SparseInputs>>([] { return make_inputs(false); });
  struct Config {
    const char* name;
    std::int64_t concat_dim;
    std::shared_ptr<Lazy<SparseInputs>> inputs;
  };
  for (const Config& c :
       {Config{"f32_4x2.5M_rank3_dim0_sorted", 0, sorted}, Config{"f32_4x2.5M_rank3_dim1_sorted", 1, sorted},
        Config{"f32_4x2.5M_rank3_dim2_random", 2, shuffled}}) {
    auto inputs = c.inputs;
    const std::int64_t cd = c.concat_dim;
    register_case({"SparseConcat", c.name, output_bytes,
                   [inputs, cd](const ExecOptions& o, std::vector<Tensor>* keep) {
                     SparseTensor out;
                     const SparseInputs& in = inputs->get();
                     return keep_outputs(optimized::SparseConcat(in.indices, in.values, in.shapes, cd, &out, o), keep,
                                         out.indices, out.values, out.shape);
                   },
                   [inputs, cd](const ExecOptions& o, std::vector<Tensor>* keep) {
                     SparseTensor out;
                     const SparseInputs& in = inputs->get();
                     return keep_outputs(reference::SparseConcat(in.indices, in.values, in.shapes, cd, &out, o), keep,
                                         out.indices, out.values, out.shape);
                   },
                   [inputs] { inputs->get(); }, 1});
  }
  return true;
}();

}  // namespace
}  // namespace opconform::bench
