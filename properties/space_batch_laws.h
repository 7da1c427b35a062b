// Test-side helpers for the SpaceToBatchND/BatchToSpaceND laws: the collapsed form of a case,
// and an independent 4-D transpose, space_to_depth and depth_to_space on raw element bytes
// (TensorFlow's NHWC definitions), written here so the laws do not lean on any kernel.
#pragma once

#include <array>
#include <cstring>
#include <optional>

#include "opconform/generators/generated_case.h"

namespace opconform::properties {

// c with its leading trivial block dims merged into the batch and its trailing ones (and the
// remaining dims) merged into one remaining dim: [B * prod(lead)] + internal + [prod(rest)].
// Precondition: a valid case with at least one internal block dim.
inline conformance::Case collapsed_case(const conformance::Case& c) {
  const char* paddings_or_crops_name = c.op == Op::kSpaceToBatchND ? "paddings" : "crops";
  const Tensor& input = generators::input_tensor(c, "input");
  const Tensor& block_t = generators::input_tensor(c, "block_shape");
  const Tensor& paddings_or_crops_t = generators::input_tensor(c, paddings_or_crops_name);
  const std::vector<std::int64_t> block = generators::index_values(block_t);
  const std::vector<std::int64_t> paddings_or_crops = generators::index_values(paddings_or_crops_t);
  const int m = static_cast<int>(block.size());
  auto trivial = [&](int i) {
    return block[i] == 1 && paddings_or_crops[2 * i] == 0 && paddings_or_crops[2 * i + 1] == 0;
  };
  int first = 0, last = m - 1;
  while (first < m && trivial(first)) ++first;
  while (last >= first && trivial(last)) --last;
  Shape shape = {1};
  for (int d = 0; d <= first; ++d) shape[0] *= input.dim(d);
  std::vector<std::int64_t> new_block, new_paddings_or_crops;
  for (int i = first; i <= last; ++i) {
    shape.push_back(input.dim(1 + i));
    new_block.push_back(block[i]);
    new_paddings_or_crops.insert(new_paddings_or_crops.end(), {paddings_or_crops[2 * i], paddings_or_crops[2 * i + 1]});
  }
  std::int64_t rest = 1;
  for (int d = 2 + last; d < input.rank(); ++d) rest *= input.dim(d);
  shape.push_back(rest);
  conformance::Case out = c;
  Tensor flat(input.dtype(), shape);
  std::memcpy(flat.raw_data(), input.raw_data(),
              static_cast<std::size_t>(input.num_elements()) * dtype_storage_size(input.dtype()));
  out.inputs["input"] = flat;
  const auto size = static_cast<std::int64_t>(new_block.size());
  out.inputs["block_shape"] = generators::index_tensor(block_t.dtype(), {size}, new_block);
  out.inputs[paddings_or_crops_name] =
      generators::index_tensor(paddings_or_crops_t.dtype(), {size, 2}, new_paddings_or_crops);
  return out;
}

// out.shape[i] = t.shape[perm[i]]. Precondition: rank 4, a trivially copyable dtype.
inline Tensor transpose4(const Tensor& t, std::array<int, 4> perm) {
  const Shape& s = t.shape();
  Tensor out(t.dtype(), {s[perm[0]], s[perm[1]], s[perm[2]], s[perm[3]]});
  const std::size_t size = dtype_storage_size(t.dtype());
  const auto* in = static_cast<const char*>(t.raw_data());
  auto* o = static_cast<char*>(out.raw_data());
  std::array<std::int64_t, 4> i{};
  std::int64_t k = 0;
  for (i[0] = 0; i[0] < out.dim(0); ++i[0])
    for (i[1] = 0; i[1] < out.dim(1); ++i[1])
      for (i[2] = 0; i[2] < out.dim(2); ++i[2])
        for (i[3] = 0; i[3] < out.dim(3); ++i[3], ++k) {
          std::array<std::int64_t, 4> src{};
          for (int d = 0; d < 4; ++d) src[perm[d]] = i[d];
          const std::int64_t flat = ((src[0] * s[1] + src[1]) * s[2] + src[2]) * s[3] + src[3];
          std::memcpy(o + k * size, in + flat * size, size);
        }
  return out;
}

// NHWC space_to_depth: [n, h, w, c] -> [n, h/b, w/b, b*b*c],
// out[n, i, j, (bi*b + bj)*c + cc] = in[n, i*b + bi, j*b + bj, cc]. depth_to_space inverts it.
inline Tensor space_to_depth(const Tensor& t, std::int64_t b, bool inverse = false) {
  const Shape& s = t.shape();
  const Shape big = inverse ? Shape{s[0], s[1] * b, s[2] * b, s[3] / (b * b)} : s;
  const Shape small = inverse ? s : Shape{s[0], s[1] / b, s[2] / b, s[3] * b * b};
  Tensor out(t.dtype(), inverse ? big : small);
  const std::size_t size = dtype_storage_size(t.dtype());
  const auto* in = static_cast<const char*>(t.raw_data());
  auto* o = static_cast<char*>(out.raw_data());
  const std::int64_t c = big[3];
  for (std::int64_t n = 0; n < small[0]; ++n)
    for (std::int64_t i = 0; i < small[1]; ++i)
      for (std::int64_t j = 0; j < small[2]; ++j)
        for (std::int64_t bi = 0; bi < b; ++bi)
          for (std::int64_t bj = 0; bj < b; ++bj)
            for (std::int64_t cc = 0; cc < c; ++cc) {
              const std::int64_t at_small = ((n * small[1] + i) * small[2] + j) * small[3] + (bi * b + bj) * c + cc;
              const std::int64_t at_big = ((n * big[1] + i * b + bi) * big[2] + j * b + bj) * big[3] + cc;
              if (inverse)
                std::memcpy(o + at_big * size, in + at_small * size, size);
              else
                std::memcpy(o + at_small * size, in + at_big * size, size);
            }
  return out;
}

}  // namespace opconform::properties
