// Test-side helpers for the DynamicStitch/ParallelDynamicStitch/DynamicPartition laws, written
// from the spec page so the laws do not lean on any kernel.
#pragma once

#include <cstring>
#include <map>

#include "opconform/generators/generated_case.h"
#include "support/run_and_check.h"
#include "support/op_properties.h"

namespace opconform::properties {

// Copies `count` elements of `from` starting at `from_at` into `to` at `to_at`.
inline void copy_elements(const Tensor& from, std::int64_t from_at, Tensor& to, std::int64_t to_at,
                          std::int64_t count) {
  visit_dtype(from.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::copy_n(from.data<T>() + from_at, count, to.data<T>() + to_at);
  });
}

// The merged tensor the spec defines: [max index + 1] + C, row r = data[m][i] for the last
// (m, i) in order that names r, zero (T{}) where nobody does. Precondition: a valid case.
inline Tensor expected_stitch(const conformance::Case& c) {
  const auto& indices = generators::input_list(c, "indices");
  const auto& data = generators::input_list(c, "data");
  const Shape trailing(data[0].shape().begin() + indices[0].rank(), data[0].shape().end());
  const std::int64_t row = checked_num_elements(trailing);
  std::int64_t rows = 0;
  for (const Tensor& t : indices)
    for (std::int64_t v : generators::index_values(t)) rows = std::max(rows, v + 1);
  Shape shape = {rows};
  shape.insert(shape.end(), trailing.begin(), trailing.end());
  Tensor merged(data[0].dtype(), shape);
  for (std::size_t m = 0; m < indices.size(); ++m) {
    const std::vector<std::int64_t> values = generators::index_values(indices[m]);
    for (std::size_t i = 0; i < values.size(); ++i)
      copy_elements(data[m], static_cast<std::int64_t>(i) * row, merged, values[i] * row, row);
  }
  return merged;
}

// The outputs the spec defines for DynamicPartition: outputs[q] holds the slices data[j...]
// with partitions[j...] == q in row-major order of j. Precondition: a valid case.
inline std::vector<Tensor> expected_partition(const conformance::Case& c) {
  const Tensor& data = generators::input_tensor(c, "data");
  const Tensor& partitions = generators::input_tensor(c, "partitions");
  const std::int64_t k = c.attrs.at("num_partitions");
  const Shape slice(data.shape().begin() + partitions.rank(), data.shape().end());
  const std::int64_t row = checked_num_elements(slice);
  const std::vector<std::int64_t> p = generators::index_values(partitions);
  std::vector<Tensor> outputs;
  for (std::int64_t q = 0; q < k; ++q) {
    Shape shape = {static_cast<std::int64_t>(std::count(p.begin(), p.end(), q))};
    shape.insert(shape.end(), slice.begin(), slice.end());
    Tensor out(data.dtype(), shape);
    std::int64_t next = 0;
    for (std::size_t j = 0; j < p.size(); ++j)
      if (p[j] == q) copy_elements(data, static_cast<std::int64_t>(j) * row, out, next++ * row, row);
    outputs.push_back(out);
  }
  return outputs;
}

// The documented round trip: Stitch(Partition(range(n), p, k), Partition(x, p, k)) == x
// reshaped to [n] + slice, on each layer, `stitch_op` being DynamicStitch or
// ParallelDynamicStitch. `partition_case` is a valid DynamicPartition case.
inline void check_partition_stitch_round_trip(Op stitch_op, const conformance::Case& partition_case) {
  const Tensor& x = generators::input_tensor(partition_case, "data");
  const Tensor& p = generators::input_tensor(partition_case, "partitions");
  const std::int64_t n = p.num_elements();
  std::vector<std::int64_t> iota(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) iota[i] = i;
  conformance::Case range_case = partition_case;
  range_case.inputs["data"] = generators::index_tensor(DType::kInt32, p.shape(), iota);
  Shape flat_shape = {n};
  flat_shape.insert(flat_shape.end(), x.shape().begin() + p.rank(), x.shape().end());
  for (const OpTable* layer : layers()) {
    const conformance::Outcome idx = run_valid(*layer, range_case, "DynamicPartition(range(n))");
    const conformance::Outcome parts = run_valid(*layer, partition_case, "DynamicPartition(x)");
    conformance::Case stitch;
    stitch.op = stitch_op;
    stitch.inputs.emplace("indices", idx.outputs.at("outputs"));
    stitch.inputs.emplace("data", parts.outputs.at("outputs"));
    expect_conforms(*layer, expect_outputs(stitch, {{"merged", reshaped(x, flat_shape)}}), {},
                    std::string(op_name(stitch_op)) + "(Partition(range(n), p, k), Partition(x, p, k)) == x");
  }
}

}  // namespace opconform::properties
