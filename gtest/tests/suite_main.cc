// The GoogleTest entry point run against an OpTable of this build, chosen by
// OPCONFORM_SUITE_TABLE:
//   optimized (default)  the bundled optimized kernels: every test must pass
//   broken_stitch        a deliberately broken DynamicStitch: ctest expects failed vectors
//   tflite_space_to_batch  a TFLite-style SpaceToBatchND (rank 3 or 4 and TFLite's six types
//                          only): fails under tf-cpu, passes under OPCONFORM_SUITE_PROFILE=tflite
//   recording            the optimized DynamicStitch, which records every case it is given and
//                        prints a digest of them at the end (the same seed, the same digest)
// OPCONFORM_SUITE_PROFILE sets SuiteOptions::profile; OPCONFORM_SUITE_XFAIL
// SuiteOptions::expected_failures, OPCONFORM_SUITE_STRICT_XFAIL=1 strict_xfail, and
// OPCONFORM_SUITE_SELECT (selectors separated by spaces) select.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <span>
#include <sstream>

#include "opconform/gtest/suite.h"
#include "opconform/optimized/op_table.h"
#include "opconform/reference/dynamic_stitch.h"
#include "opconform/reference/space_to_batch_nd.h"

namespace {

using opconform::DType;
using opconform::Status;
using opconform::Tensor;

// DynamicStitch that is right except that it ignores the last list when two or more are given
// (an off-by-one over the lists): the kind of bug the suite exists to catch.
Status broken_stitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                     const opconform::ExecOptions& options) {
  if (indices.size() < 2 || indices.back().num_elements() == 0)
    return opconform::reference::DynamicStitch(indices, data, merged, options);
  std::vector<Tensor> shorter_indices(indices.begin(), indices.end() - 1);
  std::vector<Tensor> shorter_data(data.begin(), data.end() - 1);
  return opconform::reference::DynamicStitch(shorter_indices, shorter_data, merged, options);
}

// SpaceToBatchND as TFLite's builtin kernel accepts it (docs/contract/profiles.md, tflite): an
// input of rank 3 or 4 and one of six types, else a clean error; otherwise TensorFlow's.
Status tflite_space_to_batch(const Tensor& input, const Tensor& block_shape, const Tensor& paddings, Tensor* output,
                             const opconform::ExecOptions& options) {
  static constexpr DType kTypes[] = {DType::kFloat32, DType::kUInt8, DType::kInt8,
                                     DType::kInt16,   DType::kInt32, DType::kInt64};
  if (input.rank() < 3 || input.rank() > 4 ||
      std::find(std::begin(kTypes), std::end(kTypes), input.dtype()) == std::end(kTypes))
    return Status(opconform::Code::kInvalidArgument,
                  "TFLite SpaceToBatchND: input must be rank 3 or 4 of a supported type");
  return opconform::reference::SpaceToBatchND(input, block_shape, paddings, output, options);
}

// FNV-1a over every case the recording DynamicStitch was given: dtypes, shapes and bytes.
std::uint64_t digest = 14695981039346656037ull;
std::int64_t recorded = 0;
void mix(const void* data, std::size_t size) {
  for (std::size_t i = 0; i < size; ++i)
    digest = (digest ^ static_cast<const unsigned char*>(data)[i]) * 1099511628211ull;
}
void mix(const Tensor& t) {
  const DType dtype = t.dtype();
  mix(&dtype, sizeof dtype);
  for (std::int64_t d : t.shape()) mix(&d, sizeof d);
  if (dtype != DType::kString) mix(t.raw_data(), t.num_elements() * opconform::dtype_storage_size(dtype));
}
Status recording_stitch(std::span<const Tensor> indices, std::span<const Tensor> data, Tensor* merged,
                        const opconform::ExecOptions& options) {
  ++recorded;
  for (const Tensor& t : indices) mix(t);
  for (const Tensor& t : data) mix(t);
  return opconform::optimized::op_table().dynamic_stitch(indices, data, merged, options);
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  const char* which = std::getenv("OPCONFORM_SUITE_TABLE");
  const std::string table_name = which ? which : "optimized";
  static opconform::OpTable table = opconform::optimized::op_table();
  if (table_name == "broken_stitch") {
    table = opconform::OpTable{};  // every other op: no kernel
    table.name = "broken stitch";
    table.dynamic_stitch = &broken_stitch;
  } else if (table_name == "tflite_space_to_batch") {
    table = opconform::OpTable{};
    table.name = "tflite space_to_batch";
    table.space_to_batch_nd = &tflite_space_to_batch;
  } else if (table_name == "recording") {
    table = opconform::OpTable{};
    table.name = "recording stitch";
    table.dynamic_stitch = &recording_stitch;
  }
  opconform::gtest::SuiteOptions options;
  options.property_cases = 100;
  if (const char* profile = std::getenv("OPCONFORM_SUITE_PROFILE")) options.profile = profile;
  if (const char* xfail = std::getenv("OPCONFORM_SUITE_XFAIL")) options.expected_failures = xfail;
  if (const char* strict = std::getenv("OPCONFORM_SUITE_STRICT_XFAIL"))
    options.strict_xfail = std::string(strict) == "1";
  if (const char* select = std::getenv("OPCONFORM_SUITE_SELECT")) {
    std::istringstream selectors(select);
    for (std::string selector; selectors >> selector;) options.select.push_back(selector);
  }
  opconform::gtest::register_suite("Suite", table, options);
  const int result = RUN_ALL_TESTS();
  if (table_name == "recording")
    std::printf("recorded %lld cases, digest %016llx\n", static_cast<long long>(recorded),
                static_cast<unsigned long long>(digest));
  return result;
}
