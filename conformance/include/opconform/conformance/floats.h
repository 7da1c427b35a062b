// SPDX-License-Identifier: Apache-2.0
// Bit-exact conversions between doubles and the binary floating-point dtypes (float16,
// bfloat16, float32, float64), as corpus/README.md ("Elements") requires: a JSON number is
// read as a double and rounded to the dtype to nearest, ties to even; a writer emits the
// shortest decimal that comes back to the same bits along that path.
//
//   std::uint64_t bits = round_to_format(0.1, kFloat16);       // 0x2e66
//   std::string text = shortest_decimal(bits, kFloat16);       // "0.1"
#pragma once

#include <cstdint>
#include <string>

namespace opconform::conformance {

struct FloatFormat {
  int exponent_bits;
  int fraction_bits;
  int width() const { return 1 + exponent_bits + fraction_bits; }
};
inline constexpr FloatFormat kFloat16{5, 10};
inline constexpr FloatFormat kBFloat16{8, 7};
inline constexpr FloatFormat kFloat32{8, 23};
inline constexpr FloatFormat kFloat64{11, 52};

// `value` rounded to the format (nearest, ties to even; too large: ±inf). NaN gives the
// canonical quiet NaN with the sign of `value`.
std::uint64_t round_to_format(double value, FloatFormat format);

// The exact value of finite or infinite `bits`; NaN bits give a quiet double NaN.
double format_to_double(std::uint64_t bits, FloatFormat format);

bool is_nan_bits(std::uint64_t bits, FloatFormat format);
bool is_inf_bits(std::uint64_t bits, FloatFormat format);

// The positive quiet NaN: 0x7e00, 0x7fc0, 0x7fc00000, 0x7ff8000000000000.
std::uint64_t canonical_nan_bits(FloatFormat format);

// The shortest decimal (as a JSON number) whose double rounds back to exactly `bits`;
// "-0.0" for negative zero. Precondition: `bits` is finite.
std::string shortest_decimal(std::uint64_t bits, FloatFormat format);

// The vector format's spelling of `bits`, without quotes: "nan" for the canonical quiet NaN,
// "0x" + the bits in lowercase hex (width / 4 digits) for any other NaN, "inf", "-inf", else
// shortest_decimal.
std::string float_spelling(std::uint64_t bits, FloatFormat format);

}  // namespace opconform::conformance
