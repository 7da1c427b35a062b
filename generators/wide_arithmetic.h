// 128-bit arithmetic for the generators' edge cases (private to generators/): sums and products
// of int64 values computed exactly, to aim at the int64 limits the checks guard.
#pragma once

#include <cstdint>
#include <vector>

namespace opconform::generators {

using I128 = __int128;
inline constexpr I128 kTwoPow63 = static_cast<I128>(1) << 63;

// The exact product of `values` (1 for none); 0 as soon as one is 0, and 4 * 2^63 (outside
// int64, positive) when the product leaves I128.
inline I128 exact_product(const std::vector<std::int64_t>& values) {
  I128 p = 1;
  for (std::int64_t v : values) {
    if (v == 0) return 0;
    if (__builtin_mul_overflow(p, static_cast<I128>(v), &p)) return kTwoPow63 * 4;
  }
  return p;
}

}  // namespace opconform::generators
