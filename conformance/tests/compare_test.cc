// run_case against fake OpTables, and compare(): bit-exact outputs, errors, strictness and the
// two `unspecified` rules (every allowed outcome passes, anything else fails).
#include "opconform/conformance/compare.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "opconform/conformance/run.h"
#include "tensor_test_util.h"

namespace opconform::conformance {
namespace {

using namespace opconform::testing;

// What the fake kernels return next, and what they saw.
struct FakeState {
  Status status;
  Tensor output;
  std::vector<Tensor> partitions;
  SparseTensor sparse;
  bool throws = false;
  bool write_on_error = false;
  std::int64_t seen_memory_limit = 0;
  int seen_num_threads = 0;
  std::int64_t seen_attr = 0;
  std::size_t seen_list_size = 0;
};
FakeState fake;

Status fake_space(const Tensor& input, const Tensor&, const Tensor&, Tensor* out, const ExecOptions& options) {
  fake.seen_memory_limit = options.memory_limit_bytes;
  fake.seen_num_threads = options.num_threads;
  if (fake.throws) throw std::runtime_error("boom");
  if (fake.status.ok() || fake.write_on_error) *out = fake.output;
  return fake.status;
}
Status fake_stitch(std::span<const Tensor> indices, std::span<const Tensor>, Tensor* out, const ExecOptions&) {
  fake.seen_list_size = indices.size();
  if (fake.throws) throw 42;
  if (fake.status.ok() || fake.write_on_error) *out = fake.output;
  return fake.status;
}
Status fake_partition(const Tensor&, const Tensor&, std::int64_t num, std::vector<Tensor>* out, const ExecOptions&) {
  fake.seen_attr = num;
  if (fake.status.ok() || fake.write_on_error) *out = fake.partitions;
  return fake.status;
}
Status fake_concat(std::span<const Tensor>, std::span<const Tensor>, std::span<const Tensor>, std::int64_t dim,
                   SparseTensor* out, const ExecOptions&) {
  fake.seen_attr = dim;
  if (fake.status.ok() || fake.write_on_error) *out = fake.sparse;
  return fake.status;
}

const OpTable kFake = {"fake", &fake_space, &fake_space, &fake_stitch, &fake_stitch, &fake_partition, &fake_concat};
const OpTable kEmpty = {"empty", nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};

class CompareTest : public ::testing::Test {
 protected:
  void SetUp() override { fake = FakeState{}; }

  static Case space_case(Tensor expected) {
    Case c;
    c.op = Op::kSpaceToBatchND;
    c.inputs["input"] = tensor<float>({1}, {1});
    c.inputs["block_shape"] = tensor<std::int32_t>({1}, {1});
    c.inputs["paddings"] = tensor<std::int32_t>({1, 2}, {0, 0});
    c.expected.outputs["output"] = std::move(expected);
    return c;
  }

  static Case error_case(Code code, std::string message) {
    Case c = space_case(Tensor());
    c.expected.outputs.clear();
    c.expected.error = Status(code, std::move(message));
    return c;
  }

  // The comparison of `c` against what the fake table returns for it.
  static Judgement check(const Case& c, Strictness strictness = Strictness::kStrict) {
    return compare(c, run_case(kFake, c), strictness);
  }
};

TEST_F(CompareTest, RunCasePassesMemoryLimitAndOptions) {
  Case c = space_case(tensor<float>({1}, {1}));
  c.memory_limit = 777;
  fake.output = tensor<float>({1}, {1});
  ExecOptions options;
  options.num_threads = 3;
  options.memory_limit_bytes = 5;
  const Outcome outcome = run_case(kFake, c, options);
  EXPECT_TRUE(outcome.status.ok());
  EXPECT_EQ(fake.seen_memory_limit, 777);
  EXPECT_EQ(fake.seen_num_threads, 3);
  EXPECT_TRUE(compare(c, outcome).pass);
}

TEST_F(CompareTest, RunCaseTurnsThrowsAndGapsIntoInternal) {
  Case c = space_case(tensor<float>({1}, {1}));
  fake.throws = true;
  Outcome outcome = run_case(kFake, c);
  EXPECT_EQ(outcome.status, Status(Code::kInternal, "fake SpaceToBatchND threw: boom"));
  Judgement r = compare(c, outcome);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.detail, "expected outputs, got error INTERNAL: fake SpaceToBatchND threw: boom");

  Case stitch;
  stitch.op = Op::kDynamicStitch;
  stitch.inputs["indices"] = std::vector<Tensor>{};
  stitch.inputs["data"] = std::vector<Tensor>{};
  EXPECT_EQ(run_case(kFake, stitch).status,
            Status(Code::kInternal, "fake DynamicStitch threw a non-standard exception"));
  EXPECT_EQ(run_case(kEmpty, stitch).status, Status(Code::kInternal, "empty has no DynamicStitch kernel"));
  stitch.inputs.erase("data");
  fake.throws = false;
  EXPECT_EQ(run_case(kFake, stitch).status,
            Status(Code::kInternal, "malformed case: the case has no list input 'data'"));
}

TEST_F(CompareTest, OutputsCompareBitForBit) {
  const Case c = space_case(f32_bits({2, 2}, {0x3f800000, 0x7fc00000, 0x00000000, 0x40000000}));
  fake.output = f32_bits({2, 2}, {0x3f800000, 0x7fc00000, 0x00000000, 0x40000000});
  EXPECT_TRUE(check(c).pass);

  fake.output = f32_bits({2, 2}, {0x3f800000, 0x7fc00001, 0x00000000, 0x40000000});  // NaN payload
  Judgement r = check(c);
  EXPECT_FALSE(r.pass);
  EXPECT_EQ(r.detail, "output: 1 of 4 elements differ; first at [0,1]: expected nan, got nan(0x7fc00001)");

  fake.output = f32_bits({2, 2}, {0x3f800000, 0x7fc00000, 0x80000000, 0x40400000});  // -0.0, 3
  EXPECT_EQ(check(c).detail, "output: 2 of 4 elements differ; first at [1,0]: expected 0, got -0.0");

  fake.output = f32_bits({4}, {0x3f800000, 0x7fc00000, 0x00000000, 0x40000000});
  EXPECT_EQ(check(c).detail, "output: shape [4], expected [2,2]");
  fake.output = tensor<std::int32_t>({2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(check(c).detail, "output: dtype int32, expected float32");

  const Case strings = space_case(tensor<std::string>({2}, {"a", std::string("\0", 1)}));
  fake.output = tensor<std::string>({2}, {"a", std::string("\0", 1)});
  EXPECT_TRUE(check(strings).pass);
  fake.output = tensor<std::string>({2}, {"a", ""});
  EXPECT_EQ(check(strings).detail, "output: 1 of 2 elements differ; first at [1]: expected \"\\x00\", got \"\"");
}

TEST_F(CompareTest, Errors) {
  const Case c = error_case(Code::kInvalidArgument, "bad block");
  fake.status = Status(Code::kInvalidArgument, "bad block");
  EXPECT_TRUE(check(c).pass);

  fake.status = Status(Code::kInvalidArgument, "bad paddings");
  EXPECT_EQ(check(c).detail,
            "message differs (code INVALID_ARGUMENT matches):\n  expected: bad block\n  actual:   bad paddings");
  EXPECT_TRUE(check(c, Strictness::kCodeOnly).pass);
  Case code_only = c;
  code_only.tags = {"message:code-only"};
  EXPECT_TRUE(check(code_only).pass);

  fake.status = Status(Code::kUnimplemented, "bad block");
  EXPECT_EQ(check(c, Strictness::kCodeOnly).detail,
            "expected error INVALID_ARGUMENT: bad block, got UNIMPLEMENTED: bad block");
  EXPECT_FALSE(check(code_only).pass);

  fake.status = Status();
  fake.output = tensor<float>({1}, {1});
  EXPECT_EQ(check(c).detail, "expected error INVALID_ARGUMENT: bad block, but the op succeeded");
}

TEST_F(CompareTest, AlternativesOfTheProfileAreAllowed) {
  Case c = error_case(Code::kInvalidArgument, "overflows int64");
  c.tags = {"deviation"};
  Alternative a;
  a.profiles = {"tf-cpu"};
  a.outcome.outputs["output"] = tensor<float>({1}, {0});
  a.why = "TensorFlow wraps";
  c.alternatives = {a};
  fake.output = tensor<float>({1}, {0});
  const Outcome wrapped = run_case(kFake, c);
  Allowed allowed = compare_allowed(c, wrapped, "tf-cpu");
  EXPECT_TRUE(allowed.judgement.pass);
  EXPECT_EQ(allowed.alternative, &c.alternatives[0]);
  allowed = compare_allowed(c, wrapped, "xla");  // not this profile's
  EXPECT_FALSE(allowed.judgement.pass);
  EXPECT_EQ(allowed.alternative, nullptr);
  EXPECT_EQ(allowed.judgement.detail, "expected error INVALID_ARGUMENT: overflows int64, but the op succeeded");
  EXPECT_FALSE(compare(c, wrapped).pass);  // compare() knows the expected outcome only

  fake.output = tensor<float>({1}, {1});
  EXPECT_FALSE(compare_allowed(c, run_case(kFake, c), "tf-cpu").judgement.pass);
  fake.status = Status(Code::kInvalidArgument, "overflows int64");
  allowed = compare_allowed(c, run_case(kFake, c), "tf-cpu");
  EXPECT_TRUE(allowed.judgement.pass);
  EXPECT_EQ(allowed.alternative, nullptr);  // the expected outcome first
}

TEST_F(CompareTest, AnErrorThatReplacedOutputsFails) {
  const Case c = error_case(Code::kInvalidArgument, "bad");
  fake.status = Status(Code::kInvalidArgument, "bad");
  fake.write_on_error = true;
  const Outcome outcome = run_case(kFake, c);
  EXPECT_TRUE(outcome.wrote_outputs_on_error);
  EXPECT_EQ(compare(c, outcome).detail,
            "the op returned INVALID_ARGUMENT: bad but replaced its outputs (they must stay untouched on error)");
}

TEST_F(CompareTest, ListOutputs) {
  Case c;
  c.op = Op::kDynamicPartition;
  c.attrs["num_partitions"] = 2;
  c.inputs["data"] = tensor<float>({2}, {1, 2});
  c.inputs["partitions"] = tensor<std::int32_t>({2}, {1, 0});
  c.expected.outputs["outputs"] = std::vector<Tensor>{tensor<float>({1}, {2}), tensor<float>({1}, {1})};
  fake.partitions = {tensor<float>({1}, {2}), tensor<float>({1}, {1})};
  EXPECT_TRUE(check(c).pass);
  EXPECT_EQ(fake.seen_attr, 2);
  fake.partitions = {tensor<float>({1}, {2})};
  EXPECT_EQ(check(c).detail, "outputs: 1 tensors, expected 2");
  fake.partitions = {tensor<float>({1}, {2}), tensor<float>({1}, {3})};
  EXPECT_EQ(check(c).detail, "outputs[1]: 1 of 1 elements differ; first at [0]: expected 1, got 3");
}

// ParallelDynamicStitch: merged row 1 may come from either list.
TEST_F(CompareTest, OneOfRowsAcceptsExactlyTheAllowedRows) {
  Case c;
  c.op = Op::kParallelDynamicStitch;
  c.inputs["indices"] = std::vector<Tensor>{tensor<std::int32_t>({2}, {0, 1}), tensor<std::int32_t>({2}, {1, 2})};
  c.inputs["data"] = std::vector<Tensor>{tensor<float>({2, 2}, {1, 2, 3, 4}), tensor<float>({2, 2}, {5, 6, 7, 8})};
  c.expected.outputs["merged"] = tensor<float>({3, 2}, {1, 2, 5, 6, 7, 8});
  c.expected.unspecified.push_back(
      OneOfRows{"merged", {{1, {tensor<float>({2}, {3, 4}), tensor<float>({2}, {5, 6})}}}});
  c.tags = {"unspecified"};
  fake.output = tensor<float>({3, 2}, {1, 2, 5, 6, 7, 8});
  EXPECT_TRUE(check(c).pass);
  fake.output = tensor<float>({3, 2}, {1, 2, 3, 4, 7, 8});
  EXPECT_TRUE(check(c).pass);
  fake.output = tensor<float>({3, 2}, {1, 2, 3, 6, 7, 8});  // half of each: not allowed
  EXPECT_EQ(check(c).detail, "merged: row 1 is [3, 6], expected one of [5, 6] or [3, 4]");
  fake.output = tensor<float>({3, 2}, {1, 2, 3, 4, 7, 9});  // another row differs
  EXPECT_EQ(check(c).detail, "merged: 1 of 2 elements differ; first at [2,1]: expected 8, got 9");
  fake.output = tensor<float>({3, 2}, {1, 2, 0, 0, 7, 8});
  EXPECT_FALSE(check(c).pass);
}

// SparseConcat: values of equal coordinates may come in any order.
TEST_F(CompareTest, PermutationWithinEqualKeysAcceptsExactlyThePermutations) {
  Case c;
  c.op = Op::kSparseConcat;
  c.attrs["concat_dim"] = 0;
  for (const char* name : {"indices", "values", "shapes"}) c.inputs[name] = std::vector<Tensor>{};
  c.expected.outputs["output_indices"] = tensor<std::int64_t>({5, 2}, {0, 0, 0, 0, 0, 0, 1, 0, 1, 1});
  c.expected.outputs["output_values"] = tensor<std::string>({5}, {"a", "b", "c", "d", "e"});
  c.expected.outputs["output_shape"] = tensor<std::int64_t>({2}, {2, 2});
  c.expected.unspecified.push_back(PermutationWithinEqualKeys{"output_indices", "output_values"});
  c.tags = {"unspecified"};
  const auto run_with = [&](std::vector<std::int64_t> indices, std::vector<std::string> values) {
    fake.sparse = {tensor<std::int64_t>({5, 2}, indices), tensor<std::string>({5}, values),
                   tensor<std::int64_t>({2}, {2, 2})};
    return check(c);
  };
  const std::vector<std::int64_t> keys = {0, 0, 0, 0, 0, 0, 1, 0, 1, 1};
  for (auto values : std::vector<std::vector<std::string>>{
           {"a", "b", "c", "d", "e"}, {"c", "a", "b", "d", "e"}, {"b", "c", "a", "d", "e"}})
    EXPECT_TRUE(run_with(keys, values).pass);
  EXPECT_EQ(run_with(keys, {"a", "b", "d", "c", "e"}).detail,
            "output_values: rows 0 to 2 (equal output_indices row [0, 0]) are {\"a\", \"b\", \"d\"}, "
            "expected these in any order: {\"a\", \"b\", \"c\"}");
  EXPECT_FALSE(run_with(keys, {"a", "a", "c", "d", "e"}).pass);  // a multiset, not a set
  EXPECT_EQ(run_with(keys, {"a", "b", "c", "e", "d"}).detail,
            "output_values: 1 of 1 elements differ; first at [3]: expected \"d\", got \"e\"");
  EXPECT_EQ(run_with({0, 0, 0, 0, 0, 1, 1, 0, 1, 1}, {"a", "b", "c", "d", "e"}).detail,
            "output_indices: 1 of 10 elements differ; first at [2,1]: expected 0, got 1");
  EXPECT_EQ(fake.seen_attr, 0);
}

TEST_F(CompareTest, NamesOfOutputs) {
  const Case c = space_case(tensor<float>({1}, {1}));
  Outcome outcome;
  EXPECT_EQ(compare(c, outcome).detail, "missing output 'output'");
  outcome.outputs["output"] = tensor<float>({1}, {1});
  outcome.outputs["extra"] = tensor<float>({1}, {1});
  EXPECT_EQ(compare(c, outcome).detail, "unexpected output 'extra'");
  outcome.outputs.erase("extra");
  outcome.outputs["output"] = std::vector<Tensor>{};
  EXPECT_EQ(compare(c, outcome).detail, "output: a list, expected one tensor");
}

TEST_F(CompareTest, ExpectedFromAnOutcomeChecksOneImplementationAgainstAnother) {
  Case c = space_case(Tensor());
  fake.output = f32_bits({2}, {0x7fc00001, 0x80000000});
  c.expected = expected_from(run_case(kFake, c));
  EXPECT_TRUE(check(c).pass);
  fake.output = f32_bits({2}, {0x7fc00001, 0x00000000});
  EXPECT_FALSE(check(c).pass);
  fake.status = Status(Code::kResourceExhausted, "OOM");
  c.expected = expected_from(run_case(kFake, c));
  EXPECT_EQ(*c.expected.error, fake.status);
  EXPECT_TRUE(compare_tensors(tensor<float>({1}, {1}), tensor<float>({1}, {1}), "x").pass);
  EXPECT_EQ(compare_tensors(tensor<float>({1}, {1}), tensor<float>({1}, {2}), "x").detail,
            "x: 1 of 1 elements differ; first at [0]: expected 1, got 2");
}

}  // namespace
}  // namespace opconform::conformance
