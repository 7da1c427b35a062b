// Tests of the optimized SparseConcat (docs/contract/sparse_concat.md): every check with its
// exact message and in its order, the advisory and crash-path inputs, the golden examples,
// then a tile-boundary matrix (0, 1, t-1, t, t+1, 2t+1 entries per input for injected tiles
// of t entries; every element width, bool and string; ranks 1, 2, 3 and 5; every concat dim,
// negative too; 1, 2, 3 and 7 threads) over sorted, unsorted, duplicate, out-of-range and
// very wide coordinates. The optimized result must be the stable row-major sort of the
// concatenation (a naive oracle, bit for bit) and an allowed outcome next to the reference's
// (equal coordinates compared as multisets of values).
#include "opconform/optimized/sparse_concat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "dynamic_ops_test_util.h"
#include "opconform/reference/sparse_concat.h"

namespace opconform {
namespace {

using namespace opconform::testing;

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

struct Inputs {
  std::vector<Tensor> indices, values, shapes;
};

Status Concat(const Inputs& in, std::int64_t concat_dim, SparseTensor* out = nullptr, const ExecOptions& options = {}) {
  SparseTensor local;
  return optimized::SparseConcat(in.indices, in.values, in.shapes, concat_dim, out != nullptr ? out : &local, options);
}

// Two well-formed 2-D inputs of shape [2, 3] with one float entry each.
Inputs two_inputs() {
  return {{i64({1, 2}, {0, 1}), i64({1, 2}, {1, 2})},
          {Tensor::from_values<float>({1}, {1}), Tensor::from_values<float>({1}, {2})},
          {i64({2}, {2, 3}), i64({2}, {2, 3})}};
}

void ExpectError(const Inputs& in, std::int64_t concat_dim, Code code, const std::string& message) {
  EXPECT_TRUE(HasStatus(Concat(in, concat_dim), code, message));
}

// --- Pre-checks ----------------------------------------------------------------------------------

TEST(SparseConcatChecks, ArgumentTypes) {
  Inputs in = two_inputs();
  in.indices[1] = i32({1, 2}, {1, 2});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Input 'indices' of 'SparseConcat' Op has type int32 that does not match expected "
              "type of int64.");
  in = two_inputs();
  in.values[1] = Tensor::from_values<double>({1}, {2});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Input 'values' of 'SparseConcat' Op has type float64 that does not match type "
              "float32 of argument 'values'.");
  in = two_inputs();
  in.shapes[0] = i32({2}, {2, 3});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Input 'shapes' of 'SparseConcat' Op has type int32 that does not match expected "
              "type of int64.");
  // Types come before N and the list lengths.
  in.indices.pop_back();
  ExpectError(in, 0, Code::kInvalidArgument,
              "Input 'shapes' of 'SparseConcat' Op has type int32 that does not match expected "
              "type of int64.");
}

TEST(SparseConcatChecks, ListLengthsAndAttributes) {
  Inputs in = two_inputs();
  Inputs one{{in.indices[0]}, {in.values[0]}, {in.shapes[0]}};
  ExpectError(one, 0, Code::kInvalidArgument, "Value for attr 'N' of 1 must be at least minimum 2");
  ExpectError({}, 0, Code::kInvalidArgument, "Value for attr 'N' of 0 must be at least minimum 2");
  in.values.push_back(in.values[0]);
  in.shapes.pop_back();
  ExpectError(in, 0, Code::kInvalidArgument,
              "List argument 'values' to 'SparseConcat' Op with length 3 must match length 2 of "
              "argument 'indices'.");
  in = two_inputs();
  in.shapes.pop_back();
  ExpectError(in, 0, Code::kInvalidArgument,
              "List argument 'shapes' to 'SparseConcat' Op with length 1 must match length 2 of "
              "argument 'indices'.");
  ExpectError(two_inputs(), 2147483648, Code::kInvalidArgument,
              "Attr concat_dim has value 2147483648 out of range for an int32");
  ExpectError(two_inputs(), -2147483649, Code::kInvalidArgument,
              "Attr concat_dim has value -2147483649 out of range for an int32");
}

TEST(SparseConcatChecks, QuantizedDtypesAreNotRegistered) {
  for (const DType dtype : {DType::kQInt8, DType::kQUInt8, DType::kQInt32}) {
    Inputs in = two_inputs();
    in.values = {Tensor(dtype, {1}), Tensor(dtype, {1})};
    ExpectError(
        in, 0, Code::kUnimplemented,
        "No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=" + std::string(dtype_name(dtype)));
    ExpectError(in, 5000000000, Code::kInvalidArgument,  // attributes come first
                "Attr concat_dim has value 5000000000 out of range for an int32");
  }
}

// --- Checks 2-10 ---------------------------------------------------------------------------------

TEST(SparseConcatChecks, MatricesAndVectors) {
  Inputs in = two_inputs();
  in.indices[1] = i64({2}, {1, 2});
  in.values[0] = Tensor(DType::kFloat32, {1, 1});
  ExpectError(in, 0, Code::kInvalidArgument, "Input indices should be a matrix but received shape [2] at position 1");
  in.indices[1] = i64({1, 2}, {1, 2});
  ExpectError(in, 0, Code::kInvalidArgument, "Input values should be a vector but received shape [1,1] at position 0");
  in = two_inputs();
  in.shapes[1] = i64({1, 2}, {2, 3});
  ExpectError(in, 0, Code::kInvalidArgument, "Input shapes should be a vector but received shape [1,2] at position 1");
}

TEST(SparseConcatChecks, TFSA_2021_024_ShapeOverflowIsInternal) {
  Inputs in{{i64({2, 2}, {514, 514, 514, 514}), i64({2, 2}, {514, 530, 599, 877})},
            {Tensor(DType::kInt64, {0}), Tensor(DType::kInt64, {0})},
            {i64({9}, {442, 514, 514, 515, 606, 347, 943, 61, 2}), i64({9}, std::vector<std::int64_t>(9, 0))}};
  ExpectError(in, 2, Code::kInternal, "Encountered overflow from large input shape.");
  // A negative dim too, and the check is per input: input 0's overflow before input 1's rank.
  in = two_inputs();
  in.shapes[1] = i64({2}, {0, -1});
  ExpectError(in, 0, Code::kInternal, "Encountered overflow from large input shape.");
  in = two_inputs();
  in.shapes[0] = i64({2}, {-1, 0});
  in.shapes[1] = i64({2, 1}, {2, 3});
  ExpectError(in, 0, Code::kInternal, "Encountered overflow from large input shape.");
  in.shapes[0] = i64({2}, {2, 3});
  ExpectError(in, 0, Code::kInvalidArgument, "Input shapes should be a vector but received shape [2,1] at position 1");
}

TEST(SparseConcatChecks, RankAndConcatDim) {
  Inputs in = two_inputs();
  in.shapes[0] = i64({255}, std::vector<std::int64_t>(255, 1));
  ExpectError(in, 0, Code::kInvalidArgument, "Too many dimensions in tensor");
  in = two_inputs();
  in.shapes[1] = i64({255}, std::vector<std::int64_t>(255, 1));
  ExpectError(in, 0, Code::kInvalidArgument, "Too many dimensions in tensor");
  ExpectError(two_inputs(), 2, Code::kInvalidArgument, "Concat dimension must be in range [-2, 2), got 2");
  ExpectError(two_inputs(), -3, Code::kInvalidArgument, "Concat dimension must be in range [-2, 2), got -3");
  in = two_inputs();
  in.shapes = {i64({0}, {}), i64({0}, {})};
  ExpectError(in, 0, Code::kInvalidArgument, "Concat dimension must be in range [0, 0), got 0");
  in = two_inputs();
  in.shapes[1] = i64({3}, {2, 3, 1});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Ranks of all input tensors must match: expected 2 but got 3 at position 1");
  in = two_inputs();
  in.shapes[1] = i64({2}, {2, 4});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Input shapes must match: expected 3 for dimension 1 but got 4 at position 1");
  EXPECT_TRUE(Concat(in, -1).ok());  // cd 1: dim 0 matches, the sum is fine
}

TEST(SparseConcatChecks, ConcatDimOverflows) {
  const std::int64_t two62 = std::int64_t{1} << 62;
  Inputs in{{i64({1, 1}, {0}), i64({1, 1}, {0})},
            {Tensor::from_values<float>({1}, {1}), Tensor::from_values<float>({1}, {2})},
            {i64({1}, {two62}), i64({1}, {two62})}};
  ExpectError(in, 0, Code::kInvalidArgument, "Concat dimension size overflows int64 at position 1");
  const std::int64_t two61 = std::int64_t{1} << 61;
  in.indices = {i64({1, 2}, {0, 0}), i64({1, 2}, {0, 0})};
  in.shapes = {i64({2}, {3, two61}), i64({2}, {3, two61})};
  ExpectError(in, 0, Code::kInvalidArgument,
              "Encountered overflow when multiplying 6 with 2305843009213693952, result: "
              "-4611686018427387904");
  // The element count is checked at cd, before the dims after it are compared.
  in.shapes = {i64({2}, {3, two61}), i64({2}, {3, 5})};
  ExpectError(in, 0, Code::kInvalidArgument,
              "Encountered overflow when multiplying 6 with 2305843009213693952, result: "
              "-4611686018427387904");
}

TEST(SparseConcatChecks, TotalEntriesOverflow) {
  const std::int64_t two62 = std::int64_t{1} << 62;
  Inputs in;
  for (int i = 0; i < 4; ++i) {
    in.indices.emplace_back(DType::kInt64, Shape{two62, 0});
    in.values.emplace_back(DType::kFloat32, Shape{1});
    in.shapes.push_back(i64({1}, {1}));
  }
  ExpectError(in, 0, Code::kInvalidArgument, "Total number of entries overflows int64");
}

TEST(SparseConcatChecks, EmptyResultSkipsTheEntryChecks) {
  Inputs in{{i64({0, 2}, {}), Tensor(DType::kInt64, {0, 3})},
            {Tensor::from_values<float>({3}, {1, 2, 3}), Tensor(DType::kFloat32, {0})},
            {i64({2}, {2, 3}), i64({2}, {2, 4})}};
  SparseTensor out;
  ASSERT_TRUE(Concat(in, 1, &out).ok());
  EXPECT_TRUE(BitEqual(out.indices, Tensor(DType::kInt64, {0, 2})));
  EXPECT_TRUE(BitEqual(out.values, Tensor(DType::kFloat32, {0})));
  EXPECT_TRUE(BitEqual(out.shape, i64({2}, {2, 7})));
  // The empty result still requests its three outputs: 64 + 64 + (64 + 16).
  ExecOptions options;
  options.memory_limit_bytes = 64 * 3 + 16 - 1;
  EXPECT_TRUE(HasStatus(Concat(in, 1, &out, options), Code::kResourceExhausted,
                        "OOM when allocating tensor with shape[2] and type int64"));
}

TEST(SparseConcatChecks, EntryChecksPerInput) {
  Inputs in = two_inputs();
  in.values[1] = Tensor::from_values<float>({2}, {1, 2});
  ExpectError(in, 0, Code::kInvalidArgument,
              "indices and values rows (indexing dimension) must match. (indices = 1, values = 2)");
  in = two_inputs();
  in.indices[0] = i64({1, 3}, {0, 1, 2});
  in.values[1] = Tensor::from_values<float>({2}, {1, 2});
  ExpectError(in, 0, Code::kInvalidArgument, "Order length must be SparseTensor rank.");
  // Input 0's offset is 0: a huge coordinate there is fine; input 1's overflows by offset 2.
  in = two_inputs();
  in.indices[0] = i64({1, 2}, {kInt64Max, 0});
  in.indices[1] = i64({2, 2}, {1, 0, kInt64Max - 1, 0});
  in.values[1] = Tensor::from_values<float>({2}, {1, 2});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Index 9223372036854775806 at position 1 overflows int64 when offset by 2");
  // Three inputs: the first input (in order) with a problem is reported.
  in = two_inputs();
  in.indices.push_back(i64({1, 2}, {0, 0}));
  in.values.push_back(Tensor::from_values<float>({2}, {1, 2}));
  in.shapes.push_back(i64({2}, {2, 3}));
  in.indices[1] = i64({1, 2}, {kInt64Max, 0});
  ExpectError(in, 0, Code::kInvalidArgument,
              "Index 9223372036854775807 at position 1 overflows int64 when offset by 2");
}

TEST(SparseConcatChecks, OffsetOverflowReportsTheFirstEntryWhateverTheChunks) {
  std::vector<std::int64_t> coords(2 * 1000, 0);
  coords[2 * 600 + 1] = kInt64Max;
  coords[2 * 900 + 1] = kInt64Max - 1;
  Inputs in = two_inputs();
  in.indices[1] = i64({1000, 2}, coords);
  in.values[1] = distinct_tensor(DType::kFloat32, {1000});
  for (const int threads : kThreadCounts) {
    ExecOptions options;
    options.num_threads = threads;
    options.tile_bytes = 16 * 33;
    EXPECT_TRUE(HasStatus(Concat(in, 1, nullptr, options), Code::kInvalidArgument,
                          "Index 9223372036854775807 at position 1 overflows int64 when offset by 3"));
  }
}

// The overflow scan rides on the output pass; its error still comes in the spec's order:
// after the row and column checks of earlier inputs, before those of later inputs and before
// the memory check, and whatever the merge or the sort had written is dropped.
TEST(SparseConcatChecks, OffsetOverflowPrecedence) {
  auto three = [] {
    Inputs in = two_inputs();
    in.indices.push_back(i64({1, 2}, {0, 0}));
    in.values.push_back(Tensor::from_values<float>({1}, {3}));
    in.shapes.push_back(i64({2}, {2, 3}));
    return in;
  };
  const std::string overflow = "Index 9223372036854775807 at position 1 overflows int64 when offset by 3";
  Inputs in = three();
  in.indices[1] = i64({1, 2}, {0, kInt64Max});
  in.values[2] = Tensor::from_values<float>({2}, {3, 4});  // a row check failing at input 2
  ExpectError(in, 1, Code::kInvalidArgument, overflow);
  in = three();
  in.indices[1] = i64({1, 3}, {0, 0, 0});       // a column check failing at input 1 ...
  in.indices[2] = i64({1, 2}, {0, kInt64Max});  // ... comes before input 2's overflow
  ExpectError(in, 1, Code::kInvalidArgument, "Order length must be SparseTensor rank.");
  in = three();
  in.indices[1] = i64({1, 2}, {0, kInt64Max});
  ExecOptions tight;
  tight.memory_limit_bytes = 100;
  EXPECT_TRUE(HasStatus(Concat(in, 1, nullptr, tight), Code::kInvalidArgument, overflow));
  // Large sorted inputs whose only fault is one overflowing entry late in input 1 (the merge
  // copies most entries first), or an unsorted input 0 (the sort finds it): every thread count
  // and tile reports the first one, and the output is untouched.
  for (const std::int64_t cd : {0, 1}) {
    for (const bool unsorted_first : {false, true}) {
      const std::int64_t nnz = 5000;
      std::vector<std::int64_t> rows0, rows1;
      for (std::int64_t e = 0; e < nnz; ++e) {
        rows0.insert(rows0.end(), {e / 3, e % 3});
        rows1.insert(rows1.end(), {e / 3, e % 3});
      }
      if (unsorted_first) std::swap(rows0[10], rows0[4000]);
      rows1[2 * 4321 + cd] = kInt64Max - 1;
      rows1[2 * 4700 + cd] = kInt64Max;
      Inputs big{{i64({nnz, 2}, rows0), i64({nnz, 2}, rows1)},
                 {distinct_tensor(DType::kFloat32, {nnz}), distinct_tensor(DType::kFloat32, {nnz}, nnz)},
                 {i64({2}, {nnz / 3 + 1, 3}), i64({2}, {nnz / 3 + 1, 3})}};
      const std::int64_t offset = cd == 0 ? nnz / 3 + 1 : 3;
      for (const int threads : kThreadCounts) {
        for (const std::int64_t tile_bytes : {0, 63, 16 * 100}) {
          SCOPED_TRACE(::testing::Message() << "cd " << cd << " unsorted_first " << unsorted_first << " threads "
                                            << threads << " tile " << tile_bytes);
          ExecOptions options;
          options.num_threads = threads;
          options.tile_bytes = tile_bytes;
          SparseTensor out{i64({1}, {5}), i64({1}, {6}), i64({1}, {7})};
          EXPECT_TRUE(HasStatus(
              Concat(big, cd, &out, options), Code::kInvalidArgument,
              "Index 9223372036854775806 at position 1 overflows int64 when offset by " + std::to_string(offset)));
          EXPECT_TRUE(BitEqual(out.indices, i64({1}, {5})));
          EXPECT_TRUE(BitEqual(out.values, i64({1}, {6})));
        }
      }
    }
  }
}

TEST(SparseConcatChecks, MemoryLimitNamesOutputsInOrder) {
  Inputs in = two_inputs();  // outputs: indices [2,2] int64 (96), values [2] float32 (72), shape [2] (80)
  SparseTensor out;
  ExecOptions options;
  for (const auto& [limit, message] : std::vector<std::pair<std::int64_t, std::string>>{
           {95, "OOM when allocating tensor with shape[2,2] and type int64"},
           {96 + 71, "OOM when allocating tensor with shape[2] and type float32"},
           {96 + 72 + 79, "OOM when allocating tensor with shape[2] and type int64"}}) {
    options.memory_limit_bytes = limit;
    EXPECT_TRUE(HasStatus(Concat(in, 0, &out, options), Code::kResourceExhausted, message));
  }
  options.memory_limit_bytes = 96 + 72 + 80;
  EXPECT_TRUE(Concat(in, 0, &out, options).ok());
}

TEST(SparseConcatChecks, OutputUntouchedOnError) {
  SparseTensor out{i64({1}, {5}), i64({1}, {6}), i64({1}, {7})};
  const void* buffer = out.values.raw_data();
  EXPECT_FALSE(Concat(two_inputs(), 3, &out).ok());
  ExecOptions tight;
  tight.memory_limit_bytes = 100;
  EXPECT_FALSE(Concat(two_inputs(), 0, &out, tight).ok());
  EXPECT_EQ(out.values.raw_data(), buffer);
  EXPECT_TRUE(BitEqual(out.indices, i64({1}, {5})));
  EXPECT_TRUE(BitEqual(out.values, i64({1}, {6})));
  EXPECT_TRUE(BitEqual(out.shape, i64({1}, {7})));
}

// --- Results -------------------------------------------------------------------------------------

TEST(SparseConcatTest, DocumentationExample) {
  Inputs in{{i64({3, 2}, {0, 2, 1, 0, 1, 1}), i64({2, 2}, {0, 1, 0, 2})},
            {Tensor::from_values<std::string>({3}, {"a", "b", "c"}), Tensor::from_values<std::string>({2}, {"d", "e"})},
            {i64({2}, {2, 3}), i64({2}, {2, 4})}};
  for (const std::int64_t cd : {1, -1}) {
    SparseTensor out;
    ASSERT_TRUE(Concat(in, cd, &out).ok());
    EXPECT_TRUE(BitEqual(out.indices, i64({5, 2}, {0, 2, 0, 4, 0, 5, 1, 0, 1, 1})));
    EXPECT_TRUE(BitEqual(out.values, Tensor::from_values<std::string>({5}, {"a", "d", "e", "b", "c"})));
    EXPECT_TRUE(BitEqual(out.shape, i64({2}, {2, 7})));
  }
}

TEST(SparseConcatTest, TensorFlowsThreeByThreeAndThreeByFive) {
  Inputs in{{i64({4, 2}, {0, 2, 1, 0, 2, 0, 2, 2}), i64({4, 2}, {1, 1, 2, 0, 2, 3, 2, 4})},
            {i32({4}, {1, 2, 3, 4}), i32({4}, {1, 2, 1, 0})},
            {i64({2}, {3, 3}), i64({2}, {3, 5})}};
  SparseTensor out;
  ASSERT_TRUE(Concat(in, 1, &out).ok());
  EXPECT_TRUE(BitEqual(out.indices, i64({8, 2}, {0, 2, 1, 0, 1, 4, 2, 0, 2, 2, 2, 3, 2, 6, 2, 7})));
  EXPECT_TRUE(BitEqual(out.values, i32({8}, {1, 2, 1, 3, 4, 2, 1, 0})));
  EXPECT_TRUE(BitEqual(out.shape, i64({2}, {3, 8})));
}

TEST(SparseConcatTest, UncheckedCoordinatesAreOffsetAndSorted) {
  // Input 0's coordinate 7 lies beyond its extent 2 and lands among input 1's entries; -1 sorts first.
  Inputs in{{i64({2, 1}, {7, -1}), i64({2, 1}, {0, 6})},
            {i32({2}, {10, 11}), i32({2}, {20, 21})},
            {i64({1}, {2}), i64({1}, {8})}};
  SparseTensor out;
  ASSERT_TRUE(Concat(in, 0, &out).ok());
  EXPECT_TRUE(BitEqual(out.indices, i64({4, 1}, {-1, 2, 7, 8})));
  EXPECT_TRUE(BitEqual(out.values, i32({4}, {11, 20, 10, 21})));
  EXPECT_TRUE(BitEqual(out.shape, i64({1}, {10})));
}

TEST(SparseConcatTest, CoordinatesOutsideTheShapeOnOtherDims) {
  // Concat-dim coordinates in range, column 0 outside [0, 2): the sort must not assume the box.
  Inputs in{{i64({3, 2}, {1, 0, -3, 1, 5, 0}), i64({2, 2}, {0, 1, -3, 0})},
            {i32({3}, {10, 11, 12}), i32({2}, {20, 21})},
            {i64({2}, {2, 2}), i64({2}, {2, 3})}};
  SparseTensor out;
  ASSERT_TRUE(Concat(in, 1, &out).ok());
  EXPECT_TRUE(BitEqual(out.indices, i64({5, 2}, {-3, 1, -3, 2, 0, 3, 1, 0, 5, 0})));
  EXPECT_TRUE(BitEqual(out.values, i32({5}, {11, 21, 20, 10, 12})));
  EXPECT_TRUE(BitEqual(out.shape, i64({2}, {2, 5})));
}

// The naive oracle: entries offset, concatenated in input order, stable-sorted row-major.
SparseTensor naive_concat(const Inputs& in, std::int64_t concat_dim) {
  const auto n = in.indices.size();
  const std::int64_t rank = in.shapes[0].num_elements();
  const std::int64_t cd = concat_dim < 0 ? concat_dim + rank : concat_dim;
  std::vector<std::vector<std::int64_t>> rows;
  std::vector<std::pair<std::size_t, std::int64_t>> source;
  std::int64_t offset = 0;
  Shape shape(in.shapes[0].values<std::int64_t>().begin(), in.shapes[0].values<std::int64_t>().end());
  shape[cd] = 0;
  for (std::size_t k = 0; k < n; ++k) {
    for (std::int64_t e = 0; e < in.indices[k].dim(0); ++e) {
      std::vector<std::int64_t> row(in.indices[k].data<std::int64_t>() + e * rank,
                                    in.indices[k].data<std::int64_t>() + (e + 1) * rank);
      row[cd] += offset;
      rows.push_back(row);
      source.emplace_back(k, e);
    }
    offset += in.shapes[k].data<std::int64_t>()[cd];
  }
  shape[cd] = offset;
  std::vector<std::size_t> order(rows.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return rows[a] < rows[b]; });
  SparseTensor out{Tensor(DType::kInt64, {static_cast<std::int64_t>(rows.size()), rank}),
                   Tensor(in.values[0].dtype(), {static_cast<std::int64_t>(rows.size())}), i64({rank}, shape)};
  visit_dtype(out.values.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t o = 0; o < order.size(); ++o) {
      std::copy(rows[order[o]].begin(), rows[order[o]].end(), out.indices.data<std::int64_t>() + o * rank);
      const auto [k, e] = source[order[o]];
      out.values.data<T>()[o] = in.values[k].data<T>()[e];
    }
  });
  return out;
}

// Adds input k built from `rows` (rank 3), float32 values distinct across inputs.
void add_rows_input(Inputs* in, const std::vector<std::vector<std::int64_t>>& rows, int k,
                    std::vector<std::int64_t> shape) {
  std::vector<std::int64_t> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  const auto nnz = static_cast<std::int64_t>(rows.size());
  in->indices.push_back(i64({nnz, 3}, flat));
  in->values.push_back(distinct_tensor(DType::kFloat32, {nnz}, static_cast<std::uint64_t>(k) << 20));
  in->shapes.push_back(i64({3}, shape));
}

// The optimized kernel equals `expected` bit for bit for every thread count and tile given.
void expect_concat_everywhere(const Inputs& in, std::int64_t cd, const SparseTensor& expected,
                              std::span<const int> thread_counts, std::initializer_list<std::int64_t> tiles) {
  for (const int threads : thread_counts) {
    for (const std::int64_t tile_bytes : tiles) {
      SCOPED_TRACE(::testing::Message() << "threads " << threads << " tile " << tile_bytes);
      ExecOptions options;
      options.num_threads = threads;
      options.tile_bytes = tile_bytes;
      SparseTensor out;
      ASSERT_TRUE(Concat(in, cd, &out, options).ok());
      EXPECT_TRUE(BitEqual(out.indices, expected.indices));
      EXPECT_TRUE(BitEqual(out.values, expected.values));
    }
  }
}

// SparseConcat's contract next to another outcome: same indices and shape; inside each run of
// equal coordinates the values are the same multiset (their bytes compared).
::testing::AssertionResult AllowedOutcome(const SparseTensor& actual, const SparseTensor& other) {
  if (auto r = BitEqual(actual.indices, other.indices); !r) return r << " (indices)";
  if (auto r = BitEqual(actual.shape, other.shape); !r) return r << " (shape)";
  if (actual.values.shape() != other.values.shape() || actual.values.dtype() != other.values.dtype())
    return ::testing::AssertionFailure() << "values shape or dtype";
  const std::int64_t nnz = actual.values.num_elements();
  const std::int64_t rank = nnz > 0 ? actual.indices.num_elements() / nnz : 0;
  const std::int64_t* idx = actual.indices.data<std::int64_t>();
  return visit_dtype(actual.values.dtype(), [&](auto tag) -> ::testing::AssertionResult {
    using T = typename decltype(tag)::type;
    auto bytes = [](const T& v) {
      if constexpr (std::is_same_v<T, std::string>)
        return v;
      else
        return std::string(reinterpret_cast<const char*>(&v), sizeof(T));
    };
    for (std::int64_t begin = 0, end = 0; begin < nnz; begin = end) {
      end = begin + 1;
      while (end < nnz && std::equal(idx + begin * rank, idx + (begin + 1) * rank, idx + end * rank)) ++end;
      std::vector<std::string> a, b;
      for (std::int64_t e = begin; e < end; ++e) {
        a.push_back(bytes(actual.values.data<T>()[e]));
        b.push_back(bytes(other.values.data<T>()[e]));
      }
      std::sort(a.begin(), a.end());
      std::sort(b.begin(), b.end());
      if (a != b)
        return ::testing::AssertionFailure() << "values of the equal-coordinate run at entry " << begin << " differ";
    }
    return ::testing::AssertionSuccess();
  });
}

TEST(SparseConcatTest, AllowedOutcomeCheckAcceptsTiePermutationsOnly) {
  SparseTensor a{i64({3, 1}, {0, 0, 1}), i32({3}, {5, 6, 7}), i64({1}, {2})};
  SparseTensor b{i64({3, 1}, {0, 0, 1}), i32({3}, {6, 5, 7}), i64({1}, {2})};
  SparseTensor c{i64({3, 1}, {0, 0, 1}), i32({3}, {5, 7, 6}), i64({1}, {2})};
  EXPECT_TRUE(AllowedOutcome(a, b));
  EXPECT_FALSE(AllowedOutcome(a, c));
}

enum class Layout { kSorted, kUnsorted, kOutOfRange, kWide };

// N inputs of `rank` with `nnz[k]` entries; coordinates small (duplicates likely) and laid out
// as asked. kWide spans more than 64 bits of coordinates in all.
Inputs random_inputs(std::mt19937_64& rng, DType dtype, std::int64_t rank, std::int64_t cd,
                     const std::vector<std::int64_t>& nnz, Layout layout) {
  Inputs in;
  Shape dims(static_cast<std::size_t>(rank));
  for (auto& d : dims) d = 1 + static_cast<std::int64_t>(rng() % 4);
  std::uint64_t first_value = 0;
  for (std::size_t k = 0; k < nnz.size(); ++k) {
    Shape shape = dims;
    shape[cd] = static_cast<std::int64_t>(rng() % 4);
    std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(nnz[k]));
    for (auto& row : rows) {
      row.resize(static_cast<std::size_t>(rank));
      for (std::int64_t j = 0; j < rank; ++j) {
        const std::int64_t extent = std::max<std::int64_t>(shape[j], 1);
        switch (layout) {
          case Layout::kOutOfRange: row[j] = static_cast<std::int64_t>(rng() % (extent + 4)) - 2; break;
          case Layout::kWide: row[j] = static_cast<std::int64_t>(rng() >> 3) - (std::int64_t{1} << 60); break;
          default: row[j] = static_cast<std::int64_t>(rng() % extent); break;
        }
      }
    }
    if (layout == Layout::kSorted) std::sort(rows.begin(), rows.end());
    std::vector<std::int64_t> flat;
    for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
    in.indices.push_back(i64({nnz[k], rank}, flat));
    in.values.push_back(distinct_tensor(dtype, {nnz[k]}, first_value));
    first_value += static_cast<std::uint64_t>(nnz[k]) + 1;
    in.shapes.push_back(i64({rank}, shape));
  }
  return in;
}

TEST(SparseConcatTest, TileBoundaryMatrix) {
  std::mt19937_64 rng(29);
  for (const DType dtype : kMatrixDtypes) {
    for (const std::int64_t rank : {1, 2, 3, 5}) {
      for (const std::int64_t tile : {1, 3, 16}) {
        const std::vector<std::int64_t> sizes = {0, 1, tile - 1, tile, tile + 1, 2 * tile + 1};
        for (const Layout layout : {Layout::kSorted, Layout::kUnsorted, Layout::kOutOfRange, Layout::kWide}) {
          for (std::int64_t cd = 0; cd < rank; ++cd) {
            const int n = 2 + static_cast<int>(rng() % 3);
            std::vector<std::int64_t> nnz;
            for (int k = 0; k < n; ++k) nnz.push_back(sizes[rng() % sizes.size()]);
            const Inputs in = random_inputs(rng, dtype, rank, cd, nnz, layout);
            const std::int64_t concat_dim = rng() % 2 ? cd : cd - rank;
            const SparseTensor expected = naive_concat(in, concat_dim);
            SparseTensor reference_out;
            ASSERT_TRUE(reference::SparseConcat(in.indices, in.values, in.shapes, concat_dim, &reference_out).ok());
            for (const int threads : kThreadCounts) {
              SCOPED_TRACE(::testing::Message()
                           << dtype_name(dtype) << " rank " << rank << " tile " << tile << " layout "
                           << static_cast<int>(layout) << " concat_dim " << concat_dim << " threads " << threads);
              ExecOptions options;
              options.num_threads = threads;
              options.tile_bytes = tile * rank * 8;
              SparseTensor out;
              ASSERT_TRUE(Concat(in, concat_dim, &out, options).ok());
              EXPECT_TRUE(BitEqual(out.indices, expected.indices));
              EXPECT_TRUE(BitEqual(out.values, expected.values));
              EXPECT_TRUE(BitEqual(out.shape, expected.shape));
              EXPECT_TRUE(AllowedOutcome(out, reference_out));
            }
          }
        }
      }
    }
  }
}

// The sort path on coordinate spans that take each radix plan (one in-cache pass; a split
// by the top digit then one or two passes; a skewed top digit; tiny buckets), with values
// carried in the key (4 bytes) or fetched by entry number (8 bytes, strings).
TEST(SparseConcatTest, RadixPlansAgreeWithTheOracle) {
  std::mt19937_64 rng(17);
  for (const DType dtype : {DType::kFloat32, DType::kComplex64, DType::kString}) {
    for (const std::int64_t span : {std::int64_t{7}, std::int64_t{300}, std::int64_t{40000}, std::int64_t{1} << 40}) {
      for (const bool skewed : {false, true}) {
        Inputs in;
        for (int k = 0; k < 3; ++k) {
          const std::int64_t nnz = 3000 + k;
          std::vector<std::int64_t> flat;
          for (std::int64_t e = 0; e < nnz; ++e) {
            const bool common = skewed && rng() % 10 != 0;  // most entries in one top bucket
            flat.push_back(common ? 0 : static_cast<std::int64_t>(rng() % span));
            flat.push_back(static_cast<std::int64_t>(rng() % 3));
          }
          in.indices.push_back(i64({nnz, 2}, flat));
          in.values.push_back(distinct_tensor(dtype, {nnz}, static_cast<std::uint64_t>(k) << 16));
          in.shapes.push_back(i64({2}, {span, 3}));
        }
        for (const std::int64_t cd : {0, 1}) {
          const SparseTensor expected = naive_concat(in, cd);
          for (const int threads : {1, 2}) {
            SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " span " << span << " skewed " << skewed << " cd "
                                              << cd << " threads " << threads);
            ExecOptions options;
            options.num_threads = threads;
            SparseTensor out;
            ASSERT_TRUE(Concat(in, cd, &out, options).ok());
            EXPECT_TRUE(BitEqual(out.indices, expected.indices));
            EXPECT_TRUE(BitEqual(out.values, expected.values));
          }
        }
      }
    }
  }
}

// The merge's order test on sorted-looking inputs with one flaw at every position p of a 9-
// or 10-row input, whole or in chunks of 2 or 3 entries (so at both lanes of the two-row steps,
// in the scalar row before them at an odd output position and in the tail): rows p-1 and p
// swapped, or a pair whose packed keys tie although the rows do not (row p's dim-1 coordinate
// 4 lies outside its 2-bit field and carries into dim 0's: (1,0,0) then (0,4,0)).
TEST(SparseConcatTest, MergeOrderTestFindsEveryFlaw) {
  const std::vector<std::int64_t> shape = {2, 4, 4};
  constexpr int kThreads[] = {1, 2};
  for (const bool alias : {false, true}) {
    for (std::int64_t n = 9; n <= 10; ++n) {
      for (std::int64_t p = 1; p < n; ++p) {
        std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) rows[i] = {i < 5 ? 0 : 1, (i * 3 / 2) % 4, i % 4};
        std::sort(rows.begin(), rows.end());
        if (alias) {
          for (std::int64_t i = 0; i < n; ++i) rows[i] = {i < p - 1 ? 0 : 1, 0, i < p - 1 ? 0 : 1};
          rows[p - 1] = {1, 0, 0};
          rows[p] = {0, 4, 0};
        } else {
          rows[p - 1] = {1, 3, 3};  // above every other row: the order breaks between p-1 and p
        }
        std::vector<std::vector<std::int64_t>> sorted = rows;
        std::sort(sorted.begin(), sorted.end());
        for (const int flawed : {0, 1}) {
          Inputs in;
          add_rows_input(&in, flawed == 0 ? rows : sorted, 0, shape);
          add_rows_input(&in, flawed == 1 ? rows : sorted, 1, shape);
          for (const std::int64_t cd : {0, 2}) {
            SCOPED_TRACE(::testing::Message() << "alias " << alias << " rows " << n << " p " << p << " flawed input "
                                              << flawed << " cd " << cd);
            expect_concat_everywhere(in, cd, naive_concat(in, cd), kThreads, {0, 3 * 24, 3 * 28});
          }
        }
      }
    }
  }
}

// Inputs large enough for real threads (small ones run on the calling thread), on the default
// tiles and on injected ones: the parallel merge splits, the multi-pass radix sort.
TEST(SparseConcatTest, LargeInputsOnThreads) {
  std::mt19937_64 rng(11);
  for (const Layout layout : {Layout::kSorted, Layout::kUnsorted}) {
    for (const std::int64_t cd : {0, 1, 2}) {
      Inputs in;
      for (int k = 0; k < 4; ++k) {
        const std::int64_t nnz = 12000 + k;
        std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(nnz));
        for (auto& row : rows)
          row = {static_cast<std::int64_t>(rng() % 300), static_cast<std::int64_t>(rng() % 5000),
                 static_cast<std::int64_t>(rng() % 70)};
        if (layout == Layout::kSorted) std::sort(rows.begin(), rows.end());
        std::vector<std::int64_t> flat;
        add_rows_input(&in, rows, k, {300, 5000, 70});
      }
      SCOPED_TRACE(::testing::Message() << "layout " << static_cast<int>(layout) << " cd " << cd);
      constexpr int kThreads[] = {0, 1, 2, 3, 7};
      expect_concat_everywhere(in, cd, naive_concat(in, cd), kThreads, {0, 24 * 777});
    }
  }
}

// Sorted inputs with one fault (a descent, or a concat coordinate outside the input's shape)
// at a position near a chunk boundary: the merge copies up to it, then the sort takes over.
// Also an unsorted input with one coordinate outside the output shape, late: the keys built
// against the shape are rebuilt on exact ranges.
TEST(SparseConcatTest, OneFaultLateInLargeInputs) {
  std::mt19937_64 rng(23);
  const std::int64_t nnz = 6000;
  for (const int fault : {0, 1, 2}) {
    for (const std::int64_t cd : {0, 1, 2}) {
      for (const std::int64_t at : {std::int64_t{1}, std::int64_t{2999}, nnz - 1}) {
        Inputs in;
        for (int k = 0; k < 3; ++k) {
          std::vector<std::vector<std::int64_t>> rows(static_cast<std::size_t>(nnz));
          for (auto& row : rows)
            row = {static_cast<std::int64_t>(rng() % 40), static_cast<std::int64_t>(rng() % 50),
                   static_cast<std::int64_t>(rng() % 60)};
          if (fault != 2) std::sort(rows.begin(), rows.end());
          if (k == 1) {
            auto& row = rows[static_cast<std::size_t>(at)];
            if (fault == 0) row = {-1, 0, 0};        // below the row before it
            if (fault == 1) row[cd] = 60;            // outside the input's shape on cd (which is 60 at most)
            if (fault == 2) row[(cd + 1) % 3] = -7;  // outside the output shape
          }
          add_rows_input(&in, rows, k, {40, 50, 60});
        }
        SCOPED_TRACE(::testing::Message() << "fault " << fault << " cd " << cd << " at " << at);
        expect_concat_everywhere(in, cd, naive_concat(in, cd), kThreadCounts, {0, 63, 24 * 1000});
      }
    }
  }
}

// Entries present while the output shape has an empty dim: no entry lies inside the shape.
TEST(SparseConcatTest, EntriesOfAnEmptyShape) {
  Inputs in{{i64({2, 2}, {0, 3, 0, 1}), i64({1, 2}, {-2, 0})},
            {i32({2}, {10, 11}), i32({1}, {20})},
            {i64({2}, {0, 2}), i64({2}, {0, 2})}};
  SparseTensor out;
  ASSERT_TRUE(Concat(in, 1, &out).ok());
  EXPECT_TRUE(BitEqual(out.indices, i64({3, 2}, {-2, 2, 0, 1, 0, 3})));
  EXPECT_TRUE(BitEqual(out.values, i32({3}, {20, 11, 10})));
  EXPECT_TRUE(BitEqual(out.shape, i64({2}, {0, 4})));
}

}  // namespace
}  // namespace opconform
