// Unit tests of the reference DynamicStitch and ParallelDynamicStitch
// (docs/contract/dynamic_stitch.md): every check with its exact message, the golden examples,
// the advisories TFSA-2022-145 and TFSA-2023-018, the 2147483647 index, duplicates, every dtype
// bit for bit, and outputs left untouched on error.
#include "opconform/reference/dynamic_stitch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "opconform/reference/dynamic_partition.h"
#include "reference_dynamic_test_util.h"

namespace opconform {
namespace {

using reference::DynamicPartition;
using reference::DynamicStitch;
using reference::ParallelDynamicStitch;

using namespace opconform::testing;

using StitchFn = Status (*)(std::span<const Tensor>, std::span<const Tensor>, Tensor*, const ExecOptions&);
struct StitchOp {
  std::string name;
  StitchFn fn;
};

class StitchTest : public ::testing::TestWithParam<StitchOp> {
 protected:
  const std::string& op() const { return GetParam().name; }

  Tensor stitch_ok(const std::vector<Tensor>& indices, const std::vector<Tensor>& data,
                   const ExecOptions& options = {}) {
    Tensor merged;
    const Status status = GetParam().fn(indices, data, &merged, options);
    EXPECT_TRUE(status.ok()) << status;
    EXPECT_TRUE(merged.guard_intact());
    return merged;
  }

  // Expects exactly `expected` and a merged output left as it was.
  void expect_error(const std::vector<Tensor>& indices, const std::vector<Tensor>& data, const Status& expected,
                    const ExecOptions& options = {}) {
    const Tensor sentinel = f32({2}, {-7.0f, -8.0f});
    Tensor merged = sentinel;
    EXPECT_EQ(GetParam().fn(indices, data, &merged, options), expected);
    EXPECT_EQ(merged.raw_data(), sentinel.raw_data()) << "merged was replaced on error";
    EXPECT_TRUE(BitEqual(merged, f32({2}, {-7.0f, -8.0f})));
  }
};

// --- Pre-checks (README): argument types, N and list lengths, registration -------------------

TEST_P(StitchTest, IndicesNotInt32) {
  const Tensor int64_indices = i64({1}, {0});
  const Status expected(Code::kInvalidArgument, "Input 'indices' of '" + op() +
                                                    "' Op has type int64 that does not match "
                                                    "expected type of int32.");
  expect_error({int64_indices}, {f32({1}, {1})}, expected);
  // A later member, and before a data dtype mismatch.
  expect_error({i32({1}, {0}), int64_indices}, {f32({1}, {1}), i32({1}, {2})}, expected);
  const Tensor f = f32({1}, {0});
  expect_error({f}, {f32({1}, {1})},
               Status(Code::kInvalidArgument, "Input 'indices' of '" + op() +
                                                  "' Op has type float32 that does not match "
                                                  "expected type of int32."));
}

TEST_P(StitchTest, DataMembersOfDifferentDtypes) {
  expect_error({i32({1}, {0}), i32({1}, {1}), i32({1}, {2})},
               {f32({1}, {1}), f32({1}, {2}), Tensor::from_values<double>({1}, {3})},
               Status(Code::kInvalidArgument, "Input 'data' of '" + op() +
                                                  "' Op has type float64 that does not match type float32 of "
                                                  "argument 'data'."));
  // Types come before list lengths.
  expect_error({i32({1}, {0})}, {f32({1}, {1}), i32({1}, {2})},
               Status(Code::kInvalidArgument, "Input 'data' of '" + op() +
                                                  "' Op has type int32 that does not match type float32 of "
                                                  "argument 'data'."));
}

TEST_P(StitchTest, NoInputs) {
  const Status expected(Code::kInvalidArgument, "Value for attr 'N' of 0 must be at least minimum 1");
  expect_error({}, {}, expected);
  expect_error({}, {f32({1}, {1})}, expected);
}

// TFSA-2022-145 (CVE-2022-41883): one indices tensor with two data tensors.
TEST_P(StitchTest, TFSA_2022_145_ListLengthsDiffer) {
  expect_error({i32({1, 1, 2}, {0, 1})}, {i32({1, 1, 2}, {5, 6}), i32({1, 1, 2}, {7, 8})},
               Status(Code::kInvalidArgument, "List argument 'data' to '" + op() +
                                                  "' Op with length 2 must match length 1 of argument 'indices'."));
  expect_error({i32({1}, {0}), i32({1}, {1})}, {f32({1}, {1})},
               Status(Code::kInvalidArgument, "List argument 'data' to '" + op() +
                                                  "' Op with length 1 must match length 2 of argument 'indices'."));
}

TEST_P(StitchTest, EveryDtypeIsRegistered) {
  for (int d = 0; d < kNumDTypes; ++d) {
    const DType dtype = all_dtypes()[d];
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    const Tensor data = distinct_tensor(dtype, {3, 2}, 0);
    const Tensor merged = stitch_ok({i32({3}, {2, 0, 1})}, {data});
    Tensor expected(dtype, {3, 2});
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* e = expected.data<T>();
      const int rows_from[3] = {1, 2, 0};  // merged row r comes from data row rows_from[r]
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 2; ++k) e[r * 2 + k] = distinct_value<T>(rows_from[r] * 2 + k);
    });
    EXPECT_TRUE(BitEqual(merged, expected));
  }
}

// --- Check 1: indices >= 0, before any shape check -------------------------------------------

// TFSA-2023-018 (CVE-2023-25659): a negative index.
TEST_P(StitchTest, TFSA_2023_018_NegativeIndex) {
  for (std::int32_t negative : {static_cast<std::int32_t>(0xdeadbeefu), -1000}) {
    SCOPED_TRACE(negative);
    expect_error({i32({1}, {negative}), i32({1}, {405}), i32({1}, {519}), i32({1}, {758}), i32({1}, {1015})},
                 {f32({1}, {1}), f32({1}, {2}), f32({1}, {3}), f32({1}, {4}), f32({1}, {5})},
                 Status(Code::kInvalidArgument, "indices[0] is out of range"));
  }
}

TEST_P(StitchTest, NegativeIndexNamesItsPositionInsideItsOwnList) {
  expect_error({i32({2}, {0, 1}), i32({2, 2}, {3, 4, -1, 5})}, {f32({2}, {1, 2}), f32({2, 2}, {3, 4, 5, 6})},
               Status(Code::kInvalidArgument, "indices[2] is out of range"));
  // The first negative in order over m, then i; scalar indices are position 0.
  expect_error({i32({3}, {0, -5, -6}), i32({}, {-1})}, {f32({3}, {1, 2, 3}), f32({}, {4})},
               Status(Code::kInvalidArgument, "indices[1] is out of range"));
  expect_error({i32({}, {-1})}, {f32({}, {4})}, Status(Code::kInvalidArgument, "indices[0] is out of range"));
}

TEST_P(StitchTest, NegativeIndexIsReportedBeforeShapeErrors) {
  expect_error({i32({2}, {0, 1}), i32({1}, {-3})}, {f32({3}, {1, 2, 3}), f32({4}, {1, 2, 3, 4})},
               Status(Code::kInvalidArgument, "indices[0] is out of range"));
}

// --- Check 2: data[m].shape = indices[m].shape + C --------------------------------------------

TEST_P(StitchTest, DataShapeMustStartWithIndicesShape) {
  expect_error({i32({2}, {0, 1}), i32({1, 5}, {2, 3, 4, 5, 6})}, {f32({2}, {1, 2}), f32({5}, {1, 2, 3, 4, 5})},
               Status(Code::kInvalidArgument, "data[1].shape = [5] does not start with indices[1].shape = [1,5]"));
  expect_error({i32({2}, {0, 1})}, {f32({3}, {1, 2, 3})},
               Status(Code::kInvalidArgument, "data[0].shape = [3] does not start with indices[0].shape = [2]"));
  // Rank of data below rank of indices.
  expect_error({i32({1, 1}, {0})}, {f32({1}, {1})},
               Status(Code::kInvalidArgument, "data[0].shape = [1] does not start with indices[0].shape = [1,1]"));
  // m is checked in order: data[0]'s prefix before data[1]'s trailing shape.
  expect_error({i32({2}, {0, 1}), i32({1}, {2})}, {f32({3}, {1, 2, 3}), f32({1, 2}, {1, 2})},
               Status(Code::kInvalidArgument, "data[0].shape = [3] does not start with indices[0].shape = [2]"));
}

TEST_P(StitchTest, TrailingShapesMustMatch) {
  expect_error({i32({3}, {0, 1, 2}), i32({4}, {3, 4, 5, 6})},
               {f32({3, 1}, {1, 2, 3}), f32({4, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
               Status(Code::kInvalidArgument,
                      "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], "
                      "data[1].shape = [4,2], indices[0].shape = [3], indices[1].shape = [4]"));
  // Different trailing ranks, with a scalar index and a matrix of indices.
  expect_error({i32({}, {0}), i32({1, 2}, {1, 2})}, {f32({2}, {1, 2}), f32({1, 2, 2, 1}, {1, 2, 3, 4})},
               Status(Code::kInvalidArgument,
                      "Need data[0].shape[0:] = data[1].shape[2:], got data[0].shape = [2], "
                      "data[1].shape = [1,2,2,1], indices[0].shape = [], indices[1].shape = [1,2]"));
  // m by m: data[1]'s trailing shape is reported before data[2]'s prefix.
  expect_error({i32({1}, {0}), i32({1}, {1}), i32({2}, {2, 3})},
               {f32({1, 2}, {1, 2}), f32({1, 3}, {1, 2, 3}), f32({1}, {1})},
               Status(Code::kInvalidArgument,
                      "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [1,2], "
                      "data[1].shape = [1,3], indices[0].shape = [1], indices[1].shape = [1]"));
}

// --- Check 3: output shape, then memory -------------------------------------------------------

TEST_P(StitchTest, OutputWithTooManyDimensions) {
  // A scalar index with data of rank 254: the output would have rank 255.
  const Tensor data(DType::kInt8, Shape(254, 1));
  expect_error({i32({}, {0})}, {data}, Status(Code::kInvalidArgument, "Too many dimensions in tensor"));
  // Rank 254 exactly is fine.
  const Tensor data253(DType::kInt8, Shape(253, 1));
  EXPECT_EQ(stitch_ok({i32({}, {0})}, {data253}).shape(), Shape(254, 1));
}

TEST_P(StitchTest, MemoryLimit) {
  const std::vector<Tensor> indices = {i32({2}, {3, 1})};
  const std::vector<Tensor> data = {f32({2, 2}, {1, 2, 3, 4})};
  // Output [4,2] float32: 64 + 8 * 4 = 96 bytes.
  ExecOptions options;
  options.memory_limit_bytes = 95;
  expect_error(indices, data,
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[4,2] and type float32"),
               options);
  options.memory_limit_bytes = 96;
  EXPECT_TRUE(BitEqual(stitch_ok(indices, data, options), f32({4, 2}, {0, 0, 3, 4, 0, 0, 1, 2})));
  // Even an empty output requests its 64 bytes.
  options.memory_limit_bytes = 63;
  expect_error({i32({0}, {})}, {f32({0}, {})},
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[0] and type float32"), options);
}

// Index 2147483647: the first dim is 2147483648, computed in int64 (deviation).
TEST_P(StitchTest, MaxInt32IndexExceedsDefaultLimitForFourByteRows) {
  expect_error({i32({1}, {2147483647})}, {f32({1}, {1})},
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[2147483648] and type float32"));
  expect_error({i32({1}, {2147483647})}, {Tensor::from_values<std::int32_t>({1, 3}, {1, 2, 3})},
               Status(Code::kResourceExhausted, "OOM when allocating tensor with shape[2147483648,3] and type int32"));
}

TEST_P(StitchTest, MaxInt32IndexWithEmptyRowsSucceeds) {
  const Tensor merged = stitch_ok({i32({2}, {2147483647, 5})}, {Tensor(DType::kFloat64, {2, 0, 3})});
  EXPECT_EQ(merged.dtype(), DType::kFloat64);
  EXPECT_EQ(merged.shape(), (Shape{2147483648, 0, 3}));
  EXPECT_EQ(merged.num_elements(), 0);
}

// --- Golden examples ---------------------------------------------------------------------------

TEST_P(StitchTest, DocumentationExample) {
  const Tensor merged =
      stitch_ok({i32({}, {6}), i32({2}, {4, 1}), i32({2, 2}, {5, 2, 0, 3})},
                {i32({2}, {61, 62}), i32({2, 2}, {41, 42, 11, 12}), i32({2, 2, 2}, {51, 52, 21, 22, 1, 2, 31, 32})});
  EXPECT_TRUE(BitEqual(merged, i32({7, 2}, {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62})));
}

TEST_P(StitchTest, GapsAreZero) {
  EXPECT_TRUE(BitEqual(stitch_ok({i32({1}, {2})}, {i32({1}, {1})}), i32({3}, {0, 0, 1})));
  const Tensor strings = Tensor::from_values<std::string>({2}, {"a long string in row four", "b"});
  EXPECT_TRUE(BitEqual(stitch_ok({i32({2}, {4, 1})}, {strings}),
                       Tensor::from_values<std::string>({5}, {"", "b", "", "", "a long string in row four"})));
}

TEST_P(StitchTest, AllEmptyInputs) {
  const Tensor merged = stitch_ok({i32({0}, {}), i32({0, 3}, {})}, {f32({0, 2}, {}), f32({0, 3, 2}, {})});
  EXPECT_EQ(merged.shape(), (Shape{0, 2}));
  EXPECT_EQ(merged.dtype(), DType::kFloat32);
  // Empty lists next to a non-empty one do not matter.
  EXPECT_TRUE(BitEqual(stitch_ok({i32({0}, {}), i32({1}, {1})}, {f32({0, 2}, {}), f32({1, 2}, {5, 6})}),
                       f32({2, 2}, {0, 0, 5, 6})));
}

TEST_P(StitchTest, ScalarIndices) {
  const Tensor merged = stitch_ok({i32({}, {1}), i32({}, {0})}, {f32({2}, {1.5f, 2.5f}), f32({2}, {3.5f, 4.5f})});
  EXPECT_TRUE(BitEqual(merged, f32({2, 2}, {3.5f, 4.5f, 1.5f, 2.5f})));
  // C = []: a scalar index with scalar data.
  EXPECT_TRUE(BitEqual(stitch_ok({i32({}, {2})}, {f32({}, {9})}), f32({3}, {0, 0, 9})));
}

// The documented use with DynamicPartition: a round trip with float values.
TEST_P(StitchTest, DocumentedRoundTripWithDynamicPartition) {
  const std::vector<float> x_values = {0.1f, -1.f, 5.2f, 4.3f, -1.f, 7.4f};
  const Tensor x = f32({6}, x_values);
  const Tensor mask = i32({6}, {1, 0, 1, 1, 0, 1});
  std::vector<Tensor> parts;
  ASSERT_TRUE(DynamicPartition(x, mask, 2, &parts).ok());
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_TRUE(BitEqual(parts[0], f32({2}, {-1.f, -1.f})));
  EXPECT_TRUE(BitEqual(parts[1], f32({4}, {0.1f, 5.2f, 4.3f, 7.4f})));
  for (float& v : parts[1].values<float>()) v += 1;
  std::vector<Tensor> idx;
  ASSERT_TRUE(DynamicPartition(i32({6}, {0, 1, 2, 3, 4, 5}), mask, 2, &idx).ok());
  EXPECT_TRUE(BitEqual(idx[0], i32({2}, {1, 4})));
  EXPECT_TRUE(BitEqual(idx[1], i32({4}, {0, 2, 3, 5})));
  const Tensor merged = stitch_ok(idx, parts);
  EXPECT_TRUE(BitEqual(merged, f32({6}, {0.1f + 1, -1.f, 5.2f + 1, 4.3f + 1, -1.f, 7.4f + 1})));
  EXPECT_EQ(merged.values<float>()[0], 1.1f);
}

// --- Duplicates ---------------------------------------------------------------------------------

TEST_P(StitchTest, LaterPositionInOneListWins) {
  EXPECT_TRUE(BitEqual(stitch_ok({i32({4}, {1, 0, 1, 1})}, {i32({4, 1}, {10, 20, 30, 40})}), i32({2, 1}, {20, 40})));
  EXPECT_TRUE(BitEqual(stitch_ok({i32({2, 2}, {0, 0, 0, 1})}, {i32({2, 2}, {1, 2, 3, 4})}), i32({2}, {3, 4})));
}

TEST(DynamicStitchTest, LastListWinsAcrossLists) {
  Tensor merged;
  const std::vector<Tensor> indices = {i32({2}, {0, 1}), i32({1}, {1}), i32({2}, {2, 0})};
  const std::vector<Tensor> data = {i32({2}, {1, 2}), i32({1}, {3}), i32({2}, {4, 5})};
  ASSERT_TRUE(DynamicStitch(indices, data, &merged).ok());
  EXPECT_TRUE(BitEqual(merged, i32({3}, {5, 3, 4})));
}

// Across lists the winner is unspecified: accept any list naming the index, nothing else.
TEST(ParallelDynamicStitchTest, AnyListMayWinAcrossLists) {
  Tensor merged;
  const std::vector<Tensor> indices = {i32({2}, {0, 1}), i32({2}, {1, 1}), i32({2}, {2, 0})};
  const std::vector<Tensor> data = {i32({2}, {1, 2}), i32({2}, {3, 6}), i32({2}, {4, 5})};
  ASSERT_TRUE(ParallelDynamicStitch(indices, data, &merged).ok());
  ASSERT_EQ(merged.shape(), Shape{3});
  const std::span<const std::int32_t> m = merged.values<std::int32_t>();
  EXPECT_TRUE(m[0] == 1 || m[0] == 5) << m[0];
  EXPECT_TRUE(m[1] == 2 || m[1] == 6) << m[1];  // inside list 1 the later position wins: not 3
  EXPECT_EQ(m[2], 4);
}

TEST(ParallelDynamicStitchTest, EqualsDynamicStitchForUniqueIndices) {
  const std::vector<Tensor> indices = {i32({2}, {3, 0}), i32({2, 1}, {4, 1}), i32({}, {2})};
  const std::vector<Tensor> data = {distinct_tensor(DType::kString, {2, 2}, 0),
                                    distinct_tensor(DType::kString, {2, 1, 2}, 4),
                                    distinct_tensor(DType::kString, {2}, 8)};
  Tensor serial;
  Tensor parallel;
  ASSERT_TRUE(DynamicStitch(indices, data, &serial).ok());
  ASSERT_TRUE(ParallelDynamicStitch(indices, data, &parallel).ok());
  EXPECT_TRUE(BitEqual(parallel, serial));
}

// --- Payloads copied bit for bit --------------------------------------------------------------

TEST_P(StitchTest, NaNPayloadsAndNegativeZeroAreCopiedBitForBit) {
  const std::uint32_t bits32[4] = {0x7fa00001u, 0xffc12345u, 0x80000000u, 0x7f800000u};
  Tensor f32_data(DType::kFloat32, {4});
  std::memcpy(f32_data.raw_data(), bits32, sizeof bits32);
  const Tensor merged32 = stitch_ok({i32({4}, {3, 2, 1, 0})}, {f32_data});
  const std::uint32_t expected32[4] = {0x7f800000u, 0x80000000u, 0xffc12345u, 0x7fa00001u};
  EXPECT_EQ(std::memcmp(merged32.raw_data(), expected32, sizeof expected32), 0);

  const std::uint64_t bits64[2] = {0x7ff0000000000001ull, 0xfff8deadbeef0000ull};
  Tensor f64(DType::kFloat64, {2});
  std::memcpy(f64.raw_data(), bits64, sizeof bits64);
  const Tensor merged64 = stitch_ok({i32({2}, {2, 0})}, {f64});
  const std::uint64_t expected64[3] = {0xfff8deadbeef0000ull, 0, 0x7ff0000000000001ull};
  ASSERT_EQ(merged64.shape(), Shape{3});
  EXPECT_EQ(std::memcmp(merged64.raw_data(), expected64, sizeof expected64), 0);

  Tensor c64(DType::kComplex64, {1});
  const std::uint32_t bitsc[2] = {0x7fc00abcu, 0x80000000u};
  std::memcpy(c64.raw_data(), bitsc, sizeof bitsc);
  const Tensor mergedc = stitch_ok({i32({1}, {0})}, {c64});
  EXPECT_EQ(std::memcmp(mergedc.raw_data(), bitsc, sizeof bitsc), 0);
}

TEST_P(StitchTest, SeveralDtypesWithTrailingShape) {
  for (DType dtype :
       {DType::kString, DType::kBFloat16, DType::kComplex128, DType::kUInt64, DType::kBool, DType::kQInt32}) {
    SCOPED_TRACE(std::string(dtype_name(dtype)));
    // indices [[1],[3]] and [0]: rows 1, 3 from data[0], row 0 from data[1], row 2 a gap.
    const Tensor data0 = distinct_tensor(dtype, {2, 1, 2, 2}, 0);
    const Tensor data1 = distinct_tensor(dtype, {1, 2, 2}, 100);
    const Tensor merged = stitch_ok({i32({2, 1}, {1, 3}), i32({1}, {0})}, {data0, data1});
    Tensor expected(dtype, {4, 2, 2});
    visit_dtype(dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* e = expected.data<T>();
      for (int k = 0; k < 4; ++k) {
        e[0 * 4 + k] = distinct_value<T>(100 + k);
        e[1 * 4 + k] = distinct_value<T>(0 + k);
        e[3 * 4 + k] = distinct_value<T>(4 + k);
      }
    });
    EXPECT_TRUE(BitEqual(merged, expected));
  }
}

TEST_P(StitchTest, InputsAreNotModified) {
  const std::vector<Tensor> indices = {i32({2}, {1, 0})};
  const std::vector<Tensor> data = {distinct_tensor(DType::kString, {2}, 0)};
  const Tensor indices_before = indices[0].clone();
  const Tensor data_before = data[0].clone();
  stitch_ok(indices, data);
  EXPECT_TRUE(BitEqual(indices[0], indices_before));
  EXPECT_TRUE(BitEqual(data[0], data_before));
}

INSTANTIATE_TEST_SUITE_P(Reference, StitchTest,
                         ::testing::Values(StitchOp{"DynamicStitch", &DynamicStitch},
                                           StitchOp{"ParallelDynamicStitch", &ParallelDynamicStitch}),
                         [](const ::testing::TestParamInfo<StitchOp>& info) { return info.param.name; });

}  // namespace
}  // namespace opconform
