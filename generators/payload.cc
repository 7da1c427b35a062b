#include "opconform/generators/payload.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace opconform::generators {
namespace {

// Special float bits: -0.0, +inf, -inf, quiet NaN, negative NaN with payload 1, signalling
// NaN with payload 2, the largest finite value, the smallest subnormal.
constexpr std::array<std::uint32_t, kSpecialCodes> kFloat32Specials = {
    0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7fa00002u, 0x7f7fffffu, 0x00000001u};
constexpr std::array<std::uint64_t, kSpecialCodes> kFloat64Specials = {
    0x8000000000000000u, 0x7ff0000000000000u, 0xfff0000000000000u, 0x7ff8000000000000u,
    0xfff8000000000001u, 0x7ff4000000000002u, 0x7fefffffffffffffu, 0x0000000000000001u};
constexpr std::array<std::uint16_t, kSpecialCodes> kFloat16Specials = {0x8000, 0x7c00, 0xfc00, 0x7e00,
                                                                       0xfe01, 0x7d02, 0x7bff, 0x0001};
constexpr std::array<std::uint16_t, kSpecialCodes> kBFloat16Specials = {0x8000, 0x7f80, 0xff80, 0x7fc0,
                                                                        0xffc1, 0x7fa2, 0x7f7f, 0x0001};

// The bits of the small integer v in a binary16/bfloat16-like format with `fraction` bits.
// Precondition: 1 <= v <= 2^(fraction + 1).
std::uint16_t small_integer_bits(std::uint64_t v, int fraction, int bias) {
  const int e = std::bit_width(v) - 1;
  const std::uint64_t mantissa =
      e <= fraction ? (v << (fraction - e)) & ((1u << fraction) - 1) : (v >> (e - fraction)) & ((1u << fraction) - 1);
  return static_cast<std::uint16_t>(((e + bias) << fraction) | mantissa);
}

// Regular (non-special) values: distinct nonzero values for j = 0, 1, 2, ...
std::uint16_t float16_regular(std::uint64_t j) {
  if (j < 2048) return small_integer_bits(j + 1, 10, 15);
  return static_cast<std::uint16_t>(0x6800 + std::min<std::uint64_t>(j - 2047, 0x13ff));
}
std::uint16_t bfloat16_regular(std::uint64_t j) {
  if (j < 256) return small_integer_bits(j + 1, 7, 127);
  return static_cast<std::uint16_t>(0x4380 + std::min<std::uint64_t>(j - 255, 0x3bff));
}

// Signed integers: specials min..min+3 and max-3..max; regular 1 .. max-4, then -1 .. -(max-4).
template <class T>
T signed_value(std::uint64_t code) {
  using L = std::numeric_limits<T>;
  if (code < kSpecialCodes) {
    return code < 4 ? static_cast<T>(L::min() + static_cast<T>(code))
                    : static_cast<T>(L::max() - static_cast<T>(code - 4));
  }
  const std::uint64_t half = static_cast<std::uint64_t>(L::max()) - 4;
  const std::uint64_t j = (code - kSpecialCodes) % (2 * half);
  if (j < half) return static_cast<T>(j + 1);
  return static_cast<T>(-static_cast<std::int64_t>(j - half) - 1);
}

// Unsigned integers: specials max-7..max; regular 1 .. max-8.
template <class T>
T unsigned_value(std::uint64_t code) {
  const auto max = static_cast<std::uint64_t>(std::numeric_limits<T>::max());
  if (code < kSpecialCodes) return static_cast<T>(max - code);
  return static_cast<T>((code - kSpecialCodes) % (max - 8) + 1);
}

float float32_value(std::uint64_t code) {
  if (code < kSpecialCodes) return std::bit_cast<float>(kFloat32Specials[code]);
  return static_cast<float>(code - kSpecialCodes + 1);
}
double float64_value(std::uint64_t code) {
  if (code < kSpecialCodes) return std::bit_cast<double>(kFloat64Specials[code]);
  return static_cast<double>(code - kSpecialCodes + 1);
}

std::string string_value(std::uint64_t code) {
  static const std::array<std::string, kSpecialCodes> specials = {
      std::string("\0", 1),
      std::string("a\0b", 3),
      std::string("\xff\xfe"),  // not UTF-8
      std::string("\0\0", 2),
      std::string("\xc3\xa9"),  // U+00E9
      std::string("a string longer than the small-string buffer, with a NUL \0 inside", 65),
      std::string("\n\"\\"),
      std::string(" ")};
  if (code < kSpecialCodes) return specials[code];
  return "s" + std::to_string(code - kSpecialCodes);
}

template <class T>
T value_of(std::uint64_t code) {
  if constexpr (std::is_same_v<T, float>) {
    return float32_value(code);
  } else if constexpr (std::is_same_v<T, double>) {
    return float64_value(code);
  } else if constexpr (std::is_same_v<T, float16>) {
    return float16{code < kSpecialCodes ? kFloat16Specials[code] : float16_regular(code - kSpecialCodes)};
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    return bfloat16{code < kSpecialCodes ? kBFloat16Specials[code] : bfloat16_regular(code - kSpecialCodes)};
  } else if constexpr (std::is_same_v<T, bool>) {
    return code % 2 == 1;
  } else if constexpr (std::is_same_v<T, std::complex<float>>) {
    // Pairs of float specials (first parts distinct), then (k, -k).
    if (code < kSpecialCodes) return {float32_value(code), float32_value((code + 3) % kSpecialCodes)};
    const float k = static_cast<float>(code - kSpecialCodes + 1);
    return {k, -k};
  } else if constexpr (std::is_same_v<T, std::complex<double>>) {
    if (code < kSpecialCodes) return {float64_value(code), float64_value((code + 3) % kSpecialCodes)};
    const double k = static_cast<double>(code - kSpecialCodes + 1);
    return {k, -k};
  } else if constexpr (std::is_same_v<T, std::string>) {
    return string_value(code);
  } else if constexpr (std::is_same_v<T, qint8>) {
    return qint8{signed_value<std::int8_t>(code)};
  } else if constexpr (std::is_same_v<T, quint8>) {
    return quint8{unsigned_value<std::uint8_t>(code)};
  } else if constexpr (std::is_same_v<T, qint32>) {
    return qint32{signed_value<std::int32_t>(code)};
  } else if constexpr (std::is_signed_v<T>) {
    return signed_value<T>(code);
  } else {
    return unsigned_value<T>(code);
  }
}

}  // namespace

void set_element_from_code(Tensor& t, std::int64_t index, std::uint64_t code) {
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    t.data<T>()[index] = value_of<T>(code);
  });
}

Tensor payload_tensor(DType dtype, Shape shape, std::uint64_t first_code, std::uint32_t seed) {
  Tensor t(dtype, std::move(shape));
  std::vector<std::uint64_t> codes(static_cast<std::size_t>(t.num_elements()));
  std::iota(codes.begin(), codes.end(), first_code);
  if (seed != 0) {  // Fisher-Yates with a fixed engine: the same seed gives the same payload
    std::mt19937_64 engine(seed);
    for (std::size_t i = codes.size(); i > 1; --i) std::swap(codes[i - 1], codes[engine() % i]);
  }
  for (std::size_t i = 0; i < codes.size(); ++i) set_element_from_code(t, static_cast<std::int64_t>(i), codes[i]);
  return t;
}

rc::Gen<Tensor> gen_payload(DType dtype, Shape shape) {
  return rc::gen::exec([dtype, shape] {
    const bool specials = *rc::gen::weightedElement<bool>({{3, false}, {1, true}});
    const auto seed = *rc::gen::inRange<std::uint32_t>(0, 1u << 30);
    return payload_tensor(dtype, shape, specials ? 0 : kSpecialCodes, seed);
  });
}

rc::Gen<std::vector<Tensor>> gen_payloads(DType dtype, std::vector<Shape> shapes) {
  return rc::gen::exec([dtype, shapes] {
    std::int64_t total = 0;
    for (const Shape& s : shapes) total += checked_num_elements(s);
    const Tensor all = *gen_payload(dtype, {total});
    std::vector<Tensor> members;
    std::int64_t next = 0;
    for (const Shape& s : shapes) {
      Tensor t(dtype, s);
      visit_dtype(dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        std::copy_n(all.data<T>() + next, t.num_elements(), t.data<T>());
      });
      next += t.num_elements();
      members.push_back(std::move(t));
    }
    return members;
  });
}

}  // namespace opconform::generators
