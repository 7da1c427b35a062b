// Unit tests of the reference SparseConcat against docs/contract/sparse_concat.md: every
// check with its exact code and message (in the spec's order), the advisory and crash-path
// inputs of advisories.md, the golden examples, and bit-exact results over every dtype.
#include "opconform/reference/sparse_concat.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

namespace opconform::reference {
namespace {

// The default options with a memory limit of `bytes`.
ExecOptions limited_to(std::int64_t bytes) {
  ExecOptions options;
  options.memory_limit_bytes = bytes;
  return options;
}

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t k2Pow61 = std::int64_t{1} << 61;
constexpr std::int64_t k2Pow62 = std::int64_t{1} << 62;

Tensor Int64Vector(const std::vector<std::int64_t>& v) {
  return Tensor::from_values<std::int64_t>({static_cast<std::int64_t>(v.size())}, v);
}

// An int64 [rows.size(), cols] matrix.
Tensor Int64Matrix(const std::vector<std::vector<std::int64_t>>& rows, std::int64_t cols) {
  std::vector<std::int64_t> flat;
  for (const auto& row : rows) flat.insert(flat.end(), row.begin(), row.end());
  return Tensor::from_values<std::int64_t>({static_cast<std::int64_t>(rows.size()), cols}, flat);
}

template <class T>
Tensor Vector(const std::vector<T>& v) {
  return Tensor::from_values<T>({static_cast<std::int64_t>(v.size())}, v);
}

struct Inputs {
  std::vector<Tensor> indices, values, shapes;
  std::int64_t concat_dim = 0;

  // Appends one sparse input: rows of coordinates (rank = shape's length), values, shape.
  template <class T>
  Inputs& add(const std::vector<std::vector<std::int64_t>>& coords, const std::vector<T>& vals,
              const std::vector<std::int64_t>& shape) {
    indices.push_back(Int64Matrix(coords, static_cast<std::int64_t>(shape.size())));
    values.push_back(Vector<T>(vals));
    shapes.push_back(Int64Vector(shape));
    return *this;
  }
  // Appends one input from ready tensors.
  Inputs& add_tensors(Tensor i, Tensor v, Tensor s) {
    indices.push_back(std::move(i));
    values.push_back(std::move(v));
    shapes.push_back(std::move(s));
    return *this;
  }
};

Status RunConcat(const Inputs& in, SparseTensor* out, const ExecOptions& options = {}) {
  return SparseConcat(in.indices, in.values, in.shapes, in.concat_dim, out, options);
}

// Runs `in` expecting {code, message}; the output must be left exactly as it was.
void ExpectError(const Inputs& in, Code code, const std::string& message, const ExecOptions& options = {}) {
  SparseTensor out{Int64Matrix({{-7}}, 1), Vector<std::string>({"sentinel"}), Int64Vector({42})};
  const SparseTensor before{out.indices.clone(), out.values.clone(), out.shape.clone()};
  const void* buffers[3] = {out.indices.raw_data(), out.values.raw_data(), out.shape.raw_data()};
  const Status status = RunConcat(in, &out, options);
  EXPECT_EQ(status, Status(code, message)) << status;
  EXPECT_EQ(out.indices.raw_data(), buffers[0]);
  EXPECT_EQ(out.values.raw_data(), buffers[1]);
  EXPECT_EQ(out.shape.raw_data(), buffers[2]);
  EXPECT_TRUE(out.indices.bit_equal(before.indices));
  EXPECT_TRUE(out.values.bit_equal(before.values));
  EXPECT_TRUE(out.shape.bit_equal(before.shape));
}

void ExpectInvalid(const Inputs& in, const std::string& message) { ExpectError(in, Code::kInvalidArgument, message); }

SparseTensor RunOk(const Inputs& in, const ExecOptions& options = {}) {
  SparseTensor out;
  const Status status = RunConcat(in, &out, options);
  EXPECT_TRUE(status.ok()) << status;
  return out;
}

// Exact comparison: indices [nnz, r], values and shape bit for bit.
template <class T>
void ExpectSparse(const SparseTensor& actual, const std::vector<std::vector<std::int64_t>>& indices,
                  const std::vector<T>& values, const std::vector<std::int64_t>& shape) {
  const auto r = static_cast<std::int64_t>(shape.size());
  EXPECT_TRUE(actual.indices.bit_equal(Int64Matrix(indices, r)))
      << "indices shape " << shape_string(actual.indices.shape());
  EXPECT_TRUE(actual.values.bit_equal(Vector<T>(values)));
  EXPECT_TRUE(actual.shape.bit_equal(Int64Vector(shape)));
}

// A shape of 255 ones (one dim more than kMaxDims).
std::vector<std::int64_t> Ones255() { return std::vector<std::int64_t>(255, 1); }

// Two valid float inputs of rank 2 along dim 1, to be broken one field at a time.
Inputs TwoValid() {
  Inputs in;
  in.concat_dim = 1;
  in.add<float>({{0, 0}, {1, 2}}, {1, 2}, {2, 3});
  in.add<float>({{1, 1}}, {3}, {2, 4});
  return in;
}

// ---- README pre-checks: argument types ----------------------------------------------------

TEST(SparseConcatChecks, IndicesMustBeInt64) {
  Inputs in = TwoValid();
  in.indices[1] = Tensor::from_values<std::int32_t>({1, 2}, {1, 1});
  ExpectInvalid(in,
                "Input 'indices' of 'SparseConcat' Op has type int32 that does not match "
                "expected type of int64.");
  in.indices.resize(1);  // the type check comes before N >= 2
  in.indices[0] = Tensor::from_values<std::int32_t>({1, 2}, {1, 1});
  ExpectInvalid(in,
                "Input 'indices' of 'SparseConcat' Op has type int32 that does not match "
                "expected type of int64.");
}

TEST(SparseConcatChecks, ValuesMustShareTheFirstDtype) {
  Inputs in = TwoValid();
  in.values[1] = Vector<double>({3});
  in.shapes[0] = Tensor::from_values<std::int32_t>({2}, {2, 3});  // values come before shapes
  ExpectInvalid(in,
                "Input 'values' of 'SparseConcat' Op has type float64 that does not match "
                "type float32 of argument 'values'.");
}

TEST(SparseConcatChecks, ShapesMustBeInt64) {
  Inputs in = TwoValid();
  in.shapes[1] = Tensor::from_values<std::int32_t>({2}, {2, 4});
  in.values.pop_back();  // the type check comes before the list lengths
  ExpectInvalid(in,
                "Input 'shapes' of 'SparseConcat' Op has type int32 that does not match "
                "expected type of int64.");
}

// ---- Step 1: op definition ------------------------------------------------------------------

TEST(SparseConcatChecks, AtLeastTwoInputs) {
  Inputs one;
  one.add<float>({{0}}, {1}, {1});
  ExpectInvalid(one, "Value for attr 'N' of 1 must be at least minimum 2");
  ExpectInvalid(Inputs{}, "Value for attr 'N' of 0 must be at least minimum 2");
}

TEST(SparseConcatChecks, ListLengthsValuesThenShapes) {
  Inputs in = TwoValid();
  in.values.push_back(Vector<float>({}));
  in.shapes.pop_back();
  ExpectInvalid(in,
                "List argument 'values' to 'SparseConcat' Op with length 3 must match "
                "length 2 of argument 'indices'.");
  in.values.pop_back();
  ExpectInvalid(in,
                "List argument 'shapes' to 'SparseConcat' Op with length 1 must match "
                "length 2 of argument 'indices'.");
}

TEST(SparseConcatChecks, ConcatDimOutsideInt32) {
  Inputs in = TwoValid();
  in.values = {Vector<qint8>({qint8{1}, qint8{2}}), Vector<qint8>({qint8{3}})};
  in.concat_dim = std::int64_t{1} << 31;  // reported before the registration check
  ExpectInvalid(in, "Attr concat_dim has value 2147483648 out of range for an int32");
  in.concat_dim = -(std::int64_t{1} << 31) - 1;
  ExpectInvalid(in, "Attr concat_dim has value -2147483649 out of range for an int32");
}

// ---- Registration ---------------------------------------------------------------------------

TEST(SparseConcatChecks, QuantizedDtypesAreNotRegistered) {
  Inputs in = TwoValid();
  in.indices[0] = Int64Vector({0});  // step 2 would fail: registration comes first
  in.values = {Vector<qint8>({qint8{1}, qint8{2}}), Vector<qint8>({qint8{3}})};
  ExpectError(in, Code::kUnimplemented,
              "No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=qint8");
  in.values = {Vector<quint8>({quint8{1}, quint8{2}}), Vector<quint8>({quint8{3}})};
  ExpectError(in, Code::kUnimplemented,
              "No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=quint8");
  in.values = {Vector<qint32>({qint32{1}, qint32{2}}), Vector<qint32>({qint32{3}})};
  ExpectError(in, Code::kUnimplemented,
              "No registered 'SparseConcat' OpKernel for 'CPU' devices compatible with T=qint32");
}

// ---- Steps 2, 4, 5: ranks of the inputs -------------------------------------------------------

TEST(SparseConcatChecks, IndicesMustBeMatrices) {
  Inputs in = TwoValid();
  in.indices[1] = Int64Vector({1, 1});
  in.values[0] = Tensor(DType::kFloat32, {2, 1});  // step 4 comes after every step-2 check
  ExpectInvalid(in, "Input indices should be a matrix but received shape [2] at position 1");
  in.indices[1] = Tensor(DType::kInt64, {});
  ExpectInvalid(in, "Input indices should be a matrix but received shape [] at position 1");
}

TEST(SparseConcatChecks, ValuesMustBeVectors) {
  Inputs in = TwoValid();
  in.values[0] = Tensor(DType::kFloat32, {2, 1});
  in.shapes[0] = Int64Matrix({{2, 3}}, 2);  // step 5 comes after every step-4 check
  ExpectInvalid(in, "Input values should be a vector but received shape [2,1] at position 0");
}

TEST(SparseConcatChecks, ShapesMustBeVectors) {
  Inputs in = TwoValid();
  in.shapes[1] = Int64Matrix({{2, 4}}, 2);
  ExpectInvalid(in, "Input shapes should be a vector but received shape [1,2] at position 1");
}

// ---- Step 5: the shapes' element counts (INTERNAL) ------------------------------------------

TEST(SparseConcatChecks, Tfsa2021_024ShapeOverflowIsInternal) {
  Inputs in;
  in.concat_dim = 2;
  in.add_tensors(Int64Matrix({{514, 514}, {514, 514}}, 2), Vector<std::int64_t>({}),
                 Int64Vector({442, 514, 514, 515, 606, 347, 943, 61, 2}));
  in.add_tensors(Int64Matrix({{514, 530}, {599, 877}}, 2), Vector<std::int64_t>({}),
                 Int64Vector(std::vector<std::int64_t>(9, 0)));
  ExpectError(in, Code::kInternal, "Encountered overflow from large input shape.");
}

TEST(SparseConcatChecks, NegativeDimIsInternal) {
  Inputs in = TwoValid();
  in.shapes[1] = Int64Vector({0, -4});  // a negative dim beats a zero one
  ExpectError(in, Code::kInternal, "Encountered overflow from large input shape.");
}

TEST(SparseConcatChecks, ShapeChecksRunInputByInput) {
  Inputs in = TwoValid();
  in.shapes[0] = Int64Vector({k2Pow62, 4});  // overflows at position 0 ...
  in.shapes[1] = Int64Matrix({{2, 4}}, 2);   // ... before position 1 is looked at
  ExpectError(in, Code::kInternal, "Encountered overflow from large input shape.");
  in.shapes[0] = Int64Matrix({{2, 3}}, 2);
  in.shapes[1] = Int64Vector({k2Pow62, 4});
  ExpectInvalid(in, "Input shapes should be a vector but received shape [1,2] at position 0");
}

TEST(SparseConcatChecks, ZeroDimHidesLaterHugeDims) {
  // The checked product stays 0 after a zero dim, so [0, 2^62, 2^62] is a valid shape.
  Inputs in;
  in.add<float>({}, {}, {0, k2Pow62, k2Pow62});
  in.add<float>({}, {}, {0, k2Pow62, k2Pow62});
  in.concat_dim = 2;
  ExpectInvalid(in, "Concat dimension size overflows int64 at position 1");
  in.concat_dim = 0;
  ExpectSparse<float>(RunOk(in), {}, {}, {0, k2Pow62, k2Pow62});
}

// ---- Step 6: too many dimensions in shapes[0] (deviation) -----------------------------------

TEST(SparseConcatChecks, TooManyDimensionsInFirstShape) {
  Inputs in = TwoValid();
  in.shapes[0] = Int64Vector(Ones255());
  in.concat_dim = 300;  // step 7 comes after
  ExpectInvalid(in, "Too many dimensions in tensor");
  std::vector<std::int64_t> negative = Ones255();
  negative[254] = -1;  // step 5 comes before
  in.shapes[0] = Int64Vector(negative);
  ExpectError(in, Code::kInternal, "Encountered overflow from large input shape.");
}

// ---- Step 7: concat_dim range -----------------------------------------------------------------

TEST(SparseConcatChecks, ConcatDimRange) {
  Inputs in = TwoValid();
  in.concat_dim = 2;
  ExpectInvalid(in, "Concat dimension must be in range [-2, 2), got 2");
  in.concat_dim = -3;
  ExpectInvalid(in, "Concat dimension must be in range [-2, 2), got -3");
  in.concat_dim = 2147483647;
  ExpectInvalid(in, "Concat dimension must be in range [-2, 2), got 2147483647");
  in.concat_dim = -2147483648;
  ExpectInvalid(in, "Concat dimension must be in range [-2, 2), got -2147483648");

  Inputs scalars;  // rank 0 always fails here
  scalars.add<float>({}, {}, {});
  scalars.add<float>({}, {}, {});
  ExpectInvalid(scalars, "Concat dimension must be in range [0, 0), got 0");
}

// ---- Step 8: the other shapes against shapes[0] ----------------------------------------------

TEST(SparseConcatChecks, TooManyDimensionsInLaterShape) {
  Inputs in = TwoValid();
  in.shapes[1] = Int64Vector(Ones255());  // before the rank check
  ExpectInvalid(in, "Too many dimensions in tensor");
}

TEST(SparseConcatChecks, RanksMustMatch) {
  Inputs in = TwoValid();
  in.shapes[1] = Int64Vector({2, 4, 1});
  ExpectInvalid(in, "Ranks of all input tensors must match: expected 2 but got 3 at position 1");
}

TEST(SparseConcatChecks, ShapesMustMatchOffTheConcatDim) {
  Inputs in = TwoValid();
  in.add<float>({}, {}, {3, 1});
  ExpectInvalid(in, "Input shapes must match: expected 2 for dimension 0 but got 3 at position 2");
}

TEST(SparseConcatChecks, ConcatDimSumOverflow) {
  // advisories.md: shapes 2^62 each along dim 0, one entry each.
  Inputs in;
  in.add<float>({{0}}, {1}, {k2Pow62});
  in.add<float>({{0}}, {2}, {k2Pow62});
  ExpectInvalid(in, "Concat dimension size overflows int64 at position 1");
}

TEST(SparseConcatChecks, OutputElementCountOverflow) {
  // advisories.md: [3, 2^61] twice along dim 0.
  Inputs in;
  in.add<float>({{0, 0}}, {1}, {3, k2Pow61});
  in.add<float>({{0, 0}}, {2}, {3, k2Pow61});
  ExpectInvalid(in,
                "Encountered overflow when multiplying 6 with 2305843009213693952, result: "
                "-4611686018427387904");
}

TEST(SparseConcatChecks, OutputElementCountNamesTheDimsBeforeIt) {
  // Output [2^61, 2, 3]: the product over the dims turns negative at dim 2, after cd.
  Inputs in;
  in.add<float>({}, {}, {std::int64_t{1} << 60, 2, 3});
  in.add<float>({}, {}, {std::int64_t{1} << 60, 2, 3});
  ExpectInvalid(in,
                "Encountered overflow when multiplying 4611686018427387904 with 3, result: "
                "-4611686018427387904");
}

TEST(SparseConcatChecks, Step8RunsDimByDim) {
  // The element count is checked at j = cd, after dims j < cd and before dims j > cd.
  Inputs in;
  in.add<float>({}, {}, {3, k2Pow61});
  in.add<float>({}, {}, {3, 5});
  ExpectInvalid(in,
                "Encountered overflow when multiplying 6 with 2305843009213693952, result: "
                "-4611686018427387904");
  in.concat_dim = 1;
  in.shapes[0] = Int64Vector({3, k2Pow61});  // output [3, 2^61 + 2^60] would overflow at j = 1
  in.shapes[1] = Int64Vector({4, std::int64_t{1} << 60});
  ExpectInvalid(in, "Input shapes must match: expected 3 for dimension 0 but got 4 at position 1");
}

TEST(SparseConcatChecks, EarlierInputsAreCheckedFirst) {
  Inputs in = TwoValid();
  in.add<float>({}, {}, {2, 1, 1});
  in.shapes[1] = Int64Vector({5, 4});
  ExpectInvalid(in, "Input shapes must match: expected 2 for dimension 0 but got 5 at position 1");
}

// ---- Step 9: total nnz ----------------------------------------------------------------------

TEST(SparseConcatChecks, TotalNnzOverflow) {
  // advisories.md: four zero-column indices [2^62, 0] (zero elements each).
  Inputs in;
  for (int i = 0; i < 4; ++i) in.add_tensors(Tensor(DType::kInt64, {k2Pow62, 0}), Vector<float>({}), Int64Vector({1}));
  ExpectInvalid(in, "Total number of entries overflows int64");
}

TEST(SparseConcatChecks, HugeRowCountWithoutElementsReachesStep10) {
  Inputs in;
  in.add_tensors(Tensor(DType::kInt64, {k2Pow62, 0}), Vector<float>({}), Int64Vector({1}));
  in.add<float>({}, {}, {1});
  ExpectInvalid(in,
                "indices and values rows (indexing dimension) must match. (indices = "
                "4611686018427387904, values = 0)");
}

TEST(SparseConcatResult, TotalNnzZeroSkipsStep10) {
  // Rows and columns would fail step 10, but TensorFlow returns before it.
  Inputs in;
  in.concat_dim = -1;
  in.add_tensors(Tensor(DType::kInt64, {0, 5}), Vector<std::string>({"x", "y"}), Int64Vector({2, 3}));
  in.add_tensors(Tensor(DType::kInt64, {0, 2}), Vector<std::string>({}), Int64Vector({2, 4}));
  const SparseTensor out = RunOk(in);
  EXPECT_TRUE(out.indices.bit_equal(Tensor(DType::kInt64, {0, 2})));
  EXPECT_TRUE(out.values.bit_equal(Tensor(DType::kString, {0})));
  EXPECT_TRUE(out.shape.bit_equal(Int64Vector({2, 7})));
}

TEST(SparseConcatResult, EmptyResultIsRequestedThroughTheAccount) {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::int8_t>({}, {}, {2, 3});
  in.add<std::int8_t>({}, {}, {2, 4});
  // [0,2] int64: 64 bytes; [0] int8: 64; [2] int64: 80; total 208.
  ExpectError(in, Code::kResourceExhausted, "OOM when allocating tensor with shape[2] and type int64", limited_to(207));
  ExpectError(in, Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type int8", limited_to(127));
  ExpectSparse<std::int8_t>(RunOk(in, limited_to(208)), {}, {}, {2, 7});
}

// ---- Step 10: per-input entries -------------------------------------------------------------

TEST(SparseConcatChecks, IndicesAndValuesRowsMustMatch) {
  Inputs in = TwoValid();
  in.values[1] = Vector<float>({3, 4, 5});
  ExpectInvalid(in,
                "indices and values rows (indexing dimension) must match. (indices = 1, "
                "values = 3)");
}

TEST(SparseConcatChecks, IndicesColumnsMustEqualRank) {
  Inputs in = TwoValid();
  in.indices[0] = Int64Matrix({{0, 0, 0}, {1, 2, 0}}, 3);
  in.values[1] = Vector<float>({3, 4, 5});  // input 1 is checked after input 0
  ExpectInvalid(in, "Order length must be SparseTensor rank.");
  in.values[0] = Vector<float>({1});  // rows before columns within one input
  ExpectInvalid(in,
                "indices and values rows (indexing dimension) must match. (indices = 2, "
                "values = 1)");
}

TEST(SparseConcatChecks, IndexPlusOffsetOverflow) {
  Inputs in;
  in.add<float>({{kInt64Max - 1}}, {1}, {5});  // offset 0: fine
  in.add<float>({{0}, {kInt64Max - 4}}, {2, 3}, {5});
  in.add<float>({{0}}, {4, 5}, {5});  // input 2's row mismatch comes later
  ExpectInvalid(in, "Index 9223372036854775803 at position 1 overflows int64 when offset by 5");
  in.indices[1] = Int64Matrix({{0}, {kInt64Max - 5}}, 1);
  ExpectInvalid(in,
                "indices and values rows (indexing dimension) must match. (indices = 1, "
                "values = 2)");
  in.values[2] = Vector<float>({4});
  ExpectSparse<float>(RunOk(in), {{5}, {10}, {kInt64Max - 1}, {kInt64Max}}, {2, 4, 1, 3}, {15});
}

// ---- Step 11: memory ------------------------------------------------------------------------

TEST(SparseConcatChecks, MemoryLimitNamesTheFirstOutputOver) {
  Inputs in;
  in.add<std::string>({{0}}, {"a"}, {1});
  in.add<std::string>({{0}}, {"b"}, {1});
  // [2,1] int64: 80 bytes; [2] string: 64 + 2 * 24 = 112; [1] int64: 72; total 264.
  ExpectError(in, Code::kResourceExhausted, "OOM when allocating tensor with shape[2,1] and type int64",
              limited_to(79));
  ExpectError(in, Code::kResourceExhausted, "OOM when allocating tensor with shape[2] and type string",
              limited_to(191));
  ExpectError(in, Code::kResourceExhausted, "OOM when allocating tensor with shape[1] and type int64", limited_to(263));
  ExpectSparse<std::string>(RunOk(in, limited_to(264)), {{0}, {1}}, {"a", "b"}, {2});
}

TEST(SparseConcatChecks, MemoryCheckComesAfterStep10) {
  Inputs in = TwoValid();
  in.values[1] = Vector<float>({});
  ExpectError(in, Code::kInvalidArgument,
              "indices and values rows (indexing dimension) must match. (indices = 1, values = 0)", limited_to(0));
}

// ---- Results ----------------------------------------------------------------------------------

TEST(SparseConcatResult, GoldenStringExample) {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::string>({{0, 2}, {1, 0}, {1, 1}}, {"a", "b", "c"}, {2, 3});
  in.add<std::string>({{0, 1}, {0, 2}}, {"d", "e"}, {2, 4});
  ExpectSparse<std::string>(RunOk(in), {{0, 2}, {0, 4}, {0, 5}, {1, 0}, {1, 1}}, {"a", "d", "e", "b", "c"}, {2, 7});
}

Inputs TensorFlowA3x3B3x5() {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::int64_t>({{0, 2}, {1, 0}, {2, 0}, {2, 2}}, {1, 2, 3, 4}, {3, 3});
  in.add<std::int64_t>({{1, 1}, {2, 0}, {2, 3}, {2, 4}}, {1, 2, 1, 0}, {3, 5});
  return in;
}

TEST(SparseConcatResult, GoldenTensorFlowTest) {
  ExpectSparse<std::int64_t>(RunOk(TensorFlowA3x3B3x5()),
                             {{0, 2}, {1, 0}, {1, 4}, {2, 0}, {2, 2}, {2, 3}, {2, 6}, {2, 7}}, {1, 2, 1, 3, 4, 2, 1, 0},
                             {3, 8});
}

TEST(SparseConcatResult, NegativeConcatDimCountsFromTheEnd) {
  Inputs in = TensorFlowA3x3B3x5();
  const SparseTensor positive = RunOk(in);
  in.concat_dim = -1;
  const SparseTensor negative = RunOk(in);
  EXPECT_TRUE(negative.indices.bit_equal(positive.indices));
  EXPECT_TRUE(negative.values.bit_equal(positive.values));
  EXPECT_TRUE(negative.shape.bit_equal(positive.shape));

  in.concat_dim = -2;  // == 0: B's rows need the same column count as A's, so use B [3,3]
  in.shapes[1] = Int64Vector({3, 3});
  in.indices[1] = Int64Matrix({{1, 1}, {2, 0}}, 2);
  in.values[1] = Vector<std::int64_t>({7, 8});
  ExpectSparse<std::int64_t>(RunOk(in), {{0, 2}, {1, 0}, {2, 0}, {2, 2}, {4, 1}, {5, 0}}, {1, 2, 3, 4, 7, 8}, {6, 3});
}

TEST(SparseConcatResult, UnsortedInputsGiveTheSortedOutput) {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::int64_t>({{2, 2}, {0, 2}, {2, 0}, {1, 0}}, {4, 1, 3, 2}, {3, 3});
  in.add<std::int64_t>({{2, 4}, {2, 3}, {1, 1}, {2, 0}}, {0, 1, 1, 2}, {3, 5});
  ExpectSparse<std::int64_t>(RunOk(in), {{0, 2}, {1, 0}, {1, 4}, {2, 0}, {2, 2}, {2, 3}, {2, 6}, {2, 7}},
                             {1, 2, 1, 3, 4, 2, 1, 0}, {3, 8});
}

TEST(SparseConcatResult, DuplicatesAreKept) {
  // Equal coordinates keep all their values; their relative order is unspecified, so each run
  // of equal coordinates is compared as a multiset.
  Inputs in;
  in.concat_dim = 1;
  in.add<std::int32_t>({{0, 1}, {0, 1}, {1, 3}}, {10, 11, 12}, {2, 2});  // [1,3]: out of range
  in.add<std::int32_t>({{0, 1}, {1, 1}, {0, 1}}, {20, 21, 22}, {2, 2});  // -> [0,3],[1,3],[0,3]
  const SparseTensor out = RunOk(in);
  EXPECT_TRUE(out.indices.bit_equal(Int64Matrix({{0, 1}, {0, 1}, {0, 3}, {0, 3}, {1, 3}, {1, 3}}, 2)));
  EXPECT_TRUE(out.shape.bit_equal(Int64Vector({2, 4})));
  ASSERT_EQ(out.values.num_elements(), 6);
  const std::int32_t* v = out.values.data<std::int32_t>();
  const std::vector<std::vector<std::int32_t>> runs = {{10, 11}, {20, 22}, {12, 21}};
  for (std::size_t run = 0; run < runs.size(); ++run)
    EXPECT_TRUE(std::is_permutation(v + 2 * run, v + 2 * run + 2, runs[run].begin())) << "run " << run;
}

TEST(SparseConcatResult, OutOfRangeAndNegativeCoordinatesAreOffsetAndSorted) {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::string>({{0, 5}, {1, -1}, {-1, 0}}, {"a", "b", "e"}, {2, 3});
  in.add<std::string>({{0, -2}, {0, 0}, {3, 9}}, {"c", "d", "f"}, {2, 4});
  // B's [0,-2] lands at [0,1], inside A's range; A's [0,5] lands inside B's.
  ExpectSparse<std::string>(RunOk(in), {{-1, 0}, {0, 1}, {0, 3}, {0, 5}, {1, -1}, {3, 12}},
                            {"e", "c", "d", "a", "b", "f"}, {2, 7});
}

TEST(SparseConcatResult, AlongDimZeroSortedInputsAreAppended) {
  Inputs in;
  in.add<float>({{0, 1}, {1, 0}}, {1, 2}, {2, 2});
  in.add<float>({}, {}, {0, 2});
  in.add<float>({{0, 0}, {2, 1}}, {3, 4}, {3, 2});
  ExpectSparse<float>(RunOk(in), {{0, 1}, {1, 0}, {2, 0}, {4, 1}}, {1, 2, 3, 4}, {5, 2});
}

TEST(SparseConcatResult, Associative) {
  Inputs abc;
  abc.concat_dim = 1;
  abc.add<std::int16_t>({{1, 0}, {0, 1}}, {1, 2}, {2, 2});
  abc.add<std::int16_t>({{0, 0}}, {3}, {2, 1});
  abc.add<std::int16_t>({{1, 2}, {0, 0}}, {4, 5}, {2, 3});
  const SparseTensor all = RunOk(abc);

  Inputs ab;
  ab.concat_dim = 1;
  ab.add_tensors(abc.indices[0], abc.values[0], abc.shapes[0]);
  ab.add_tensors(abc.indices[1], abc.values[1], abc.shapes[1]);
  const SparseTensor first = RunOk(ab);
  Inputs ab_c;
  ab_c.concat_dim = 1;
  ab_c.add_tensors(first.indices, first.values, first.shape);
  ab_c.add_tensors(abc.indices[2], abc.values[2], abc.shapes[2]);
  const SparseTensor nested = RunOk(ab_c);
  EXPECT_TRUE(nested.indices.bit_equal(all.indices));
  EXPECT_TRUE(nested.values.bit_equal(all.values));
  EXPECT_TRUE(nested.shape.bit_equal(all.shape));
  ExpectSparse<std::int16_t>(all, {{0, 1}, {0, 2}, {0, 3}, {1, 0}, {1, 5}}, {2, 3, 5, 1, 4}, {2, 6});
}

TEST(SparseConcatResult, HigherRankAlongMiddleDim) {
  Inputs in;
  in.concat_dim = 1;
  in.add<std::uint8_t>({{1, 0, 1}, {0, 1, 0}}, {1, 2}, {2, 2, 2});
  in.add<std::uint8_t>({{0, 0, 1}, {1, 0, 0}}, {3, 4}, {2, 1, 2});
  ExpectSparse<std::uint8_t>(RunOk(in), {{0, 1, 0}, {0, 2, 1}, {1, 0, 1}, {1, 2, 0}}, {2, 3, 1, 4}, {2, 3, 2});
}

// Every registered dtype moves its values bit for bit. Input A [2,1] holds [1,0], [0,0];
// B [2,2] holds [0,1], [1,0] (offset to [0,2], [1,1]); along dim 1 the output order is
// A1, B0, A0, B1.
TEST(SparseConcatResult, EveryRegisteredDtypeBitExact) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    if (dtype == DType::kQInt8 || dtype == DType::kQUInt8 || dtype == DType::kQInt32) continue;
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    Tensor a(dtype, {2}), b(dtype, {2});
    if (dtype == DType::kString) {
      a.data<std::string>()[0] = std::string("a0\0x", 4);
      a.data<std::string>()[1] = std::string("\0", 1);
      b.data<std::string>()[0] = "b0";
      b.data<std::string>()[1] = std::string("b1\0\0", 4);
    } else if (dtype == DType::kBool) {
      a.data<bool>()[0] = true;
      b.data<bool>()[1] = true;
    } else {  // distinct byte patterns (NaN payloads and denormals included for floats)
      const std::size_t bytes = 2 * dtype_storage_size(dtype);
      auto* pa = static_cast<unsigned char*>(a.raw_data());
      auto* pb = static_cast<unsigned char*>(b.raw_data());
      for (std::size_t i = 0; i < bytes; ++i) {
        pa[i] = static_cast<unsigned char>(0xF1 + 3 * i);
        pb[i] = static_cast<unsigned char>(0x17 + 5 * i);
      }
    }
    Inputs in;
    in.concat_dim = 1;
    in.add_tensors(Int64Matrix({{1, 0}, {0, 0}}, 2), a, Int64Vector({2, 1}));
    in.add_tensors(Int64Matrix({{0, 1}, {1, 0}}, 2), b, Int64Vector({2, 2}));
    const SparseTensor out = RunOk(in);
    EXPECT_TRUE(out.indices.bit_equal(Int64Matrix({{0, 0}, {0, 2}, {1, 0}, {1, 1}}, 2)));
    EXPECT_TRUE(out.shape.bit_equal(Int64Vector({2, 3})));
    ASSERT_EQ(out.values.dtype(), dtype);
    ASSERT_EQ(out.values.shape(), Shape{4});
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* expected[4] = {a.data<T>() + 1, b.data<T>(), a.data<T>(), b.data<T>() + 1};
      for (int i = 0; i < 4; ++i) {
        if constexpr (std::is_same_v<T, std::string>) {
          EXPECT_EQ(out.values.data<T>()[i], *expected[i]) << "value " << i;
        } else {
          EXPECT_EQ(std::memcmp(out.values.data<T>() + i, expected[i], sizeof(T)), 0) << "value " << i;
        }
      }
    });
  }
}

TEST(SparseConcatResult, NanPayloadsAndNegativeZeroBitExact) {
  const std::vector<std::uint32_t> bits = {0x7fa00001u, 0xffc12345u, 0x80000000u, 0x00000001u};
  std::vector<float> floats(bits.size());
  std::memcpy(floats.data(), bits.data(), bits.size() * sizeof(float));
  Inputs in;
  in.add<float>({{1}, {0}}, {floats[0], floats[1]}, {2});
  in.add<float>({{1}, {0}}, {floats[2], floats[3]}, {2});
  const SparseTensor out = RunOk(in);
  const std::vector<std::uint32_t> expected = {0xffc12345u, 0x7fa00001u, 0x00000001u, 0x80000000u};
  ASSERT_EQ(out.values.num_elements(), 4);
  EXPECT_EQ(std::memcmp(out.values.raw_data(), expected.data(), 4 * sizeof(float)), 0);

  const std::uint64_t nan64 = 0x7ff0000000000badull;
  double d;
  std::memcpy(&d, &nan64, sizeof d);
  Inputs doubles;
  doubles.add<double>({{0}}, {d}, {1});
  doubles.add<double>({}, {}, {1});
  const SparseTensor out64 = RunOk(doubles);
  EXPECT_EQ(std::memcmp(out64.values.raw_data(), &nan64, sizeof nan64), 0);
}

TEST(SparseConcatResult, StringsWithNulBytes) {
  Inputs in;
  in.concat_dim = 0;
  in.add<std::string>({{0}}, {std::string("x\0y", 3)}, {1});
  in.add<std::string>({{0}}, {std::string("\0\0", 2)}, {1});
  ExpectSparse<std::string>(RunOk(in), {{0}, {1}}, {std::string("x\0y", 3), std::string("\0\0", 2)}, {2});
}

TEST(SparseConcatResult, SuccessReplacesTheOutput) {
  SparseTensor out{Int64Matrix({{-7}}, 1), Vector<std::string>({"old"}), Int64Vector({42})};
  ASSERT_TRUE(RunConcat(TensorFlowA3x3B3x5(), &out).ok());
  EXPECT_EQ(out.values.dtype(), DType::kInt64);
  EXPECT_TRUE(out.shape.bit_equal(Int64Vector({3, 8})));
}

}  // namespace
}  // namespace opconform::reference
