// Tests of the optimized DynamicPartition (docs/contract/dynamic_stitch.md): every check with
// its exact message and in its order, the golden example, the memory check (the first output
// over the limit, a huge num_partitions without num_partitions-sized bookkeeping), then a
// tile-boundary matrix (0, 1, t-1, t, t+1, 2t+1 positions for injected tiles of t rows; every
// element width, bool and string; scalar, vector and matrix partitions; 1, 2, 3 and 7 threads)
// compared bit for bit with a naive oracle and with the reference kernel.
#include "opconform/optimized/dynamic_partition.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <string>
#include <vector>

#include "dynamic_ops_test_util.h"
#include "row_copy.h"
#include "opconform/reference/dynamic_partition.h"

namespace opconform {
namespace {

using optimized::DynamicPartition;
using namespace opconform::testing;

Status Partition(const Tensor& data, const Tensor& partitions, std::int64_t k, ExecOptions options = {}) {
  std::vector<Tensor> outputs;
  return DynamicPartition(data, partitions, k, &outputs, options);
}

// The naive oracle: one output per partition, rows appended in order.
std::vector<Tensor> naive_partition(const Tensor& data, const Tensor& partitions, std::int64_t k) {
  const Shape trailing(data.shape().begin() + partitions.rank(), data.shape().end());
  const auto part = partitions.values<std::int32_t>();
  std::vector<std::int64_t> counts(static_cast<std::size_t>(k), 0);
  for (std::int32_t p : part) ++counts[p];
  std::vector<Tensor> outputs;
  for (std::int64_t p = 0; p < k; ++p) {
    Shape shape{counts[p]};
    shape.insert(shape.end(), trailing.begin(), trailing.end());
    outputs.emplace_back(data.dtype(), shape);
  }
  const std::int64_t row = part.empty() ? 0 : data.num_elements() / static_cast<std::int64_t>(part.size());
  visit_dtype(data.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<std::int64_t> filled(static_cast<std::size_t>(k), 0);
    for (std::size_t j = 0; j < part.size(); ++j)
      std::copy_n(data.data<T>() + j * row, row, outputs[part[j]].data<T>() + filled[part[j]]++ * row);
  });
  return outputs;
}

::testing::AssertionResult AllBitEqual(const std::vector<Tensor>& actual, const std::vector<Tensor>& expected) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << actual.size() << " outputs, expected " << expected.size();
  for (std::size_t p = 0; p < actual.size(); ++p)
    if (auto r = BitEqual(actual[p], expected[p]); !r) return r << " (output " << p << ")";
  return ::testing::AssertionSuccess();
}

TEST(DynamicPartitionChecks, PartitionsMustBeInt32) {
  EXPECT_TRUE(HasStatus(Partition(i32({2}, {1, 2}), Tensor::from_values<std::int64_t>({2}, {0, 1}), 2),
                        Code::kInvalidArgument,
                        "Input 'partitions' of 'DynamicPartition' Op has type int64 that does not "
                        "match expected type of int32."));
}

TEST(DynamicPartitionChecks, NumPartitionsRange) {
  EXPECT_TRUE(HasStatus(Partition(i32({2}, {1, 2}), i32({2}, {0, 0}), 0), Code::kInvalidArgument,
                        "Value for attr 'num_partitions' of 0 must be at least minimum 1"));
  EXPECT_TRUE(HasStatus(Partition(i32({2}, {1, 2}), i32({2}, {0, 0}), -5), Code::kInvalidArgument,
                        "Value for attr 'num_partitions' of -5 must be at least minimum 1"));
  EXPECT_TRUE(HasStatus(Partition(i32({2}, {1, 2}), i32({2}, {0, 0}), 2147483648), Code::kInvalidArgument,
                        "Attr num_partitions has value 2147483648 out of range for an int32"));
}

TEST(DynamicPartitionChecks, QuantizedDtypesAreNotRegistered) {
  for (const DType dtype : {DType::kQInt8, DType::kQUInt8, DType::kQInt32})
    EXPECT_TRUE(HasStatus(Partition(Tensor(dtype, {2}), i32({2}, {0, 0}), 1), Code::kUnimplemented,
                          "No registered 'DynamicPartition' OpKernel for 'CPU' devices compatible "
                          "with T=" +
                              std::string(dtype_name(dtype))));
}

TEST(DynamicPartitionChecks, PreChecksInOrder) {
  // Argument type, then the attribute, then registration, then the op's own checks.
  const Tensor wide = Tensor::from_values<std::int64_t>({1}, {9});
  EXPECT_EQ(Partition(Tensor(DType::kQInt8, {3}), wide, 0).message(),
            "Input 'partitions' of 'DynamicPartition' Op has type int64 that does not match "
            "expected type of int32.");
  EXPECT_EQ(Partition(Tensor(DType::kQInt8, {3}), i32({1}, {9}), 0).message(),
            "Value for attr 'num_partitions' of 0 must be at least minimum 1");
  EXPECT_EQ(Partition(Tensor(DType::kQInt8, {3}), i32({1}, {9}), 1).code(), Code::kUnimplemented);
}

TEST(DynamicPartitionChecks, DataShapeMustStartWithPartitionsShape) {
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {2, 3}), i32({3}, {0, 0, 0}), 2),
                        Code::kInvalidArgument,
                        "data.shape must start with partitions.shape, got data.shape = [2,3], "
                        "partitions.shape = [3]"));
  EXPECT_TRUE(HasStatus(Partition(i32({}, {1}), i32({1}, {0}), 2), Code::kInvalidArgument,
                        "data.shape must start with partitions.shape, got data.shape = [], "
                        "partitions.shape = [1]"));
}

TEST(DynamicPartitionChecks, PartitionOutOfRange) {
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {4}), i32({4}, {0, 1, 99, -1}), 4),
                        Code::kInvalidArgument, "partitions[2] = 99 is not in [0, 4)"));
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {}), i32({}, {17}), 7), Code::kInvalidArgument,
                        "partitions = 17 is not in [0, 7)"));
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {2, 3, 2}), i32({2, 3}, {0, 1, 2, 3, 4, 17}), 7),
                        Code::kInvalidArgument, "partitions[1,2] = 17 is not in [0, 7)"));
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {3}), i32({3}, {0, -3, 5}), 2),
                        Code::kInvalidArgument, "partitions[1] = -3 is not in [0, 2)"));
  // The first bad position is reported whatever the chunking.
  std::vector<std::int32_t> part(1000, 1);
  part[611] = 9;
  part[997] = -1;
  for (const int threads : kThreadCounts) {
    ExecOptions options;
    options.num_threads = threads;
    options.tile_bytes = 4 * 37;
    EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {1000}), i32({1000}, part), 2, options),
                          Code::kInvalidArgument, "partitions[611] = 9 is not in [0, 2)"));
  }
}

TEST(DynamicPartitionTest, GoldenExample) {
  std::vector<Tensor> outputs;
  ASSERT_TRUE(DynamicPartition(i32({5}, {10, 20, 30, 40, 50}), i32({5}, {0, 0, 1, 1, 0}), 2, &outputs).ok());
  EXPECT_TRUE(AllBitEqual(outputs, {i32({3}, {10, 20, 50}), i32({2}, {30, 40})}));
}

TEST(DynamicPartitionTest, ScalarPartitions) {
  std::vector<Tensor> outputs;
  const Tensor data = distinct_tensor(DType::kString, {2, 2});
  ASSERT_TRUE(DynamicPartition(data, i32({}, {1}), 3, &outputs).ok());
  ASSERT_EQ(outputs.size(), 3u);
  EXPECT_EQ(outputs[0].shape(), (Shape{0, 2, 2}));
  EXPECT_EQ(outputs[2].shape(), (Shape{0, 2, 2}));
  EXPECT_TRUE(BitEqual(outputs[1], distinct_tensor(DType::kString, {1, 2, 2})));
}

TEST(DynamicPartitionTest, OutputsUntouchedOnError) {
  std::vector<Tensor> outputs = {i32({1}, {5})};
  const void* buffer = outputs[0].raw_data();
  EXPECT_FALSE(DynamicPartition(i32({2}, {1, 2}), i32({2}, {0, 3}), 2, &outputs).ok());
  ExecOptions tight;
  tight.memory_limit_bytes = 100;
  EXPECT_FALSE(DynamicPartition(i32({2}, {1, 2}), i32({2}, {0, 1}), 2, &outputs, tight).ok());
  ASSERT_EQ(outputs.size(), 1u);
  EXPECT_EQ(outputs[0].raw_data(), buffer);
  EXPECT_TRUE(BitEqual(outputs[0], i32({1}, {5})));
}

// The first failing output agrees with requesting every output in order through MemoryAccount,
// on both paths (num_partitions within limit / 64 + 1, and beyond it).
TEST(DynamicPartitionMemory, FirstOutputOverTheLimit) {
  for (const DType dtype : {DType::kFloat64, DType::kString, DType::kBool}) {
    const Tensor data = distinct_tensor(dtype, {6, 3});
    const Tensor partitions = i32({6}, {5, 1, 5, 0, 3, 1});
    for (const std::int64_t k : {6, 9, 40}) {
      std::vector<Shape> shapes;
      for (std::int64_t p = 0; p < k; ++p) {
        std::int64_t count = 0;
        for (std::int32_t v : partitions.values<std::int32_t>()) count += v == p;
        shapes.push_back({count, 3});
      }
      for (std::int64_t limit = -1; limit <= 64 * k + 18 * dtype_accounting_width(dtype) + 1; ++limit) {
        SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " k " << k << " limit " << limit);
        MemoryAccount account(limit);
        Status expected;
        for (const Shape& shape : shapes) {
          expected = account.request(dtype, shape);
          if (!expected.ok()) break;
        }
        ExecOptions options;
        options.memory_limit_bytes = limit;
        EXPECT_EQ(Partition(data, partitions, k, options), expected);
      }
    }
  }
}

TEST(DynamicPartitionMemory, HugeNumPartitions) {
  ExecOptions options;
  options.memory_limit_bytes = 1 << 20;
  // 64 (q + 1) + 12 > 2^20 first at q = 16383, an empty output.
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {3}), i32({3}, {0, 1, 2}), 2147483647, options),
                        Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type float32"));
  // Under the default 4 GiB limit.
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {3}), i32({3}, {0, 1, 2147483646}), 2147483647),
                        Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type float32"));
  // Rows large enough that the limit is crossed at a non-empty output.
  options.memory_limit_bytes = 64 * 10 + 4 * 1000;
  EXPECT_TRUE(
      HasStatus(Partition(distinct_tensor(DType::kFloat32, {3, 1000}), i32({3}, {7, 3, 7}), 2147483647, options),
                Code::kResourceExhausted, "OOM when allocating tensor with shape[2,1000] and type float32"));
  options.memory_limit_bytes = 70;
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {2, 2}), i32({2}, {0, 0}), 2147483647, options),
                        Code::kResourceExhausted, "OOM when allocating tensor with shape[2,2] and type float32"));
  options.memory_limit_bytes = -5;
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {2, 2}), i32({2}, {1, 1}), 2147483647, options),
                        Code::kResourceExhausted, "OOM when allocating tensor with shape[0,2] and type float32"));
  // Out-of-range partitions are still reported first.
  EXPECT_TRUE(HasStatus(Partition(distinct_tensor(DType::kFloat32, {2}), i32({2}, {0, -1}), 2147483647, options),
                        Code::kInvalidArgument, "partitions[1] = -1 is not in [0, 2147483647)"));
}

TEST(DynamicPartitionTest, TileBoundaryMatrix) {
  std::mt19937_64 rng(1129);
  for (const DType dtype : kMatrixDtypes) {
    for (const Shape& trailing : {Shape{}, Shape{3}, Shape{0}}) {
      const std::int64_t row_elems = trailing.empty() ? 1 : trailing[0];
      const auto row_bytes = row_elems * static_cast<std::int64_t>(dtype_storage_size(dtype));
      for (const std::int64_t tile : {1, 3, 64}) {
        for (const std::int64_t n : {std::int64_t{0}, std::int64_t{1}, tile - 1, tile, tile + 1, 2 * tile + 1}) {
          for (const std::int64_t k : {1, 3, 64}) {
            // Partitions [n] or [1, n]; sometimes a scalar when n == 1.
            Shape part_shape = rng() % 2 ? Shape{n} : Shape{1, n};
            if (n == 1 && rng() % 2) part_shape = {};
            Tensor partitions(DType::kInt32, part_shape);
            for (std::int32_t& v : partitions.values<std::int32_t>())
              v = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
            Shape data_shape = part_shape;
            data_shape.insert(data_shape.end(), trailing.begin(), trailing.end());
            const Tensor data = distinct_tensor(dtype, data_shape, rng() % 1000);
            const std::vector<Tensor> expected = naive_partition(data, partitions, k);
            std::vector<Tensor> reference_out;
            ASSERT_TRUE(reference::DynamicPartition(data, partitions, k, &reference_out).ok());
            for (const int threads : kThreadCounts) {
              SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " data " << shape_string(data_shape) << " tile "
                                                << tile << " k " << k << " threads " << threads);
              ExecOptions options;
              options.num_threads = threads;
              options.tile_bytes = tile * row_bytes;
              std::vector<Tensor> outputs;
              ASSERT_TRUE(DynamicPartition(data, partitions, k, &outputs, options).ok());
              EXPECT_TRUE(AllBitEqual(outputs, expected));
              EXPECT_TRUE(AllBitEqual(outputs, reference_out));
            }
          }
        }
      }
    }
  }
}

// Rows of whole 16-byte words from 64 bytes up take streaming stores when the output is at
// least ExecOptions::streaming_min_bytes (1 here: always; the maximum: never); narrower or odd
// rows keep the cached copy. Each width in both modes, on injected tiles and threads.
TEST(DynamicPartitionTest, StreamedRows) {
  std::mt19937_64 rng(77);
  for (const std::int64_t row_elems : {12, 16, 17, 20, 32, 64, 128, 1024}) {  // float32: 48 ... 4096 bytes
    for (const std::int64_t n : {1, 9, 300}) {
      for (const std::int64_t k : {1, 3, 64}) {
        Tensor partitions(DType::kInt32, {n});
        for (std::int32_t& v : partitions.values<std::int32_t>())
          v = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
        const Tensor data = distinct_tensor(DType::kFloat32, {n, row_elems}, rng() % 1000);
        const std::vector<Tensor> expected = naive_partition(data, partitions, k);
        for (const std::int64_t streaming : {std::int64_t{1}, std::numeric_limits<std::int64_t>::max()}) {
          for (const int threads : kThreadCounts) {
            for (const std::int64_t tile_rows : {0, 7}) {
              SCOPED_TRACE(::testing::Message() << "row " << row_elems << " n " << n << " k " << k << " streaming "
                                                << streaming << " threads " << threads << " tile rows " << tile_rows);
              ExecOptions options;
              options.num_threads = threads;
              options.streaming_min_bytes = streaming;
              options.tile_bytes = tile_rows * row_elems * 4;
              std::vector<Tensor> outputs;
              ASSERT_TRUE(DynamicPartition(data, partitions, k, &outputs, options).ok());
              EXPECT_TRUE(AllBitEqual(outputs, expected));
            }
          }
        }
      }
    }
  }
}

// Outputs that fit in the L1 with their source: rows of 32 to 512 bytes move in 32-byte moves
// where the CPU has them (row_copy.h), to at most 4 outputs with their destinations held in a
// register; other widths and more outputs as before; then the same with the wide moves off.
// With the default options (one chunk) and with 2 threads on chunks of 7 rows (each chunk's
// rows start past the earlier chunks' in every output).
TEST(DynamicPartitionTest, SmallOutputsWithWideRows) {
  std::mt19937_64 rng(2026);
  ExecOptions chunked;
  chunked.num_threads = 2;
  for (const int wide : {-1, 0}) {
    const optimized::row_copy::ScopedWideMovesSetting setting(wide);
    for (const std::int64_t row_elems : {8, 16, 24, 32, 64, 128}) {  // float32: 32 ... 512 bytes
      for (const std::int64_t n : {1, 5, 16, 31, 200}) {
        for (const std::int64_t k : {1, 2, 3, 4, 5, 64}) {
          Tensor partitions(DType::kInt32, {n});
          for (std::int32_t& v : partitions.values<std::int32_t>())
            v = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(k));
          const Tensor data = distinct_tensor(DType::kFloat32, {n, row_elems}, rng() % 1000);
          const std::vector<Tensor> expected = naive_partition(data, partitions, k);
          chunked.tile_bytes = 7 * row_elems * 4;
          for (const ExecOptions& options : {ExecOptions{}, chunked}) {
            SCOPED_TRACE(::testing::Message() << "wide " << wide << " row " << row_elems << " n " << n << " k " << k
                                              << " tile " << options.tile_bytes);
            std::vector<Tensor> outputs;
            ASSERT_TRUE(DynamicPartition(data, partitions, k, &outputs, options).ok());
            EXPECT_TRUE(AllBitEqual(outputs, expected));
          }
        }
      }
    }
  }
}

// Inputs large enough for real threads (small ones run on the calling thread), on the default
// tiles and on injected ones.
TEST(DynamicPartitionTest, LargeInputsOnThreads) {
  std::mt19937_64 rng(3);
  const std::int64_t n = 200'003;
  for (const std::int64_t k : {5, 64}) {
    Tensor partitions(DType::kInt32, {n});
    for (std::int32_t& v : partitions.values<std::int32_t>()) v = static_cast<std::int32_t>(rng() % k);
    const Tensor data = distinct_tensor(DType::kFloat32, {n, 2});
    const std::vector<Tensor> expected = naive_partition(data, partitions, k);
    for (const int threads : {0, 1, 2, 3, 7}) {
      for (const std::int64_t tile_bytes : {0, 8 * 777}) {
        ExecOptions options;
        options.num_threads = threads;
        options.tile_bytes = tile_bytes;
        std::vector<Tensor> outputs;
        ASSERT_TRUE(DynamicPartition(data, partitions, k, &outputs, options).ok());
        EXPECT_TRUE(AllBitEqual(outputs, expected)) << "k " << k << " threads " << threads << " tile " << tile_bytes;
      }
    }
  }
}

}  // namespace
}  // namespace opconform
