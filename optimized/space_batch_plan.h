// Private helper of optimized SpaceToBatchND and BatchToSpaceND (nothing else includes it,
// except their tests): the checks both ops share and the collapsed plan they hand to the
// data-movement kernel (space_batch_movers.h).
//
// After validation and collapsing (docs/contract/space_to_batch_nd.md, "Collapsing") both
// ops move data between two views of the same K internal block dims:
//   space side  [batch] + space_0..space_{K-1} + [depth]
//   batch side  [P * batch] + blocked_0..blocked_{K-1} + [depth],   P = prod(block_i)
// with blocked_i * block_i = start_i + space_i + end_i (end_i >= 0). The batch-side element
// (k*batch + n, p, d), k unravelled row-major into o_0..o_{K-1}, is the space-side element
// (n, p_i*block_i + o_i - start_i, d) when every coordinate lies inside the space side:
// SpaceToBatchND writes the batch side (zero outside; start = pad_start) and BatchToSpaceND
// writes the space side (start = crop_start, cropped positions are never read).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>

#include "opconform/exec.h"
#include "opconform/status.h"
#include "opconform/tensor.h"

namespace opconform::optimized::space_batch {

// README "Checks that come before every op's own checks": the index attrs (block_shape and
// paddings/crops must be int32 or int64), then kernel registration of the input's dtype.
// `paddings_or_crops_attr` is "Tpaddings" or "Tcrops".
Status check_signature(const char* op_name, const char* paddings_or_crops_attr, const Tensor& input,
                       const Tensor& block_shape, const Tensor& paddings_or_crops);

// Checks 1-3: block_shape is a vector [M], the input's rank is at least M + 1 and
// `paddings_or_crops` has shape [M, 2]. `paddings_or_crops_name` is "paddings" or "crops".
Status check_ranks(const Tensor& input, const Tensor& block_shape, const Tensor& paddings_or_crops,
                   const char* paddings_or_crops_name);

// The collapsing rule: the leading run of block dims with b_i = 1 and a zero pair [start, end]
// merges into the batch, then the trailing run with the same property merges into the
// remaining dims (the depth). block is [M] and paddings_or_crops [M, 2] (int32/int64, after
// check_ranks()): [start_0, end_0, start_1, ...].
struct BlockDimRuns {
  int prefix = 0;    // block dims [0, prefix) merge into the batch
  int suffix = 0;    // block dims [M - suffix, M) merge into the remaining dims
  int internal = 0;  // M - prefix - suffix
};
BlockDimRuns collapse_trivial_block_dims(const Tensor& block, const Tensor& paddings_or_crops);

// The most block dims left after collapsing (TensorFlow CPU).
inline constexpr int kMaxInternalBlockDims = 4;

// The most block dims a plan may hold: the ops' plans hold at most kMaxInternalBlockDims, the
// kernel also runs uncollapsed ones (its tests hand it some).
inline constexpr int kMaxPlanDims = 8;

// One value per block dim of a plan, held inline: a plan costs no heap allocation. Only the
// first size() slots are ever written or read (copies included), so nothing is zeroed: zeroing
// a plan's four Dims and copying them whole took about 10 of the 87 ns that SpaceToBatchND's
// data movement took at 4 KiB ([1,8,8,16] b[2,2], plan included, standalone).
class Dims {
 public:
  Dims() = default;
  Dims(const Dims& other) : size_(other.size_) { std::copy_n(other.values_.data(), size_, values_.data()); }
  Dims& operator=(const Dims& other) {
    size_ = other.size_;
    std::copy_n(other.values_.data(), size_, values_.data());
    return *this;
  }
  void push_back(std::int64_t v) {
    if (size_ == values_.size()) throw std::length_error("space_batch::Dims: more than kMaxPlanDims dims");
    values_[size_++] = v;
  }
  std::size_t size() const { return size_; }
  std::int64_t operator[](std::size_t i) const { return values_[i]; }
  const std::int64_t* begin() const { return values_.data(); }
  const std::int64_t* end() const { return values_.data() + size_; }

 private:
  std::array<std::int64_t, kMaxPlanDims> values_;
  std::size_t size_ = 0;
};

// Check 6: at most kMaxInternalBlockDims internal block dims are left after collapsing.
Status check_internal_block_dims(int internal);

// The collapsed problem. Preconditions (established by the ops' validation): K >= 1,
// block_i >= 1, start_i >= 0, blocked_i * block_i >= start_i + space_i, all sizes >= 0 and
// both sides' element counts fit in int64.
struct Plan {
  std::int64_t batch = 1;
  Dims space;
  Dims block;
  Dims start;
  Dims blocked;
  std::int64_t depth = 1;
};

// The output shape, built dim by dim with ShapeBuilder::add_dim's checks and messages, in one
// allocation (ShapeBuilder grows its vector dim by dim).
class OutputShape {
 public:
  explicit OutputShape(int rank) { dims_.reserve(static_cast<std::size_t>(rank)); }
  // Inline: the success path is a few compares; the errors are built out of line.
  Status add_dim(std::int64_t size) {
    const std::int64_t product = multiply_without_overflow(num_elements_, size);
    if (size < 0 || static_cast<int>(dims_.size()) >= kMaxDims || product < 0) return add_dim_error(size);
    dims_.push_back(size);
    num_elements_ = product;
    return Status();
  }
  const Shape& dims() const { return dims_; }
  Shape& mutable_dims() { return dims_; }

 private:
  Status add_dim_error(std::int64_t size) const;
  Shape dims_;
  std::int64_t num_elements_ = 1;
};

// The output dims the collapsed prefix block dims keep (input dims 1..prefix), added to
// `shape` and merged into plan->batch.
Status add_leading_dims(const Tensor& input, int prefix, OutputShape* shape, Plan* plan);

// The input dims from `first` on (the collapsed suffix block dims and the remaining dims), added
// to `shape` and merged into plan->depth.
Status add_trailing_dims(const Tensor& input, int first, OutputShape* shape, Plan* plan);

// The memory check for an output of `dtype` and `*dims`, then its uninitialised allocation,
// which takes *dims (no copy; *dims is intact on an error); an allocation the limit allowed but
// the allocator refused answers RESOURCE_EXHAUSTED too. An optional, not a Tensor: a
// default-constructed Tensor costs a heap allocation of its own.
Status allocate_output(DType dtype, Shape* dims, const ExecOptions& options, std::optional<Tensor>* output);

}  // namespace opconform::optimized::space_batch
