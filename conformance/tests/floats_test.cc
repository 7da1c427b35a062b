// Round-to-nearest-even conversions and shortest decimals (conformance/floats.h).
#include "opconform/conformance/floats.h"

#include <gtest/gtest.h>

#include <bit>
#include <charconv>
#include <cmath>
#include <limits>
#include <random>

namespace opconform::conformance {
namespace {

double parse(const std::string& text) {
  double v = 0;
  std::from_chars(text.data(), text.data() + text.size(), v);
  return v;
}

// Every finite float16 and bfloat16 pattern: exact value and shortest decimal come back.
void check_all_patterns(FloatFormat f) {
  for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << f.width()); ++bits) {
    if (is_nan_bits(bits, f)) continue;
    ASSERT_EQ(round_to_format(format_to_double(bits, f), f), bits) << std::hex << bits;
    if (is_inf_bits(bits, f)) continue;
    ASSERT_EQ(round_to_format(parse(shortest_decimal(bits, f)), f), bits)
        << std::hex << bits << " " << shortest_decimal(bits, f);
  }
}

TEST(Floats, EveryFloat16AndBFloat16PatternRoundTrips) {
  check_all_patterns(kFloat16);
  check_all_patterns(kBFloat16);
}

TEST(Floats, Float16RoundsToNearestEven) {
  EXPECT_EQ(round_to_format(1.0 + std::ldexp(1, -11), kFloat16), 0x3c00u);      // tie -> even
  EXPECT_EQ(round_to_format(1.0 + 3 * std::ldexp(1, -11), kFloat16), 0x3c02u);  // tie -> even
  EXPECT_EQ(round_to_format(1.0 + std::ldexp(1, -11) + 1e-12, kFloat16), 0x3c01u);
  EXPECT_EQ(round_to_format(0.1, kFloat16), 0x2e66u);
  EXPECT_EQ(round_to_format(65504, kFloat16), 0x7bffu);
  EXPECT_EQ(round_to_format(65519.99, kFloat16), 0x7bffu);
  EXPECT_EQ(round_to_format(65520, kFloat16), 0x7c00u);  // tie with 65536 -> overflow to inf
  EXPECT_EQ(round_to_format(-1e300, kFloat16), 0xfc00u);
  // Subnormals: 2^-24 is the smallest; half of it ties to zero, a bit more rounds up.
  EXPECT_EQ(round_to_format(std::ldexp(1, -24), kFloat16), 0x0001u);
  EXPECT_EQ(round_to_format(std::ldexp(1, -25), kFloat16), 0x0000u);
  EXPECT_EQ(round_to_format(-std::ldexp(1, -25), kFloat16), 0x8000u);
  EXPECT_EQ(round_to_format(std::ldexp(1.0000001, -25), kFloat16), 0x0001u);
  EXPECT_EQ(round_to_format(std::ldexp(3, -25), kFloat16), 0x0002u);  // 1.5 quanta, tie -> 2
  EXPECT_EQ(round_to_format(std::ldexp(1023, -24), kFloat16), 0x03ffu);
  EXPECT_EQ(round_to_format(std::ldexp(2047, -25), kFloat16), 0x0400u);  // rounds into normals
  EXPECT_EQ(round_to_format(std::numeric_limits<double>::denorm_min(), kFloat16), 0x0000u);
  EXPECT_EQ(round_to_format(-0.0, kFloat16), 0x8000u);
}

TEST(Floats, BFloat16RoundsToNearestEven) {
  EXPECT_EQ(round_to_format(0.1, kBFloat16), 0x3dcdu);
  EXPECT_EQ(round_to_format(1.0 + std::ldexp(1, -8), kBFloat16), 0x3f80u);  // tie -> even
  EXPECT_EQ(round_to_format(1e39, kBFloat16), 0x7f80u);
  EXPECT_EQ(round_to_format(std::ldexp(1, -133), kBFloat16), 0x0001u);  // smallest subnormal
}

TEST(Floats, Float32AgreesWithTheHardwareConversion) {
  std::mt19937_64 random(42);
  for (int i = 0; i < 200000; ++i) {
    double v = std::bit_cast<double>(random());
    if (std::isnan(v) || std::fabs(v) > 3.4e38) continue;
    ASSERT_EQ(round_to_format(v, kFloat32), std::bit_cast<std::uint32_t>(static_cast<float>(v))) << v;
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(random()));
    if (std::isnan(f)) continue;
    const auto bits = std::bit_cast<std::uint32_t>(f);
    ASSERT_EQ(round_to_format(format_to_double(bits, kFloat32), kFloat32), bits);
    if (!std::isinf(f)) {
      ASSERT_EQ(round_to_format(parse(shortest_decimal(bits, kFloat32)), kFloat32), bits);
    }
  }
}

TEST(Floats, Float64IsTheIdentity) {
  std::mt19937_64 random(7);
  for (int i = 0; i < 100000; ++i) {
    const std::uint64_t bits = random();
    const double v = std::bit_cast<double>(bits);
    if (std::isnan(v)) continue;
    ASSERT_EQ(round_to_format(v, kFloat64), bits);
    if (!std::isinf(v)) {
      ASSERT_EQ(std::bit_cast<std::uint64_t>(parse(shortest_decimal(bits, kFloat64))), bits);
    }
  }
}

TEST(Floats, ShortestDecimals) {
  EXPECT_EQ(shortest_decimal(0x3dcccccd, kFloat32), "0.1");
  EXPECT_EQ(shortest_decimal(std::bit_cast<std::uint64_t>(0.1), kFloat64), "0.1");
  EXPECT_EQ(shortest_decimal(0x2e66, kFloat16), "0.1");
  EXPECT_EQ(shortest_decimal(0x42c80000, kFloat32), "100");
  EXPECT_EQ(shortest_decimal(0x80000000, kFloat32), "-0.0");
  EXPECT_EQ(shortest_decimal(0, kFloat32), "0");
  EXPECT_EQ(shortest_decimal(0x0001, kFloat16), "6e-08");
  EXPECT_EQ(shortest_decimal(0x7bff, kFloat16), "65500");
  EXPECT_EQ(shortest_decimal(0x00000001, kFloat32), "1e-45");
}

TEST(Floats, SpecialPatterns) {
  EXPECT_EQ(canonical_nan_bits(kFloat32), 0x7fc00000u);
  EXPECT_EQ(canonical_nan_bits(kFloat64), 0x7ff8000000000000u);
  EXPECT_EQ(canonical_nan_bits(kFloat16), 0x7e00u);
  EXPECT_EQ(canonical_nan_bits(kBFloat16), 0x7fc0u);
  EXPECT_TRUE(is_nan_bits(0xffc00001, kFloat32));
  EXPECT_TRUE(is_nan_bits(0x7f800001, kFloat32));
  EXPECT_FALSE(is_nan_bits(0x7f800000, kFloat32));
  EXPECT_TRUE(is_inf_bits(0xff800000, kFloat32));
  EXPECT_TRUE(is_inf_bits(0xfc00, kFloat16));
  EXPECT_EQ(round_to_format(-std::numeric_limits<double>::quiet_NaN(), kFloat16), 0xfe00u);
}

}  // namespace
}  // namespace opconform::conformance
