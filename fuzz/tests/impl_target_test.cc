// The differential target for an implementation under test (fuzz/impl_target.h), in process:
// conforming kernels pass every seed, a broken one is reported with its signature, and the
// coverage-instrumentation probe reads ELF files.
#include "opconform/fuzz/impl_target.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "opconform/conformance/vector.h"
#include "opconform/fuzz/convert.h"
#include "opconform/optimized/op_table.h"

namespace opconform::fuzz {
namespace {

// The bundled vectors of `op` as harness inputs.
std::vector<std::vector<std::uint8_t>> seeds(Op op) {
  std::vector<std::vector<std::uint8_t>> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(OPCONFORM_TEST_VECTORS)) {
    conformance::Case c;
    std::vector<std::uint8_t> bytes;
    if (entry.path().extension() != ".json" || !conformance::load_case_file(entry.path(), &c).ok() || c.op != op)
      continue;
    if (vector_to_fuzz(c, Knobs{}, &bytes).ok()) out.push_back(std::move(bytes));
  }
  return out;
}

TEST(ImplTarget, ConformingKernelsPassEverySeed) {
  ImplUnderTest impl = in_process(optimized::op_table(), "optimized");
  impl.profile = "tf-cpu";
  for (Op op : kAllOps) {
    ASSERT_TRUE(select_op(&impl, op).ok());
    const auto inputs = seeds(op);
    EXPECT_GT(inputs.size(), 10u) << op_name(op);
    for (const auto& bytes : inputs) EXPECT_EQ(run_input(impl, bytes.data(), bytes.size()), 0) << op_name(op);
  }
}

Status always_internal(std::span<const Tensor>, std::span<const Tensor>, Tensor*, const ExecOptions&) {
  return Status(Code::kInternal, "broken");
}

TEST(ImplTargetDeathTest, BrokenKernelIsAFindingWithItsSignature) {
  OpTable broken = optimized::op_table();
  broken.dynamic_stitch = always_internal;
  ImplUnderTest impl = in_process(broken, "broken");
  impl.profile = "tf-cpu";
  ASSERT_TRUE(select_op(&impl, Op::kDynamicStitch).ok());
  const auto inputs = seeds(Op::kDynamicStitch);
  ASSERT_FALSE(inputs.empty());
  EXPECT_DEATH(run_input(impl, inputs.front().data(), inputs.front().size()),
               "ERROR: opconform finding: DynamicStitch (error-mismatch|value-vs-error): ");
}

// An empty input (libFuzzer saves one when the empty case fails) becomes a vector; the empty
// file's bytes come without storage (a null pointer), which the decoder must not copy from.
TEST(ImplTarget, EmptyInputBecomesAVector) {
  conformance::Case c;
  EXPECT_TRUE(fuzz_to_vector(Harness::kDynamicPartition, {}, "crash-empty", &c).ok());
  EXPECT_EQ(c.op, Op::kDynamicPartition);
}

TEST(ImplTarget, OpsTheTableLacksAreRefused) {
  OpTable partial = optimized::op_table();
  partial.sparse_concat = nullptr;
  ImplUnderTest impl = in_process(partial, "partial");
  EXPECT_FALSE(select_op(&impl, Op::kSparseConcat).ok());
  EXPECT_TRUE(select_op(&impl, Op::kDynamicPartition).ok());
}

TEST(ImplTarget, CoverageCountersAreReadFromTheElfFile) {
  // This test binary carries SanitizerCoverage counters exactly in the libFuzzer build.
  EXPECT_EQ(has_coverage_counters("/proc/self/exe"), OPCONFORM_TEST_SANCOV != 0);
  EXPECT_FALSE(has_coverage_counters(OPCONFORM_TEST_VECTORS "/dynamic_stitch/golden_doc_example.json"));
  EXPECT_FALSE(has_coverage_counters("/no/such/file.so"));
}

}  // namespace
}  // namespace opconform::fuzz
