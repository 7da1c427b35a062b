#include "opconform/conformance/floats.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>

namespace opconform::conformance {

namespace {

std::uint64_t low_bits(int n) { return n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << n) - 1; }

std::uint64_t sign_bit(FloatFormat f) { return std::uint64_t{1} << (f.width() - 1); }
std::uint64_t exponent_mask(FloatFormat f) { return low_bits(f.exponent_bits) << f.fraction_bits; }

}  // namespace

std::uint64_t round_to_format(double value, FloatFormat f) {
  const auto d = std::bit_cast<std::uint64_t>(value);
  const std::uint64_t sign = (d >> 63) ? sign_bit(f) : 0;
  if (std::isnan(value)) return sign | canonical_nan_bits(f);
  if (std::isinf(value)) return sign | exponent_mask(f);
  if (value == 0) return sign;

  // value = significand * 2^exponent exactly.
  const int biased = static_cast<int>((d >> 52) & 0x7ff);
  std::uint64_t significand = d & low_bits(52);
  int exponent = -1074;
  if (biased != 0) {
    significand |= std::uint64_t{1} << 52;
    exponent = biased - 1075;
  }
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  const int min_quantum = 1 - bias - f.fraction_bits;  // exponent of the smallest subnormal
  const int leading = exponent + (63 - std::countl_zero(significand));
  // The target keeps fraction_bits + 1 bits below the leading one, or fewer when subnormal.
  int quantum = std::max(leading - f.fraction_bits, min_quantum);
  const int shift = quantum - exponent;
  std::uint64_t rounded = 0;
  if (shift <= 0) {
    rounded = significand << -shift;  // exact; only when the format is at least as precise
  } else if (shift <= 64) {
    rounded = shift == 64 ? 0 : significand >> shift;
    const std::uint64_t remainder = significand & low_bits(shift);
    const std::uint64_t half = std::uint64_t{1} << (shift - 1);
    if (remainder > half || (remainder == half && (rounded & 1))) ++rounded;
  }  // shift > 64: below half the smallest subnormal, rounds to zero
  if (rounded == (std::uint64_t{1} << (f.fraction_bits + 1))) {
    rounded >>= 1;
    ++quantum;
  }
  if (rounded < (std::uint64_t{1} << f.fraction_bits)) return sign | rounded;  // subnormal or 0
  const std::int64_t biased_out = std::int64_t{quantum} + bias + f.fraction_bits;
  if (biased_out >= static_cast<std::int64_t>(low_bits(f.exponent_bits)))
    return sign | exponent_mask(f);  // overflow to infinity
  return sign | (static_cast<std::uint64_t>(biased_out) << f.fraction_bits) | (rounded & low_bits(f.fraction_bits));
}

double format_to_double(std::uint64_t bits, FloatFormat f) {
  const bool negative = (bits & sign_bit(f)) != 0;
  const std::uint64_t exponent = (bits & exponent_mask(f)) >> f.fraction_bits;
  const std::uint64_t fraction = bits & low_bits(f.fraction_bits);
  const int bias = (1 << (f.exponent_bits - 1)) - 1;
  double magnitude = 0;
  if (exponent == low_bits(f.exponent_bits)) {
    magnitude = fraction ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  } else if (exponent == 0) {
    magnitude = std::ldexp(static_cast<double>(fraction), 1 - bias - f.fraction_bits);
  } else {
    magnitude = std::ldexp(static_cast<double>(fraction | (std::uint64_t{1} << f.fraction_bits)),
                           static_cast<int>(exponent) - bias - f.fraction_bits);
  }
  return negative ? -magnitude : magnitude;
}

bool is_nan_bits(std::uint64_t bits, FloatFormat f) {
  return (bits & exponent_mask(f)) == exponent_mask(f) && (bits & low_bits(f.fraction_bits)) != 0;
}

bool is_inf_bits(std::uint64_t bits, FloatFormat f) {
  return (bits & ~sign_bit(f) & low_bits(f.width())) == exponent_mask(f);
}

std::uint64_t canonical_nan_bits(FloatFormat f) {
  return exponent_mask(f) | (std::uint64_t{1} << (f.fraction_bits - 1));
}

std::string shortest_decimal(std::uint64_t bits, FloatFormat f) {
  const double value = format_to_double(bits, f);
  if (value == 0) return std::signbit(value) ? "-0.0" : "0";
  char buffer[64];
  for (int precision = 1; precision <= 17; ++precision) {
    auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::general, precision);
    double parsed = 0;
    std::from_chars(buffer, end, parsed);
    if (round_to_format(parsed, f) != bits) continue;
    // `parsed` has at most `precision` digits; its shortest form also picks fixed or
    // scientific notation, whichever is shorter ("100", not "1e+02").
    end = std::to_chars(buffer, buffer + sizeof buffer, parsed).ptr;
    return std::string(buffer, end);
  }
  return std::string(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

std::string float_spelling(std::uint64_t bits, FloatFormat f) {
  if (is_nan_bits(bits, f)) {
    if (bits == canonical_nan_bits(f)) return "nan";
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex = "0x";
    for (int shift = f.width() - 4; shift >= 0; shift -= 4) hex += kHex[(bits >> shift) & 0xf];
    return hex;
  }
  if (is_inf_bits(bits, f)) return (bits >> (f.width() - 1)) ? "-inf" : "inf";
  return shortest_decimal(bits, f);
}

}  // namespace opconform::conformance
