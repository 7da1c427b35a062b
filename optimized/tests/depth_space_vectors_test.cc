// The SpaceToDepth and DepthToSpace conformance vectors (corpus/vectors/space_to_depth/,
// depth_to_space/, written by corpus/tools/space_to_depth_vectors.py) replayed against both
// layers, before the vector reader knows these ops: two independent derivations (the Python
// formula and TF's literals there, the kernels here) must agree on every outcome, code and
// message included. Reads the JSON itself (nlohmann-json), only the encodings those vectors
// use: numbers for floats holding exact small values, decimal strings for big int64s.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <type_traits>
#include <vector>

#include "depth_space_test_util.h"
#include "opconform/optimized/depth_to_space.h"
#include "opconform/optimized/space_to_depth.h"
#include "opconform/reference/depth_to_space.h"
#include "opconform/reference/space_to_depth.h"

namespace opconform {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using testing::BitEqual;

// corpus/vectors, found above the working directory or the executable (ctest runs in the
// build tree, inside the source tree).
fs::path vectors_dir() {
  std::error_code ec;
  for (fs::path p : {fs::current_path(ec), fs::read_symlink("/proc/self/exe", ec).parent_path()}) {
    for (; !p.empty(); p = p.parent_path()) {
      if (fs::is_directory(p / "corpus" / "vectors" / "space_to_depth")) return p / "corpus" / "vectors";
      if (p == p.root_path()) break;
    }
  }
  return {};
}

std::int64_t int64_of(const json& j) {
  return j.is_string() ? std::stoll(j.get<std::string>()) : j.get<std::int64_t>();
}

// float -> float16/bfloat16 bits for values those formats hold exactly (the vectors' small
// integers); anything else fails the case.
bool half_bits(float f, std::uint16_t* bits) {
  if (f == 0) {
    *bits = std::signbit(f) ? 0x8000 : 0;
    return true;
  }
  int e = 0;
  const float m = std::frexp(std::fabs(f), &e);  // f = m * 2^e, m in [0.5, 1)
  const float scaled = std::ldexp(m, 11);        // 11 significant bits
  if (scaled != std::floor(scaled) || e - 1 < -14 || e - 1 > 15) return false;
  *bits = static_cast<std::uint16_t>((std::signbit(f) ? 0x8000 : 0) | ((e - 1 + 15) << 10) |
                                     (static_cast<int>(scaled) & 0x3FF));
  return true;
}
bool bfloat_bits(float f, std::uint16_t* bits) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, 4);
  *bits = static_cast<std::uint16_t>(u >> 16);
  return (u & 0xFFFF) == 0;
}

template <class T>
T element(const json& e) {
  if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, bool>) {
    return e.get<T>();
  } else if constexpr (std::is_same_v<T, float16> || std::is_same_v<T, bfloat16>) {
    T v;
    const bool exact =
        std::is_same_v<T, float16> ? half_bits(e.get<float>(), &v.bits) : bfloat_bits(e.get<float>(), &v.bits);
    if (!exact) throw std::runtime_error("value not exact in a 16-bit float: " + e.dump());
    return v;
  } else if constexpr (std::is_same_v<T, std::complex<float>> || std::is_same_v<T, std::complex<double>>) {
    return T(e.at(0).get<typename T::value_type>(), e.at(1).get<typename T::value_type>());
  } else if constexpr (std::is_same_v<T, qint8> || std::is_same_v<T, quint8> || std::is_same_v<T, qint32>) {
    return T{static_cast<decltype(T::value)>(e.get<std::int64_t>())};
  } else if constexpr (std::is_floating_point_v<T>) {
    return e.get<T>();
  } else if constexpr (std::is_same_v<T, std::uint64_t>) {
    return e.is_string() ? std::stoull(e.get<std::string>()) : e.get<std::uint64_t>();
  } else {
    return static_cast<T>(int64_of(e));
  }
}

Tensor tensor_of(const json& j) {
  const DType dtype = dtype_from_name(j.at("dtype").get<std::string>()).value();
  Shape shape;
  for (const json& d : j.at("shape")) shape.push_back(int64_of(d));
  Tensor t(dtype, shape);
  const json& data = j.at("data");
  if (static_cast<std::int64_t>(data.size()) != t.num_elements()) throw std::runtime_error("data length");
  visit_dtype(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t k = 0; k < data.size(); ++k) t.data<T>()[k] = element<T>(data[k]);
  });
  return t;
}

void replay(const fs::path& file, int* count) {
  SCOPED_TRACE(file.string());
  std::ifstream in(file);
  const json v = json::parse(in);
  const std::string op = v.at("op");
  const bool s2d = op == "SpaceToDepth";
  ASSERT_TRUE(s2d || op == "DepthToSpace");
  const Tensor input = tensor_of(v.at("inputs").at("input"));
  const std::int64_t block = int64_of(v.at("attrs").at("block_size"));
  const std::string format = v.at("attrs").at("data_format");
  ExecOptions options;
  if (v.contains("memory_limit")) options.memory_limit_bytes = int64_of(v.at("memory_limit"));
  const json& expected = v.at("expected");
  for (bool optimized : {false, true}) {
    SCOPED_TRACE(optimized ? "optimized" : "reference");
    const testing::DepthSpaceFn fn = s2d ? (optimized ? &optimized::SpaceToDepth : &reference::SpaceToDepth)
                                         : (optimized ? &optimized::DepthToSpace : &reference::DepthToSpace);
    Tensor output;
    const Status status = testing::run_depth_space(fn, input, block, format, &output, options);
    if (expected.contains("error")) {
      EXPECT_EQ(code_name(status.code()), expected.at("error").at("code").get<std::string>()) << status;
      EXPECT_EQ(status.message(), expected.at("error").at("message").get<std::string>());
    } else {
      ASSERT_TRUE(status.ok()) << status;
      EXPECT_TRUE(BitEqual(output, tensor_of(expected.at("outputs").at("output"))));
    }
  }
  ++*count;
}

TEST(DepthSpaceVectors, EveryBundledVectorAgreesWithBothLayers) {
  const fs::path dir = vectors_dir();
  if (dir.empty()) GTEST_SKIP() << "corpus/vectors not found above the working directory or the executable";
  int count = 0;
  for (const char* folder : {"space_to_depth", "depth_to_space"}) {
    std::vector<fs::path> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir / folder))
      if (entry.path().extension() == ".json") files.push_back(entry.path());
    std::sort(files.begin(), files.end());
    EXPECT_FALSE(files.empty()) << folder;
    for (const fs::path& file : files) replay(file, &count);
  }
  EXPECT_GE(count, 137);
}

}  // namespace
}  // namespace opconform
