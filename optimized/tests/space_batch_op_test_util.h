// Helpers shared by the optimized SpaceToBatchND and BatchToSpaceND tests: the op under test
// (with its reference, its index formula from tests/support and its kernel), the chunk widths
// of the tile-boundary matrix, and the checks of one case through the op and through the
// kernel alone.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "opconform/optimized/batch_to_space_nd.h"
#include "opconform/optimized/space_to_batch_nd.h"
#include "opconform/reference/batch_to_space_nd.h"
#include "opconform/reference/space_to_batch_nd.h"
#include "row_copy.h"
#include "space_batch_movers.h"
#include "space_batch_test_util.h"

namespace opconform::testing {

using FormulaFn = Tensor (*)(const Tensor&, const std::vector<std::int64_t>&, const std::vector<std::int64_t>&);
using KernelFn = void (*)(const optimized::space_batch::Plan&, const Tensor&, Tensor&, const ExecOptions&);

// One of the two ops. `to_batch`: the input is the space side (SpaceToBatchND).
struct SpaceBatchOp {
  const char* paddings_or_crops_name;  // "paddings" or "crops"
  bool to_batch;
  OpFn optimized;
  OpFn reference;
  FormulaFn formula;
  KernelFn kernel;
};
inline const SpaceBatchOp kSpaceToBatch{"paddings",
                                        true,
                                        &optimized::SpaceToBatchND,
                                        &reference::SpaceToBatchND,
                                        &space_to_batch_by_formula,
                                        &optimized::space_batch::space_to_batch};
inline const SpaceBatchOp kBatchToSpace{"crops",
                                        false,
                                        &optimized::BatchToSpaceND,
                                        &reference::BatchToSpaceND,
                                        &batch_to_space_by_formula,
                                        &optimized::space_batch::batch_to_space};

// distinct_tensor, but a bool tensor holds distinct nonzero bytes: the kernel moves bytes, and
// alternating bools would hide a permutation that keeps the parity of positions.
inline Tensor distinct_bytes(DType dtype, const Shape& shape) {
  if (dtype != DType::kBool) return distinct_tensor(dtype, shape);
  const Tensor bytes = distinct_tensor(DType::kUInt8, shape);
  Tensor t(dtype, shape);
  std::memcpy(t.raw_data(), bytes.raw_data(), static_cast<std::size_t>(bytes.num_elements()));
  return t;
}

inline ExecOptions exec(int threads, std::int64_t tile_bytes) {
  ExecOptions o;
  o.num_threads = threads;
  o.tile_bytes = tile_bytes;
  return o;
}

// The chunk widths of the tile-boundary matrix: a dtype and the depth dims after the row dim.
struct Width {
  DType dtype;
  Shape depth;
};
inline const std::vector<Width> kMatrixWidths = {
    {DType::kUInt8, {}},     {DType::kUInt16, {}},    {DType::kFloat32, {}},
    {DType::kFloat64, {}},   {DType::kFloat32, {4}},  // 16-byte chunks
    {DType::kUInt8, {3}},    {DType::kInt16, {5}},    {DType::kFloat32, {3}},
    {DType::kFloat32, {32}}, {DType::kFloat64, {40}},  // 320-byte chunks: memcpy per chunk
};

inline std::string describe(const SpaceBatchOp& op, DType dtype, const Shape& shape,
                            const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& paddings_or_crops,
                            const ExecOptions& o) {
  return str_cat(dtype_name(dtype), shape_string(shape), " block ", shape_string(block), " ", op.paddings_or_crops_name,
                 " ", shape_string(paddings_or_crops), " threads ", o.num_threads, " tile_bytes ", o.tile_bytes);
}

// Runs the op on a distinct-valued input and checks it against the formula and the reference.
inline void check_case(const SpaceBatchOp& op, DType dtype, const Shape& shape, const std::vector<std::int64_t>& block,
                       const std::vector<std::int64_t>& paddings_or_crops, const ExecOptions& options) {
  SCOPED_TRACE(describe(op, dtype, shape, block, paddings_or_crops, options));
  const Tensor input = distinct_tensor(dtype, shape);
  const auto m = static_cast<std::int64_t>(block.size());
  const Tensor block_t = i64({m}, block), paddings_or_crops_t = i64({m, 2}, paddings_or_crops);
  Tensor actual;
  const Status status = op.optimized(input, block_t, paddings_or_crops_t, &actual, options);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_TRUE(BitEqual(actual, op.formula(input, block, paddings_or_crops)));
  Tensor expected;
  ASSERT_TRUE(op.reference(input, block_t, paddings_or_crops_t, &expected, {}).ok());
  EXPECT_TRUE(BitEqual(actual, expected));
}

// The kernel on any dtype (the ops register only real number types): a plan without
// collapsing, compared with the formula, with cached and with streaming stores.
inline void check_kernel(const SpaceBatchOp& op, DType dtype, const Shape& shape,
                         const std::vector<std::int64_t>& block, const std::vector<std::int64_t>& paddings_or_crops,
                         const ExecOptions& options) {
  SCOPED_TRACE(describe(op, dtype, shape, block, paddings_or_crops, options));
  const Tensor input = distinct_bytes(dtype, shape);
  const Tensor expected = op.formula(input, block, paddings_or_crops);
  const Shape& space_side = op.to_batch ? shape : expected.shape();
  const Shape& batch_side = op.to_batch ? expected.shape() : shape;
  optimized::space_batch::Plan plan;
  plan.batch = space_side[0];
  for (std::size_t i = 0; i < block.size(); ++i) {
    plan.space.push_back(space_side[i + 1]);
    plan.block.push_back(block[i]);
    plan.start.push_back(paddings_or_crops[2 * i]);
    plan.blocked.push_back(batch_side[i + 1]);
  }
  for (std::size_t d = block.size() + 1; d < shape.size(); ++d) plan.depth *= shape[d];
  // Cached stores whatever the size, then streaming stores for every destination, each into an
  // output holding the complement of every expected byte (a position left unwritten shows;
  // strings start empty).
  for (std::int64_t streaming_min_bytes : {std::numeric_limits<std::int64_t>::max(), std::int64_t{1}}) {
    ExecOptions o = options;
    o.streaming_min_bytes = streaming_min_bytes;
    Tensor actual = Tensor::uninitialized(dtype, expected.shape());
    if (dtype != DType::kString) {
      const auto* want = static_cast<const unsigned char*>(expected.raw_data());
      auto* poison = static_cast<unsigned char*>(actual.raw_data());
      const auto bytes = static_cast<std::size_t>(expected.num_elements()) * dtype_storage_size(dtype);
      for (std::size_t i = 0; i < bytes; ++i) poison[i] = static_cast<unsigned char>(~want[i]);
    }
    op.kernel(plan, input, actual, o);
    EXPECT_TRUE(BitEqual(actual, expected)) << (streaming_min_bytes == 1 ? "streaming stores" : "cached stores");
  }
}

// Small outputs without padding or crop, with one or two block dims: the kernel's one-line
// path (default tile, one thread, cached stores). Every chunk width of the matrix and 32- and
// 64-byte chunks, blocks 1-5 in the group dim and 2-5 in the row dim, batch 1 and 3; with the
// default options and with one and two threads asked (small outputs run on one), through the
// op and through the kernel (whose streaming pass takes the general path on the same cases);
// with the wide loops where the CPU has them, then with the baseline's. Then larger outputs.
inline void check_one_line_outputs_once(const SpaceBatchOp& op) {
  std::vector<Width> widths = kMatrixWidths;
  widths.push_back({DType::kFloat32, {8}});   // 32-byte chunks: wide moves where the CPU has them
  widths.push_back({DType::kFloat32, {16}});  // 64-byte chunks: likewise
  for (const Width& w : widths)
    for (const std::int64_t n : {1, 3})
      for (const int rank : {1, 2})
        for (const std::int64_t b0 : {1, 2, 3, 5})
          for (const std::int64_t b1 : {2, 3, 4, 5}) {
            if (rank == 1 && b0 != 1) continue;
            Shape space = rank == 2 ? Shape{n, 2 * b0, 3 * b1} : Shape{n, 3 * b1};
            Shape batch = rank == 2 ? Shape{n * b0 * b1, 2, 3} : Shape{n * b1, 3};
            for (const std::int64_t d : w.depth) {
              space.push_back(d);
              batch.push_back(d);
            }
            const std::vector<std::int64_t> block = rank == 2 ? std::vector<std::int64_t>{b0, b1} : std::vector{b1};
            const std::vector<std::int64_t> zeros(static_cast<std::size_t>(2 * rank), 0);
            for (const ExecOptions& o : {exec(0, 0), exec(1, 0), exec(2, 0)}) {
              check_case(op, w.dtype, op.to_batch ? space : batch, block, zeros, o);
              check_kernel(op, w.dtype, op.to_batch ? space : batch, block, zeros, o);
            }
          }
}

inline void check_one_line_outputs(const SpaceBatchOp& op) {
  for (const int wide : {-1, 0}) {  // the wide loops where the CPU has them, then the baseline's
    SCOPED_TRACE(wide == 0 ? "baseline moves" : "wide moves where the CPU has them");
    const optimized::row_copy::ScopedWideMovesSetting setting(wide);
    check_one_line_outputs_once(op);
  }
  // Outputs of 256 KiB to 1 MiB, where BatchToSpaceND's line goes phase by phase (blocks of 2
  // and 3 in the group dim), and one just past 1 MiB (the general path). Where the thread rule
  // gives two threads (OpenMP's default waiting: small regions), the plane-shaped ones take
  // the general path on two threads, until the learner picks one.
  const struct {
    DType dtype;
    Shape space;
    std::vector<std::int64_t> block;
  } larger[] = {{DType::kFloat32, {1, 160, 16, 32}, {2, 2}},
                {DType::kFloat32, {2, 96, 24, 16}, {3, 2}},
                {DType::kUInt8, {1, 512, 1024, 2}, {2, 4}},
                {DType::kUInt8, {1, 520, 1024, 2}, {2, 4}}};
  for (const auto& [dtype, space, block] : larger) {
    Shape batch = {space[0] * block[0] * block[1], space[1] / block[0], space[2] / block[1], space[3]};
    for (const ExecOptions& o : {exec(0, 0), exec(1, 0), exec(2, 0)})
      check_case(op, dtype, op.to_batch ? space : batch, block, {0, 0, 0, 0}, o);
  }
}

// The dtypes both ops register (README pre-check 3).
inline const std::vector<DType> kRegisteredDtypes = {
    DType::kUInt8, DType::kUInt16, DType::kUInt32,  DType::kUInt64,   DType::kInt8,    DType::kInt16,
    DType::kInt32, DType::kInt64,  DType::kFloat16, DType::kBFloat16, DType::kFloat32, DType::kFloat64};

// No internal block dim left (M = 0, or only trivial dims): the op returns its input itself and
// requests no memory.
inline void check_identity(const SpaceBatchOp& op) {
  const Tensor input = distinct_tensor(DType::kFloat32, {2, 3, 4});
  ExecOptions no_memory;
  no_memory.memory_limit_bytes = 0;
  for (const Tensor& block : {i32({0}, {}), i32({2}, {1, 1})}) {
    const auto m = block.num_elements();
    Tensor out;
    ASSERT_TRUE(op.optimized(input, block, i32({m, 2}, std::vector<std::int32_t>(2 * m, 0)), &out, no_memory).ok());
    EXPECT_EQ(out.raw_data(), input.raw_data());
    EXPECT_EQ(out.shape(), input.shape());
  }
}

// The op's error on a case, having checked that the output is left untouched and that the
// reference answers the same.
inline Status expect_error(const SpaceBatchOp& op, const Tensor& input, const Tensor& block,
                           const Tensor& paddings_or_crops, ExecOptions o = {}) {
  Tensor out = Tensor::from_values<float>({1}, {42.0f});
  const void* before = out.raw_data();
  const Status status = op.optimized(input, block, paddings_or_crops, &out, o);
  EXPECT_EQ(out.raw_data(), before);
  EXPECT_EQ(out.shape(), (Shape{1}));
  Tensor reference_out;
  EXPECT_EQ(status, op.reference(input, block, paddings_or_crops, &reference_out, o)) << "the reference disagrees";
  return status;
}

}  // namespace opconform::testing
