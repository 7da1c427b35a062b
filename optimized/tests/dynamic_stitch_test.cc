// Tests of the optimized DynamicStitch and ParallelDynamicStitch
// (docs/contract/dynamic_stitch.md): every check with its exact message and in its order,
// the golden examples and advisories, then a tile-boundary matrix (rows 0, 1, t-1, t, t+1,
// 2t+1 for injected destination blocks of t rows; every element width, bool and string; 1, 2,
// 3 and 7 threads) with duplicates, gaps and scalar indices, compared bit for bit with a naive
// oracle and with the reference kernel. ParallelDynamicStitch is held to its allowed outcomes
// only: per row, the last position of any list that names it.
#include "opconform/optimized/dynamic_stitch.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "opconform/optimized/dynamic_partition.h"
#include "row_copy.h"
#include "dynamic_ops_test_util.h"
#include "opconform/reference/dynamic_stitch.h"

namespace opconform {
namespace {

using namespace opconform::testing;

using StitchFn = Status (*)(std::span<const Tensor>, std::span<const Tensor>, Tensor*, const ExecOptions&);

struct StitchOp {
  const char* name;
  StitchFn optimized;
  StitchFn reference;
};
const StitchOp kDynamicStitch{"DynamicStitch", &optimized::DynamicStitch, &reference::DynamicStitch};
const StitchOp kParallelStitch{"ParallelDynamicStitch", &optimized::ParallelDynamicStitch,
                               &reference::ParallelDynamicStitch};

// The naive oracle: rows copied in order over m then i into a zeroed output, so the last
// (m, i) wins. Precondition: valid inputs.
Tensor naive_stitch(const std::vector<Tensor>& indices, const std::vector<Tensor>& data) {
  std::int64_t rows = 0;
  for (const Tensor& t : indices)
    for (std::int32_t v : t.values<std::int32_t>()) rows = std::max<std::int64_t>(rows, v + 1);
  Shape shape{rows};
  shape.insert(shape.end(), data[0].shape().begin() + indices[0].rank(), data[0].shape().end());
  Tensor out(data[0].dtype(), shape);
  visit_dtype(out.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::int64_t row = rows > 0 ? out.num_elements() / rows : 0;
    for (std::size_t m = 0; m < indices.size(); ++m) {
      const auto index = indices[m].values<std::int32_t>();
      for (std::size_t i = 0; i < index.size(); ++i)
        std::copy_n(data[m].data<T>() + i * row, row, out.data<T>() + index[i] * row);
    }
  });
  return out;
}

// ParallelDynamicStitch's contract: `merged` has the stitched shape; each row named by some
// list equals that list's last position for it, for one of those lists; other rows are zero.
::testing::AssertionResult AllowedParallelOutcome(const std::vector<Tensor>& indices, const std::vector<Tensor>& data,
                                                  const Tensor& merged) {
  const Tensor last_writer = naive_stitch(indices, data);  // shape and the zero rows
  if (merged.shape() != last_writer.shape() || merged.dtype() != last_writer.dtype())
    return ::testing::AssertionFailure() << "shape " << shape_string(merged.shape()) << " vs "
                                         << shape_string(last_writer.shape());
  if (!merged.guard_intact()) return ::testing::AssertionFailure() << "write past the end";
  const std::int64_t rows = merged.dim(0);
  if (rows == 0) return ::testing::AssertionSuccess();
  const std::int64_t row = merged.num_elements() / rows;
  return visit_dtype(merged.dtype(), [&](auto tag) -> ::testing::AssertionResult {
    using T = typename decltype(tag)::type;
    auto row_equal = [&](const T* a, const T* b) {
      for (std::int64_t k = 0; k < row; ++k)
        if (!element_equal(a, b, k)) return false;
      return true;
    };
    // List by list: is row r named by the list, and does it equal the list's last row for r?
    std::vector<char> named(static_cast<std::size_t>(rows), 0), matched(named);
    std::vector<const T*> last(static_cast<std::size_t>(rows));
    for (std::size_t m = 0; m < indices.size(); ++m) {
      std::fill(last.begin(), last.end(), nullptr);
      const auto index = indices[m].values<std::int32_t>();
      for (std::size_t i = 0; i < index.size(); ++i) last[index[i]] = data[m].data<T>() + i * row;
      for (std::int64_t r = 0; r < rows; ++r) {
        if (last[r] == nullptr) continue;
        named[r] = 1;
        if (!matched[r]) matched[r] = row_equal(merged.data<T>() + r * row, last[r]);
      }
    }
    for (std::int64_t r = 0; r < rows; ++r) {
      const bool ok = named[r] ? matched[r] != 0
                               : row_equal(merged.data<T>() + r * row,
                                           last_writer.data<T>() + r * row);  // a gap: zero
      if (!ok)
        return ::testing::AssertionFailure()
               << "row " << r << (named[r] ? " is no list's last writer" : " is a gap but not zero");
    }
    return ::testing::AssertionSuccess();
  });
}

class StitchTest : public ::testing::TestWithParam<StitchOp> {
 protected:
  Status Run(const std::vector<Tensor>& indices, const std::vector<Tensor>& data, Tensor* out,
             const ExecOptions& options = {}) {
    return GetParam().optimized(indices, data, out, options);
  }
  std::string op() const { return GetParam().name; }
};

TEST_P(StitchTest, IndicesMustBeInt32) {
  Tensor out;
  const Tensor wide = Tensor::from_values<std::int64_t>({1}, {0});
  EXPECT_TRUE(
      HasStatus(Run({i32({1}, {0}), wide}, {i32({1}, {1}), i32({1}, {2})}, &out), Code::kInvalidArgument,
                "Input 'indices' of '" + op() + "' Op has type int64 that does not match expected type of int32."));
}

TEST_P(StitchTest, DataMembersShareTheFirstDtype) {
  Tensor out;
  EXPECT_TRUE(HasStatus(Run({i32({1}, {0}), i32({1}, {1})},
                            {Tensor::from_values<float>({1}, {1}), Tensor::from_values<double>({1}, {2})}, &out),
                        Code::kInvalidArgument,
                        "Input 'data' of '" + op() +
                            "' Op has type float64 that does not match type float32 of "
                            "argument 'data'."));
}

TEST_P(StitchTest, ArgumentTypesComeBeforeListLengths) {
  Tensor out;
  const Tensor wide = Tensor::from_values<std::int64_t>({1}, {0});
  EXPECT_TRUE(
      HasStatus(Run({wide}, {}, &out), Code::kInvalidArgument,
                "Input 'indices' of '" + op() + "' Op has type int64 that does not match expected type of int32."));
}

TEST_P(StitchTest, NoLists) {
  Tensor out;
  EXPECT_TRUE(
      HasStatus(Run({}, {}, &out), Code::kInvalidArgument, "Value for attr 'N' of 0 must be at least minimum 1"));
  EXPECT_TRUE(HasStatus(Run({}, {i32({1}, {1})}, &out), Code::kInvalidArgument,
                        "Value for attr 'N' of 0 must be at least minimum 1"));
}

TEST_P(StitchTest, TFSA_2022_145_ListLengthsDiffer) {
  Tensor out;
  EXPECT_TRUE(
      HasStatus(Run({i32({1, 2}, {0, 1})}, {i32({1, 2}, {5, 6}), i32({1, 2}, {7, 8})}, &out), Code::kInvalidArgument,
                "List argument 'data' to '" + op() + "' Op with length 2 must match length 1 of argument 'indices'."));
}

TEST_P(StitchTest, TFSA_2023_018_NegativeIndex) {
  for (const std::int32_t bad : {static_cast<std::int32_t>(0xdeadbeef), -1000}) {
    std::vector<Tensor> indices = {i32({1}, {bad}), i32({1}, {405}), i32({1}, {519}), i32({1}, {758}),
                                   i32({1}, {1015})};
    std::vector<Tensor> data(5, Tensor::from_values<float>({1}, {1.5f}));
    Tensor out;
    EXPECT_TRUE(HasStatus(Run(indices, data, &out), Code::kInvalidArgument, "indices[0] is out of range"));
  }
}

TEST_P(StitchTest, NegativeIndexNamesItsPositionInsideItsList) {
  Tensor out;
  // The first negative in list order is list 1's position 2 (list 2's position 0 comes later).
  EXPECT_TRUE(HasStatus(Run({i32({2}, {0, 1}), i32({2, 2}, {2, 3, -4, 5}), i32({1}, {-1})},
                            {i32({2}, {1, 2}), i32({2, 2}, {1, 2, 3, 4}), i32({1}, {1})}, &out),
                        Code::kInvalidArgument, "indices[2] is out of range"));
}

// The index scan works eight indices a step: a negative or the largest index at any position
// of a list longer than a few steps is found (and the first negative named).
TEST_P(StitchTest, ScanFindsTheNegativeAndTheMaxAtEveryPosition) {
  constexpr std::int64_t kLength = 37;
  for (std::int64_t at = 0; at < kLength; ++at) {
    for (const std::int32_t special : {-1, std::numeric_limits<std::int32_t>::min(), 40}) {
      std::vector<std::int32_t> values(kLength);
      for (std::int64_t i = 0; i < kLength; ++i) values[i] = static_cast<std::int32_t>(i % 7);
      values[at] = special;
      Tensor out;
      const Status status = Run({i32({kLength}, values)},
                                {Tensor::from_values<float>({kLength}, std::vector<float>(kLength, 1.5f))}, &out);
      SCOPED_TRACE(::testing::Message() << "index " << special << " at " << at);
      if (special < 0) {
        EXPECT_TRUE(HasStatus(status, Code::kInvalidArgument, "indices[" + std::to_string(at) + "] is out of range"));
      } else {
        ASSERT_TRUE(status.ok());
        EXPECT_EQ(out.shape(), Shape{41});
      }
    }
  }
}

TEST_P(StitchTest, IndicesAreCheckedBeforeShapes) {
  Tensor out;
  EXPECT_TRUE(HasStatus(Run({i32({2}, {0, 1}), i32({1}, {-7})}, {i32({3}, {1, 2, 3}), i32({}, {1})}, &out),
                        Code::kInvalidArgument, "indices[0] is out of range"));
}

TEST_P(StitchTest, DataShapeMustStartWithIndicesShape) {
  Tensor out;
  EXPECT_TRUE(HasStatus(
      Run({i32({2}, {0, 1}), i32({1, 5}, {2, 3, 4, 5, 6})}, {i32({2}, {1, 2}), i32({5}, {1, 2, 3, 4, 5})}, &out),
      Code::kInvalidArgument, "data[1].shape = [5] does not start with indices[1].shape = [1,5]"));
  EXPECT_TRUE(HasStatus(Run({i32({2}, {0, 1})}, {i32({3}, {1, 2, 3})}, &out), Code::kInvalidArgument,
                        "data[0].shape = [3] does not start with indices[0].shape = [2]"));
}

TEST_P(StitchTest, TrailingShapesMustMatch) {
  Tensor out;
  EXPECT_TRUE(HasStatus(Run({i32({3}, {0, 1, 2}), i32({4}, {3, 4, 5, 6})},
                            {distinct_tensor(DType::kFloat32, {3, 1}), distinct_tensor(DType::kFloat32, {4, 2})}, &out),
                        Code::kInvalidArgument,
                        "Need data[0].shape[1:] = data[1].shape[1:], got data[0].shape = [3,1], data[1].shape = "
                        "[4,2], indices[0].shape = [3], indices[1].shape = [4]"));
  // Per list: list 1's trailing mismatch is reported before list 2's prefix mismatch.
  EXPECT_TRUE(HasStatus(Run({i32({}, {0}), i32({1}, {1}), i32({2}, {2, 3})},
                            {distinct_tensor(DType::kInt8, {2}), distinct_tensor(DType::kInt8, {1, 3}),
                             distinct_tensor(DType::kInt8, {3})},
                            &out),
                        Code::kInvalidArgument,
                        "Need data[0].shape[0:] = data[1].shape[1:], got data[0].shape = [2], data[1].shape = "
                        "[1,3], indices[0].shape = [], indices[1].shape = [1]"));
}

TEST_P(StitchTest, OutputWithTooManyDimensions) {
  Tensor out;
  const Shape deep(254, 1);
  EXPECT_TRUE(HasStatus(Run({i32({}, {0})}, {distinct_tensor(DType::kUInt8, deep)}, &out), Code::kInvalidArgument,
                        "Too many dimensions in tensor"));
}

TEST_P(StitchTest, OutputElementCountOverflow) {
  Tensor out;
  // Output [2147483648, 4294967296, 0]: 2^31 * 2^32 wraps to a negative count (README).
  const Tensor data(DType::kUInt8, Shape{1, std::int64_t{1} << 32, 0});
  EXPECT_TRUE(HasStatus(Run({i32({1}, {std::numeric_limits<std::int32_t>::max()})}, {data}, &out),
                        Code::kInvalidArgument,
                        "Encountered overflow when multiplying 2147483648 with 4294967296, "
                        "result: -9223372036854775808"));
}

TEST_P(StitchTest, MemoryLimitNamesTheOutput) {
  Tensor out;
  ExecOptions options;
  options.memory_limit_bytes = 64 + 4 * 10 - 1;
  EXPECT_TRUE(HasStatus(Run({i32({1}, {9})}, {Tensor::from_values<float>({1}, {1})}, &out, options),
                        Code::kResourceExhausted, "OOM when allocating tensor with shape[10] and type float32"));
  options.memory_limit_bytes = 64 + 4 * 10;
  EXPECT_TRUE(Run({i32({1}, {9})}, {Tensor::from_values<float>({1}, {1})}, &out, options).ok());
}

TEST_P(StitchTest, MaxInt32Index) {
  Tensor out;
  const std::int32_t max = std::numeric_limits<std::int32_t>::max();
  EXPECT_TRUE(HasStatus(Run({i32({1}, {max})}, {Tensor::from_values<float>({1}, {1})}, &out), Code::kResourceExhausted,
                        "OOM when allocating tensor with shape[2147483648] and type float32"));
  // Rows with no elements always fit.
  ASSERT_TRUE(Run({i32({1}, {max})}, {Tensor(DType::kFloat32, {1, 0})}, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{2147483648, 0}));
}

TEST_P(StitchTest, OutputUntouchedOnError) {
  Tensor out = Tensor::from_values<float>({2}, {7, 8});
  const Tensor before = out.clone();
  const void* buffer = out.raw_data();
  EXPECT_FALSE(Run({i32({1}, {-1})}, {Tensor::from_values<float>({1}, {1})}, &out).ok());
  ExecOptions tight;
  tight.memory_limit_bytes = 10;
  EXPECT_FALSE(Run({i32({1}, {3})}, {Tensor::from_values<float>({1}, {1})}, &out, tight).ok());
  EXPECT_EQ(out.raw_data(), buffer);
  EXPECT_TRUE(BitEqual(out, before));
}

TEST_P(StitchTest, DocumentationExample) {
  const std::vector<Tensor> indices = {i32({}, {6}), i32({2}, {4, 1}), i32({2, 2}, {5, 2, 0, 3})};
  const std::vector<Tensor> data = {i32({2}, {61, 62}), i32({2, 2}, {41, 42, 11, 12}),
                                    i32({2, 2, 2}, {51, 52, 21, 22, 1, 2, 31, 32})};
  Tensor out;
  ASSERT_TRUE(Run(indices, data, &out).ok());
  EXPECT_TRUE(BitEqual(out, i32({7, 2}, {1, 2, 11, 12, 21, 22, 31, 32, 41, 42, 51, 52, 61, 62})));
}

TEST_P(StitchTest, GapsAreZeroAndEmptyInputsGiveNoRows) {
  Tensor out;
  ASSERT_TRUE(Run({i32({1}, {2})}, {i32({1}, {1})}, &out).ok());
  EXPECT_TRUE(BitEqual(out, i32({3}, {0, 0, 1})));
  ASSERT_TRUE(
      Run({i32({0}, {}), i32({0}, {})}, {Tensor(DType::kFloat32, {0, 2}), Tensor(DType::kFloat32, {0, 2})}, &out).ok());
  EXPECT_EQ(out.shape(), (Shape{0, 2}));
  ASSERT_TRUE(Run({i32({1}, {3})}, {Tensor::from_values<std::string>({1}, {"x"})}, &out).ok());
  EXPECT_TRUE(BitEqual(out, Tensor::from_values<std::string>({4}, {"", "", "", "x"})));
}

TEST_P(StitchTest, DocumentedRoundTripWithDynamicPartition) {
  const Tensor x = Tensor::from_values<float>({6}, {0.1f, -1.f, 5.2f, 4.3f, -1.f, 7.4f});
  const Tensor mask = i32({6}, {1, 0, 1, 1, 0, 1});
  std::vector<Tensor> parts, idx;
  ASSERT_TRUE(optimized::DynamicPartition(x, mask, 2, &parts).ok());
  ASSERT_TRUE(optimized::DynamicPartition(i32({6}, {0, 1, 2, 3, 4, 5}), mask, 2, &idx).ok());
  for (float& v : parts[1].values<float>()) v += 1;
  Tensor out;
  ASSERT_TRUE(Run(idx, parts, &out).ok());
  EXPECT_TRUE(BitEqual(out, Tensor::from_values<float>({6}, {0.1f + 1, -1.f, 5.2f + 1, 4.3f + 1, -1.f, 7.4f + 1})));
}

// A valid random case: `lists` lists of random index shapes (scalars included) drawing rows
// from [0, rows) with duplicates (rows - 1 always named), trailing shape `trailing`.
struct Case {
  std::vector<Tensor> indices;
  std::vector<Tensor> data;
};

Case random_case(std::mt19937_64& rng, DType dtype, std::int64_t rows, const Shape& trailing, int lists) {
  Case c;
  std::int64_t next_value = 0;
  for (int m = 0; m < lists; ++m) {
    Shape shape;
    switch (rng() % 4) {
      case 0: shape = {}; break;  // scalar
      case 1: shape = {static_cast<std::int64_t>(rng() % (rows + 3))}; break;
      case 2: shape = {static_cast<std::int64_t>(rng() % 4), static_cast<std::int64_t>(rng() % 5)}; break;
      default: shape = {static_cast<std::int64_t>(rng() % (2 * rows + 2))}; break;
    }
    if (rows == 0) shape = {0};
    Tensor index(DType::kInt32, shape);
    for (std::int32_t& v : index.values<std::int32_t>())
      v = static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(rows));
    Shape data_shape = shape;
    data_shape.insert(data_shape.end(), trailing.begin(), trailing.end());
    Tensor data = distinct_tensor(dtype, data_shape, next_value);
    next_value += data.num_elements() + 1;
    c.indices.push_back(std::move(index));
    c.data.push_back(std::move(data));
  }
  if (rows > 0) {  // name the last row somewhere, so the output has `rows` rows
    Tensor& last = c.indices[rng() % c.indices.size()];
    if (last.num_elements() == 0) {
      const std::size_t m = &last - c.indices.data();
      last = i32({}, {static_cast<std::int32_t>(rows - 1)});
      c.data[m] = distinct_tensor(dtype, trailing, next_value);
    } else {
      last.data<std::int32_t>()[rng() % last.num_elements()] = static_cast<std::int32_t>(rows - 1);
    }
  }
  return c;
}

TEST_P(StitchTest, TileBoundaryMatrix) {
  std::mt19937_64 rng(20261129);
  const bool parallel = GetParam().optimized == &optimized::ParallelDynamicStitch;
  for (const DType dtype : kMatrixDtypes) {
    // Rows of 1 to 16 elements take the push path; 45 elements of 4 bytes or more the forward
    // path on one thread with few duplicates, else the pull path; 48 or 64 elements of 4 bytes
    // or more, with streaming stores forced, the streaming forward path with few duplicates,
    // else the scatter path (64 elements of 4 and 8 bytes: the fixed 256- and 512-byte copies).
    for (const Shape& trailing : {Shape{}, Shape{3}, Shape{2, 2}, Shape{5, 9}, Shape{4, 12}, Shape{4, 16}}) {
      const std::int64_t row_elems = trailing.empty() ? 1 : trailing[0] * (trailing.size() > 1 ? trailing[1] : 1);
      const auto row_bytes = row_elems * static_cast<std::int64_t>(dtype_storage_size(dtype));
      for (const std::int64_t tile : {1, 3, 64, 65}) {
        for (const std::int64_t rows : {std::int64_t{0}, std::int64_t{1}, tile - 1, tile, tile + 1, 2 * tile + 1}) {
          for (const int lists : {1, 3}) {
            const Case c = random_case(rng, dtype, rows, trailing, lists);
            const Tensor expected = naive_stitch(c.indices, c.data);
            Tensor reference_out;
            ASSERT_TRUE(GetParam().reference(c.indices, c.data, &reference_out, {}).ok());
            for (const int threads : kThreadCounts) {
              const std::int64_t streaming_min_bytes = trailing == Shape{4, 12} || trailing == Shape{4, 16} ? 1 : 0;
              SCOPED_TRACE(::testing::Message()
                           << dtype_name(dtype) << " trailing " << shape_string(trailing) << " tile " << tile
                           << " rows " << rows << " lists " << lists << " threads " << threads
                           << " streaming_min_bytes " << streaming_min_bytes);
              ExecOptions options;
              options.num_threads = threads;
              options.tile_bytes = tile * row_bytes;
              options.streaming_min_bytes = streaming_min_bytes;
              Tensor out;
              ASSERT_TRUE(Run(c.indices, c.data, &out, options).ok());
              if (parallel) {
                EXPECT_TRUE(AllowedParallelOutcome(c.indices, c.data, out));
              } else {
                EXPECT_TRUE(BitEqual(out, expected));
                EXPECT_TRUE(BitEqual(out, reference_out));
              }
            }
          }
        }
      }
    }
  }
}

// Small outputs with the default options: rows of 160 bytes or more with few duplicates take
// the small forward path (up to 32 KiB of output, and 256- and 512-byte rows of any size here
// where the CPU has wide moves; its marks on the stack up to 256 rows), the larger ones here
// the forward path; gaps, duplicates across lists, scalar indices.
TEST_P(StitchTest, SmallOutputsWithDefaultOptions) {
  const bool parallel = GetParam().optimized == &optimized::ParallelDynamicStitch;
  const std::int64_t row_counts[] = {1, 2, 63, 64, 65, 100, 129, 200, 256, 257, 300, 1000, 1025};
  for (const int wide : {-1, 0}) {  // the wide loops where the CPU has them, then the baseline's
    SCOPED_TRACE(wide == 0 ? "baseline moves" : "wide moves where the CPU has them");
    const optimized::row_copy::ScopedWideMovesSetting setting(wide);
    std::mt19937_64 rng(20261205);
    for (const DType dtype : {DType::kFloat32, DType::kFloat64, DType::kUInt8})
      for (const Shape& trailing : {Shape{40}, Shape{64}, Shape{5, 41}, Shape{160}})
        for (const std::int64_t rows : row_counts)
          for (const int lists : {1, 2, 4}) {
            const Case c = random_case(rng, dtype, rows, trailing, lists);
            SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " trailing " << shape_string(trailing) << " rows "
                                              << rows << " lists " << lists);
            Tensor out;
            ASSERT_TRUE(Run(c.indices, c.data, &out, {}).ok());
            if (parallel)
              EXPECT_TRUE(AllowedParallelOutcome(c.indices, c.data, out));
            else
              EXPECT_TRUE(BitEqual(out, naive_stitch(c.indices, c.data)));
          }
  }
}

// Inputs large enough for real threads (small ones run on the calling thread). With one
// position per row (half of them duplicates, so also gaps), 256-byte rows go forward on one
// thread and pull on more, 272-byte rows of an output just above the streaming threshold go
// forward with streaming stores; with three positions per row, 256-byte rows pull and 272-byte
// rows scatter. Rows of one byte take several destination blocks (the
// bitmaps stay within 5% of the output), 4-byte rows push. Default and injected tiles.
TEST_P(StitchTest, LargeInputsOnThreads) {
  std::mt19937_64 rng(7);
  const std::int64_t streaming_rows = optimized::row_copy::default_streaming_min_bytes() / 272 + 11;
  for (const auto& [dtype, row_elems, rows] :
       {std::tuple{DType::kUInt8, 1, std::int64_t{1'000'003}}, std::tuple{DType::kFloat32, 1, std::int64_t{1'000'003}},
        std::tuple{DType::kFloat32, 64, std::int64_t{20'011}}, std::tuple{DType::kFloat32, 68, streaming_rows}}) {
    for (const std::int64_t per_row : {1, 3}) {
      std::vector<std::int32_t> perm(static_cast<std::size_t>(rows * per_row));
      if (per_row == 1) {
        for (std::int64_t r = 0; r < rows; ++r) perm[r] = static_cast<std::int32_t>(r);
        std::shuffle(perm.begin(), perm.end(), rng);
        for (std::size_t i = 0; i < perm.size(); i += 2)
          perm[i] = static_cast<std::int32_t>(rng() % rows);  // duplicates and gaps
      } else {
        for (std::int32_t& v : perm) v = static_cast<std::int32_t>(rng() % rows);
      }
      perm[rng() % perm.size()] = static_cast<std::int32_t>(rows - 1);
      std::vector<Tensor> indices, data;
      const auto positions = static_cast<std::int64_t>(perm.size());
      const std::int64_t per_list = positions / 4;
      for (int m = 0; m < 4; ++m) {
        const std::int64_t begin = m * per_list, end = m == 3 ? positions : begin + per_list;
        indices.push_back(i32({end - begin}, std::vector<std::int32_t>(perm.begin() + begin, perm.begin() + end)));
        data.push_back(distinct_tensor(dtype, row_elems == 1 ? Shape{end - begin} : Shape{end - begin, row_elems},
                                       static_cast<std::uint64_t>(begin * row_elems)));
      }
      const Tensor expected = naive_stitch(indices, data);
      for (const int threads : {0, 1, 2, 3, 7}) {
        for (const std::int64_t tile_bytes : {0, 300'007}) {
          SCOPED_TRACE(::testing::Message() << dtype_name(dtype) << " x " << row_elems << " positions per row "
                                            << per_row << " threads " << threads << " tile " << tile_bytes);
          ExecOptions options;
          options.num_threads = threads;
          options.tile_bytes = tile_bytes;
          Tensor out;
          ASSERT_TRUE(Run(indices, data, &out, options).ok());
          if (GetParam().optimized == &optimized::ParallelDynamicStitch)
            EXPECT_TRUE(AllowedParallelOutcome(indices, data, out));
          else
            EXPECT_TRUE(BitEqual(out, expected));
        }
      }
    }
  }
}

// Three lists sharing one data tensor (and one indices tensor) on the scatter path: equal rows
// at equal addresses, yet each output row has one winning position and is written once.
TEST_P(StitchTest, SharedDataOnTheScatterPath) {
  const std::int64_t rows = optimized::row_copy::default_streaming_min_bytes() / 256 + 5;
  std::vector<std::int32_t> perm(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) perm[r] = static_cast<std::int32_t>((r * 7919) % rows);
  const Tensor index = i32({rows}, perm);
  const Tensor data = distinct_tensor(DType::kFloat32, {rows, 64});
  const std::vector<Tensor> indices = {index, index, index}, datas = {data, data, data};
  const Tensor expected = naive_stitch(indices, datas);
  for (const int threads : {1, 2, 3}) {
    ExecOptions options;
    options.num_threads = threads;
    Tensor out;
    ASSERT_TRUE(Run(indices, datas, &out, options).ok());
    EXPECT_TRUE(BitEqual(out, expected)) << "threads " << threads;
  }
}

INSTANTIATE_TEST_SUITE_P(Optimized, StitchTest, ::testing::Values(kDynamicStitch, kParallelStitch),
                         [](const auto& info) { return std::string(info.param.name); });

// The allowed-outcome check itself: it accepts any list's last position and nothing else.
TEST(ParallelOutcomeCheck, AcceptsAnyListsLastWriterOnly) {
  const std::vector<Tensor> indices = {i32({2}, {0, 0}), i32({1}, {0})};
  const std::vector<Tensor> data = {i32({2}, {10, 11}), i32({1}, {20})};
  EXPECT_TRUE(AllowedParallelOutcome(indices, data, i32({1}, {11})));
  EXPECT_TRUE(AllowedParallelOutcome(indices, data, i32({1}, {20})));
  EXPECT_FALSE(AllowedParallelOutcome(indices, data, i32({1}, {10})));  // not list 0's last
  EXPECT_FALSE(AllowedParallelOutcome(indices, data, i32({1}, {0})));
  EXPECT_FALSE(AllowedParallelOutcome({i32({1}, {1})}, {i32({1}, {5})}, i32({2}, {9, 5})));
}

TEST(DynamicStitchTest, LastListWinsAcrossLists) {
  Tensor out;
  const std::vector<Tensor> indices = {i32({2}, {0, 1}), i32({1}, {0})};
  const std::vector<Tensor> data = {i32({2}, {1, 2}), i32({1}, {3})};
  ASSERT_TRUE(optimized::DynamicStitch(indices, data, &out).ok());
  EXPECT_TRUE(BitEqual(out, i32({2}, {3, 2})));
}

}  // namespace
}  // namespace opconform
