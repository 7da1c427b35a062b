// `opconform validate` end to end against the bundled plug-in (which must pass) and against
// small fakes (tests/fakes/), each misbehaving in one way that must be reported, never fatal.
#include <sys/resource.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "opconform/conformance/vector.h"
#include "opconform/validator/judge.h"
#include "opconform/validator/validate.h"

#include "../asan.h"
#include "test_support.h"

namespace opconform::validator {
namespace {

using namespace opconform::testing;
namespace fs = std::filesystem;

// A validator bug must not take the machine's memory: cap this process's address space (the
// soft limit only, so workers can still set their own). ASan reserves terabytes: not there.
[[maybe_unused]] const bool kMemoryCapped = [] {
#if !defined(OPCONFORM_ASAN)
  rlimit limit{};
  ::getrlimit(RLIMIT_AS, &limit);
  limit.rlim_cur = rlim_t{12} << 30;
  ::setrlimit(RLIMIT_AS, &limit);
#endif
  return true;
}();

RunOutcome validate(ValidateOptions options, const std::string& name) {
  RunOutcome r;
  r.dir = fresh_dir(name);
  options.json_path = (r.dir / "report.json").string();
  options.junit_path = (r.dir / "junit.xml").string();
  options.save_failures_dir = (r.dir / "failures").string();
  options.progress = false;
  options.worker_path = OPCONFORM_TEST_WORKER;
  if (options.corpus_dir.empty()) options.corpus_dir = OPCONFORM_TEST_VECTORS;
  if (options.impl.empty()) options.impl = OPCONFORM_TEST_BUNDLED_PLUGIN;
  // These tests judge outcomes, not speed: a sanitizer build on a busy machine may take more
  // than the default 10 s on the corpus's biggest vectors. Timeout tests set their own.
  if (options.timeout_seconds == ValidateOptions{}.timeout_seconds) options.timeout_seconds = 120;
  if (!options.seed) options.seed = 1;
  std::ostringstream out, err;
  r.exit_code = run_validate(options, out, err);
  r.out = out.str();
  r.err = err.str();
  std::ifstream f(options.json_path);
  if (f) r.report = nlohmann::json::parse(f, nullptr, false);
  return r;
}

ValidateOptions replay(const std::string& impl, std::vector<std::string> names) {
  ValidateOptions o;
  o.impl = impl;
  for (const std::string& n : names) o.replay.push_back(data_file(n));
  return o;
}

TEST(Validate, BundledPluginPassesCorpusAndGeneratedCases) {
  ValidateOptions o;
  o.cases = 300;
  const RunOutcome r = validate(o, "bundled");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.report["failed"], 0);
  EXPECT_GE(r.report["cases"].get<std::int64_t>(), 700);  // the corpus and 300 generated cases
  EXPECT_GT(r.count("agree"), 100);
  EXPECT_GT(r.count("both-error"), 100);
  EXPECT_CONTAINS(r.out, "total");
  // The speed of each op: its cases, their time, and the tensors' megabytes.
  EXPECT_CONTAINS(r.out, "cases/s      MB/s\n");
  const nlohmann::json& speed = r.report["throughput"];
  std::int64_t cases = 0;
  for (const auto& [op, t] : speed["ops"].items()) {
    cases += t["cases"].get<std::int64_t>();
    EXPECT_GT(t["seconds"].get<double>(), 0) << op;
    EXPECT_NEAR(t["cases_per_second"].get<double>(), t["cases"].get<double>() / t["seconds"].get<double>(), 1e-6) << op;
    EXPECT_GT(t["mb_per_second"].get<double>(), 0) << op;
  }
  EXPECT_EQ(speed["ops"].size(), static_cast<std::size_t>(kNumOps));  // every op of the registry
  EXPECT_EQ(cases, r.report["cases"].get<std::int64_t>());
  EXPECT_EQ(speed["total"]["cases"], r.report["cases"]);
  std::ifstream junit(r.dir / "junit.xml");
  std::stringstream xml;
  xml << junit.rdbuf();
  EXPECT_CONTAINS(xml.str(), "<testsuites name=\"opconform validate\"");
  EXPECT_EQ(xml.str().find("<failure"), std::string::npos);
}

TEST(Validate, ExecTransportThroughTheWorkerPasses) {
  ValidateOptions o;
  o.impl = std::string("exec:") + OPCONFORM_TEST_WORKER + " " + OPCONFORM_TEST_BUNDLED_PLUGIN;
  o.ops = {Op::kDynamicStitch, Op::kSpaceToBatchND};
  o.cases = 40;
  const RunOutcome r = validate(o, "exec-worker");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_GT(r.count("agree"), 10);
}

TEST(Validate, LoadFailuresAreReportedClearly) {
  RunOutcome r = validate(replay(OPCONFORM_FAKE_MISSING_SYMBOL, {"stitch_float32"}), "missing-symbol");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "the manifest lists DynamicStitch but the symbol opconform_dynamic_stitch is missing");

  r = validate(replay(OPCONFORM_FAKE_WRONG_ABI, {"stitch_float32"}), "wrong-abi");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "ABI version 2, this validator speaks 1");

  r = validate(replay("/nonexistent/libnothing.so", {"stitch_float32"}), "no-library");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "cannot load /nonexistent/libnothing.so");

  r = validate(replay("exec:exit 3", {"stitch_float32"}), "exec-exits");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "exited with status 3 before sending its manifest");

  r = validate(replay("exec:echo hello; cat > /dev/null", {"stitch_float32"}), "exec-garbage");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_CONTAINS(r.err, "bad handshake");
}

TEST(Validate, GarbageShapesAreAFault) {
  const RunOutcome r = validate(replay(OPCONFORM_FAKE_GARBAGE_SHAPES, {"stitch_int16", "stitch_float32"}), "garbage");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_EQ(r.count("agree"), 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "bad dims [-5,2,1]");
}

TEST(Validate, UnwrittenOutputsShowAsPoisonOrFault) {
  const RunOutcome r = validate(
      replay(OPCONFORM_FAKE_WRITES_NOTHING, {"stitch_int16", "stitch_bool", "stitch_float32"}), "writes-nothing");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("mismatch"), 1);  // int16: the poison pattern compared, and named as such
  EXPECT_CONTAINS(r.failure("mismatch")["detail"].get<std::string>(),
                  "expected 0, implementation never written (its bytes are still the poison 0xa5)");
  EXPECT_EQ(r.count("fault"), 1);  // bool: a byte that is no bool
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "never written");
  EXPECT_EQ(r.count("agree"), 1);
}

TEST(Validate, OutOfBoundsWritesHitTheGuard) {
  const RunOutcome r = validate(replay(OPCONFORM_FAKE_OUT_OF_BOUNDS, {"stitch_int16", "stitch_float32"}), "oob");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("fault"), 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "wrote past the end");
  EXPECT_EQ(r.count("agree"), 1);
}

TEST(Validate, CrashesAreRecordedAndTheRunGoesOn) {
  const RunOutcome r = validate(
      replay(OPCONFORM_FAKE_CRASH, {"stitch_int16", "stitch_float32", "stitch_int8", "stitch_float32_big"}), "crash");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("crash"), 2);
  EXPECT_EQ(r.count("agree"), 2);
  // SIGSEGV: a plain worker dies of the signal; under ASan its handler reports SEGV and exits.
  EXPECT_TRUE(r.out.find("killed by signal 11") != std::string::npos || r.out.find("SEGV") != std::string::npos)
      << r.out;
  EXPECT_CONTAINS(r.out, "killed by signal 6");
  std::ifstream junit(r.dir / "junit.xml");
  std::stringstream xml;
  xml << junit.rdbuf();
  EXPECT_CONTAINS(xml.str(), "<failure type=\"crash\"");
}

// Two hangs, each a timeout: the run goes on after the first. Only cases that never answer
// meet the short timeout (one that answers after a hang: timing_test.cc).
TEST(Validate, HangsTimeOut) {
  const fs::path hangs = fresh_dir("hangs");
  for (const char* copy : {"a.json", "b.json"}) fs::copy_file(data_file("stitch_int16"), hangs / copy);
  ValidateOptions o = replay(OPCONFORM_FAKE_HANG, {});
  o.replay = {hangs.string()};
  o.timeout_seconds = 1;
  const RunOutcome r = validate(o, "hang");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("timeout"), 2);
}

TEST(Validate, RunawayAllocationIsOutOfMemory) {
  ValidateOptions o = replay(OPCONFORM_FAKE_OOM, {"stitch_int16", "stitch_float32"});
  o.worker_memory_mib = 512;
  const RunOutcome r = validate(o, "oom");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.count("out-of-memory"), 1) << r.out;
  EXPECT_EQ(r.count("agree"), 1);
}

TEST(Validate, UnknownStatusCodeIsAFault) {
  const RunOutcome r = validate(replay(OPCONFORM_FAKE_BAD_STATUS, {"stitch_int16", "stitch_float32"}), "bad-status");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "unknown status code 42");
}

TEST(Validate, AnErrorAfterAnAllocationIsAFaultUnlessResourceExhausted) {
  const RunOutcome r =
      validate(replay(OPCONFORM_FAKE_ALLOCATES_THEN_FAILS, {"stitch_int16", "stitch_int8", "stitch_float32"}),
               "allocates-then-fails");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("fault"), 1);  // int16: INVALID_ARGUMENT after output 0
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(),
                  "returned INVALID_ARGUMENT after allocating output 0 (int16 [2])");
  EXPECT_EQ(r.count("resource-exhausted"), 1);  // int8: RESOURCE_EXHAUSTED may follow one
  EXPECT_EQ(r.count("agree"), 1);
}

TEST(Validate, WrongResultsAreBucketedSavedAndReplayable) {
  const std::vector<std::string> names = {"stitch_float32", "stitch_int64", "stitch_uint8_negative_index",
                                          "stitch_float32_negative_index"};
  RunOutcome r = validate(replay(OPCONFORM_FAKE_WRONG_RESULTS, names), "wrong-results");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("mismatch"), 1);
  EXPECT_EQ(r.count("value-vs-error"), 1);
  EXPECT_EQ(r.count("error-vs-value"), 1);
  EXPECT_EQ(r.count("both-error"), 1);  // another message, same code
  EXPECT_CONTAINS(r.failure("mismatch")["detail"].get<std::string>(), "[0,0]");

  // Every failure was saved as a vector, and replaying it gives the same outcome.
  for (const char* verdict : {"mismatch", "value-vs-error", "error-vs-value"}) {
    const nlohmann::json f = r.failure(verdict);
    ASSERT_TRUE(f.contains("saved")) << verdict;
    conformance::Case saved;
    ASSERT_TRUE(conformance::load_case_file(f["saved"].get<std::string>(), &saved).ok());
    EXPECT_CONTAINS(f["replay"].get<std::string>(), "--replay " + f["saved"].get<std::string>());
    ValidateOptions again;
    again.impl = OPCONFORM_FAKE_WRONG_RESULTS;
    again.replay = {f["saved"].get<std::string>()};
    const RunOutcome rr = validate(again, std::string("replay-") + verdict);
    EXPECT_EQ(rr.exit_code, 1);
    EXPECT_EQ(rr.count(verdict), 1) << rr.out;
  }

  ValidateOptions strict = replay(OPCONFORM_FAKE_WRONG_RESULTS, {"stitch_float32_negative_index"});
  strict.strict_messages = true;
  r = validate(strict, "strict");
  EXPECT_EQ(r.count("error-mismatch"), 1);
}

TEST(Validate, GeneratedFailuresAreShrunk) {
  ValidateOptions o;
  o.impl = OPCONFORM_FAKE_WRONG_RESULTS;
  o.run_corpus = false;
  o.cases = 60;
  const RunOutcome r = validate(o, "shrink");
  EXPECT_EQ(r.exit_code, 1);
  const nlohmann::json f = r.failure("mismatch");
  ASSERT_TRUE(f.contains("saved")) << r.out;
  conformance::Case saved;
  ASSERT_TRUE(conformance::load_case_file(f["saved"].get<std::string>(), &saved).ok());
  std::int64_t elements = 0;
  for (const Tensor& t : std::get<std::vector<Tensor>>(saved.inputs.at("data"))) elements += t.num_elements();
  EXPECT_LE(elements, 2) << conformance::to_json(saved);
  EXPECT_CONTAINS(r.out, "shrunk in");
}

TEST(Validate, DeclaredLimitsMustBeMetWithACleanError) {
  const RunOutcome r =
      validate(replay(OPCONFORM_FAKE_LIMITED, {"stitch_float32", "stitch_int16", "stitch_rank3"}), "limited");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.count("agree"), 1);
  EXPECT_EQ(r.count("unsupported"), 1);  // int16: not declared, answered UNIMPLEMENTED
  EXPECT_EQ(r.count("crash"), 1);        // rank 3: not declared, but crashed
  EXPECT_CONTAINS(r.failure("crash")["detail"].get<std::string>(), "rank 3 > max_rank 2");
}

TEST(Validate, PythonProgramThroughTheSubprocessProtocol) {
  if (std::string(OPCONFORM_PYTHON).empty()) GTEST_SKIP() << "no Python 3";
  const std::string impl = std::string("exec:") + OPCONFORM_PYTHON + " " + OPCONFORM_PYTHON_FAKE;
  const RunOutcome r = validate(replay(impl, {"stitch_float32_big", "stitch_trigger_1313", "stitch_int16",
                                              "stitch_float32_negative_index", "stitch_float32"}),
                                "python");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(r.count("agree"), 2) << r.out;
  EXPECT_EQ(r.count("fault"), 1);  // the malformed answer; the program was restarted
  EXPECT_CONTAINS(r.failure("fault")["detail"].get<std::string>(), "malformed result");
  EXPECT_EQ(r.count("unsupported"), 1);
  EXPECT_EQ(r.count("both-error"), 1);
}

// judge(): the buckets that need no implementation.
conformance::Case space_to_batch_case(const std::string& expected_message) {
  conformance::Case c;
  c.op = Op::kSpaceToBatchND;
  c.inputs["input"] = Tensor::from_values<float>({1, 1, 1, 1, 1, 1}, {1});
  c.inputs["block_shape"] = Tensor::from_values<std::int32_t>({5}, {1, 1, 1, 1, 1});
  c.inputs["paddings"] = Tensor(DType::kInt32, {5, 2});
  c.expected.error = Status(Code::kInvalidArgument, expected_message);
  return c;
}

TEST(Judge, ProfileDifferencesAndTags) {
  conformance::Case c =
      space_to_batch_case("Maximum number of non-combined block dimensions is 5 but must not exceed 4");
  WorkerOutcome value;
  value.kind = WorkerOutcome::Kind::kAnswer;
  value.answer.kind = ImplAnswer::Kind::kOutputs;
  value.answer.outputs["output"] = Tensor::from_values<float>({1, 1, 1, 1, 1, 1}, {1});
  EXPECT_EQ(judge(c, value, {"tf-cpu", false, true}).verdict, Verdict::kErrorVsValue);
  EXPECT_EQ(judge(c, value, {"xla", false, true}).verdict, Verdict::kProfileDifference);
  c.tags = {"quirk"};  // a tag changes nothing: the contract's outcome is still required
  EXPECT_EQ(judge(c, value, {"tf-cpu", false, true}).verdict, Verdict::kErrorVsValue);
  EXPECT_EQ(judge(c, value, {"xla", false, true}).verdict, Verdict::kProfileDifference);

  WorkerOutcome exhausted;
  exhausted.kind = WorkerOutcome::Kind::kAnswer;
  exhausted.answer.kind = ImplAnswer::Kind::kError;
  exhausted.answer.error = Status(Code::kResourceExhausted, "out of memory");
  EXPECT_EQ(judge(c, exhausted, {"tf-cpu", false, true}).verdict, Verdict::kResourceExhausted);
  EXPECT_FALSE(is_failure(Verdict::kResourceExhausted));

  WorkerOutcome crash;
  crash.kind = WorkerOutcome::Kind::kCrash;
  EXPECT_EQ(judge(c, crash, {"tf-cpu", false, false}).verdict, Verdict::kCrash);  // also outside the manifest
}

WorkerOutcome answer_outputs(Tensor output) {
  WorkerOutcome r;
  r.kind = WorkerOutcome::Kind::kAnswer;
  r.answer.kind = ImplAnswer::Kind::kOutputs;
  r.answer.outputs["output"] = std::move(output);
  return r;
}

WorkerOutcome answer_error(Status error) {
  WorkerOutcome r;
  r.kind = WorkerOutcome::Kind::kAnswer;
  r.answer.kind = ImplAnswer::Kind::kError;
  r.answer.error = std::move(error);
  return r;
}

// The tflite profile (docs/contract/profiles.md): rank 3 or 4 with M = rank - 2 and five
// dtypes; negative block values and paddings unchecked, crops and cropped sizes checked; int8 and
// uint8 pad with the zero point.
TEST(Judge, TfliteProfileDifferences) {
  const JudgeOptions tflite{"tflite", false, true};
  const WorkerOutcome rejected = answer_error(Status(Code::kInvalidArgument, "SpaceToBatch: unsupported"));
  auto s2b = [](std::vector<std::int64_t> dims, DType dtype, int m) {
    conformance::Case c;
    c.op = Op::kSpaceToBatchND;
    c.inputs["input"] = Tensor(dtype, dims);
    c.inputs["block_shape"] = Tensor(DType::kInt32, {m});
    c.inputs["paddings"] = Tensor(DType::kInt32, {m, 2});
    c.expected.outputs["output"] = Tensor(dtype, dims);
    return c;
  };
  EXPECT_EQ(judge(s2b({2, 2}, DType::kFloat32, 1), rejected, tflite).verdict, Verdict::kProfileDifference);
  EXPECT_EQ(judge(s2b({1, 2, 2, 1, 1}, DType::kFloat32, 2), rejected, tflite).verdict, Verdict::kProfileDifference);
  EXPECT_EQ(judge(s2b({1, 2, 2, 1}, DType::kFloat32, 1), rejected, tflite).verdict, Verdict::kProfileDifference);
  EXPECT_EQ(judge(s2b({1, 2, 2, 1}, DType::kInt16, 2), rejected, tflite).verdict, Verdict::kProfileDifference);
  // Inside the profile a rejection is a failure.
  EXPECT_EQ(judge(s2b({1, 2, 2, 1}, DType::kFloat32, 2), rejected, tflite).verdict, Verdict::kValueVsError);
  EXPECT_EQ(judge(s2b({1, 2, 1}, DType::kInt64, 1), rejected, tflite).verdict, Verdict::kValueVsError);

  WorkerOutcome value;
  value.kind = WorkerOutcome::Kind::kAnswer;
  value.answer.kind = ImplAnswer::Kind::kOutputs;
  value.answer.outputs["output"] = Tensor::from_values<float>({1, 1, 1, 1, 1, 1}, {1});
  EXPECT_EQ(judge(space_to_batch_case("Paddings must be non-negative"), value, tflite).verdict,
            Verdict::kProfileDifference);
  EXPECT_EQ(
      judge(space_to_batch_case("All values in block_shape must be positive, got value, -1"), value, tflite).verdict,
      Verdict::kProfileDifference);
  // TFLite checks crops, and a negative cropped size is its fault, not a difference.
  EXPECT_EQ(judge(space_to_batch_case("Crops must be non-negative"), value, tflite).verdict, Verdict::kErrorVsValue);
  EXPECT_EQ(judge(space_to_batch_case("cropped_shape[0]=-2 must be non-negative"), value, tflite).verdict,
            Verdict::kErrorVsValue);
}

// The tflite profile for SpaceToDepth and DepthToSpace (docs/contract/profiles.md): five dtypes,
// no data_format (NCHW cannot be expressed), block_size 1 accepted; nothing else.
TEST(Judge, TfliteProfileDifferencesOfDepthSpace) {
  const JudgeOptions tflite{"tflite", false, true};
  auto depth_space = [](Op op, DType dtype, std::int64_t block, std::string format) {
    conformance::Case c;
    c.op = op;
    c.inputs["input"] = Tensor(dtype, {1, 2, 2, 4});
    c.attrs["block_size"] = block;
    c.string_attrs["data_format"] = std::move(format);
    c.expected.outputs["output"] = Tensor(dtype, {1, 1, 1, 16});
    return c;
  };
  auto failing = [&](Op op, DType dtype, std::int64_t block, std::string format, Status error) {
    conformance::Case c = depth_space(op, dtype, block, std::move(format));
    c.expected.outputs.clear();
    c.expected.error = std::move(error);
    return c;
  };
  const WorkerOutcome rejected =
      answer_error(Status(Code::kInvalidArgument, "Type 'INT16' is not currently supported."));
  for (Op op : {Op::kSpaceToDepth, Op::kDepthToSpace}) {
    SCOPED_TRACE(op_name(op));
    EXPECT_EQ(judge(depth_space(op, DType::kInt16, 2, "NHWC"), rejected, tflite).verdict, Verdict::kProfileDifference);
    EXPECT_EQ(judge(depth_space(op, DType::kFloat32, 2, "NHWC"), rejected, tflite).verdict, Verdict::kValueVsError);
    EXPECT_EQ(judge(depth_space(op, DType::kInt16, 2, "NHWC"), rejected, {"tf-cpu", false, true}).verdict,
              Verdict::kValueVsError);

    const Status nhwc_only(Code::kInvalidArgument, "Only NHWC data_format supported on CPU. Got NCHW");
    const WorkerOutcome unexpressible = answer_error(Status(Code::kUnimplemented, "adapter: no data_format"));
    EXPECT_EQ(judge(failing(op, DType::kFloat32, 2, "NCHW", nhwc_only), unexpressible, tflite).verdict,
              Verdict::kProfileDifference);

    const WorkerOutcome value = answer_outputs(Tensor(DType::kFloat32, {1, 2, 2, 4}));
    const Status minimum(Code::kInvalidArgument, "Value for attr 'block_size' of 1 must be at least minimum 2");
    EXPECT_EQ(judge(failing(op, DType::kFloat32, 1, "NHWC", minimum), value, tflite).verdict,
              Verdict::kProfileDifference);
    EXPECT_EQ(judge(failing(op, DType::kFloat32, 0, "NHWC", minimum), value, tflite).verdict, Verdict::kErrorVsValue);
    EXPECT_EQ(judge(failing(op, DType::kFloat32, 1, "NHWC", minimum), value, {"tf-cpu", false, true}).verdict,
              Verdict::kErrorVsValue);
  }
}

// The xla profile for SpaceToDepth and DepthToSpace (docs/contract/profiles.md): other wording
// of the same checks, NCHW and NCHW_VECT_C lowered, the XLA device's types (quint8 and qint32
// in newer versions); block_size >= 2 and the values are as tf-cpu's.
TEST(Judge, XlaProfileDifferencesOfDepthSpace) {
  const JudgeOptions xla{"xla", true, true};
  const JudgeOptions tf_cpu{"tf-cpu", true, true};
  auto valid = [](Op op, DType dtype) {
    conformance::Case c;
    c.op = op;
    c.inputs["input"] = Tensor(dtype, {1, 2, 2, 4});
    c.attrs["block_size"] = 2;
    c.string_attrs["data_format"] = "NHWC";
    c.expected.outputs["output"] = Tensor(dtype, {1, 1, 1, 16});
    return c;
  };
  auto failing = [](Op op, std::vector<std::int64_t> dims, DType dtype, std::int64_t block, std::string format,
                    Status error) {
    conformance::Case c;
    c.op = op;
    c.inputs["input"] = Tensor(dtype, dims);
    c.attrs["block_size"] = block;
    c.string_attrs["data_format"] = std::move(format);
    c.expected.error = std::move(error);
    return c;
  };
  const WorkerOutcome value = answer_outputs(Tensor(DType::kFloat32, {1, 2, 2, 4}));
  for (Op op : {Op::kSpaceToDepth, Op::kDepthToSpace}) {
    SCOPED_TRACE(op_name(op));
    // The same check in XLA's words: the code must still agree.
    const conformance::Case rank3 = failing(op, {2, 2, 4}, DType::kFloat32, 2, "NHWC",
                                            Status(Code::kInvalidArgument, "Input rank should be 4 instead of 3"));
    const WorkerOutcome xla_rank = answer_error(Status(Code::kInvalidArgument, "Input rank should be 4; got 3"));
    EXPECT_EQ(judge(rank3, xla_rank, xla).verdict, Verdict::kProfileDifference);
    EXPECT_EQ(judge(rank3, xla_rank, tf_cpu).verdict, Verdict::kErrorMismatch);
    EXPECT_EQ(judge(rank3, answer_error(Status(Code::kInternal, "rank")), xla).verdict, Verdict::kErrorMismatch);

    // NCHW and NCHW_VECT_C are lowered: a value, or XLA's own rejection of the layout.
    const Status nhwc_only(Code::kInvalidArgument, "Only NHWC data_format supported on CPU. Got NCHW");
    EXPECT_EQ(judge(failing(op, {1, 4, 2, 2}, DType::kFloat32, 2, "NCHW", nhwc_only), value, xla).verdict,
              Verdict::kProfileDifference);
    EXPECT_EQ(judge(failing(op, {1, 4, 2, 2}, DType::kFloat32, 2, "NCHW", nhwc_only), value, tf_cpu).verdict,
              Verdict::kErrorVsValue);
    const WorkerOutcome vect_c = answer_error(Status(Code::kUnimplemented, "Expected last dimension to be 4; got 2"));
    EXPECT_EQ(judge(failing(op, {1, 1, 2, 2, 2}, DType::kFloat32, 2, "NCHW_VECT_C", nhwc_only), vect_c, xla).verdict,
              Verdict::kProfileDifference);

    // The XLA device's types: int32, int64, float32, float64 and bool in every version.
    const WorkerOutcome rejected = answer_error(Status(Code::kInvalidArgument, "unsupported type"));
    EXPECT_EQ(judge(valid(op, DType::kFloat16), rejected, xla).verdict, Verdict::kProfileDifference);
    EXPECT_EQ(judge(valid(op, DType::kFloat32), rejected, xla).verdict, Verdict::kValueVsError);
    EXPECT_EQ(judge(valid(op, DType::kFloat16), rejected, tf_cpu).verdict, Verdict::kValueVsError);
    const Status no_kernel(Code::kUnimplemented, "No registered OpKernel for 'CPU' devices compatible with T=quint8");
    const WorkerOutcome quantized = answer_outputs(Tensor(DType::kQUInt8, {1, 1, 1, 16}));
    EXPECT_EQ(judge(failing(op, {1, 2, 2, 4}, DType::kQUInt8, 2, "NHWC", no_kernel), quantized, xla).verdict,
              Verdict::kProfileDifference);
    EXPECT_EQ(judge(failing(op, {1, 2, 2, 4}, DType::kQUInt8, 2, "NHWC", no_kernel), quantized, tf_cpu).verdict,
              Verdict::kErrorVsValue);

    // Not differences: block_size 1 (XLA requires > 1 as well) and a wrong value.
    const Status minimum(Code::kInvalidArgument, "Value for attr 'block_size' of 1 must be at least minimum 2");
    EXPECT_EQ(judge(failing(op, {1, 2, 2, 4}, DType::kFloat32, 1, "NHWC", minimum), value, xla).verdict,
              Verdict::kErrorVsValue);
    EXPECT_EQ(judge(valid(op, DType::kFloat32), answer_outputs(Tensor(DType::kFloat32, {1, 1, 1, 8})), xla).verdict,
              Verdict::kMismatch);
  }
}

// A tagged vector is judged by its allowed outcomes: the contract's, or an alternative of the
// active profile (its own non-failing verdict); anything else fails.
TEST(Judge, TaggedVectorsAllowOnlyTheirOutcomes) {
  conformance::Case c = space_to_batch_case("padded_shape[0] overflows int64");
  c.tags = {"deviation"};
  conformance::Alternative alternative;
  alternative.profiles = {"tf-cpu"};
  alternative.outcome.outputs["output"] = Tensor::from_values<float>({2, 1, 1, 1, 1, 1}, {1, 2});
  alternative.why = "the contract documents TensorFlow's result";
  c.alternatives = {alternative};

  const WorkerOutcome documented = answer_outputs(Tensor::from_values<float>({2, 1, 1, 1, 1, 1}, {1, 2}));
  const Judgement j = judge(c, documented, {"tf-cpu", false, true});
  EXPECT_EQ(j.verdict, Verdict::kTfAlternative);
  EXPECT_FALSE(is_failure(j.verdict));
  EXPECT_CONTAINS(j.detail, "the contract documents TensorFlow's result");
  EXPECT_EQ(verdict_name(j.verdict), "tf-alternative");

  // Another value, or another error code, fails; so does the alternative under another profile.
  const WorkerOutcome other_value = answer_outputs(Tensor::from_values<float>({2, 1, 1, 1, 1, 1}, {1, 3}));
  EXPECT_EQ(judge(c, other_value, {"tf-cpu", false, true}).verdict, Verdict::kErrorVsValue);
  EXPECT_EQ(judge(c, answer_error(Status(Code::kInternal, "x")), {"tf-cpu", false, true}).verdict,
            Verdict::kErrorMismatch);
  EXPECT_EQ(judge(c, documented, {"tflite", false, true}).verdict, Verdict::kErrorVsValue);

  // The contract's own outcome stays the first answer; its message counts when strict.
  const WorkerOutcome contract = answer_error(Status(Code::kInvalidArgument, "padded_shape[0] overflows int64"));
  EXPECT_EQ(judge(c, contract, {"tf-cpu", true, true}).verdict, Verdict::kBothError);
  const WorkerOutcome worded = answer_error(Status(Code::kInvalidArgument, "other words"));
  EXPECT_EQ(judge(c, worded, {"tf-cpu", false, true}).verdict, Verdict::kBothError);
  EXPECT_EQ(judge(c, worded, {"tf-cpu", true, true}).verdict, Verdict::kErrorMismatch);

  // An error alternative is compared with the same strictness.
  c.alternatives[0].outcome = {};
  c.alternatives[0].outcome.error = Status(Code::kUnimplemented, "TensorFlow's words");
  EXPECT_EQ(judge(c, answer_error(Status(Code::kUnimplemented, "other")), {"tf-cpu", false, true}).verdict,
            Verdict::kTfAlternative);
  EXPECT_EQ(judge(c, answer_error(Status(Code::kUnimplemented, "other")), {"tf-cpu", true, true}).verdict,
            Verdict::kErrorMismatch);
  EXPECT_EQ(judge(c, answer_error(Status(Code::kUnimplemented, "TensorFlow's words")), {"tf-cpu", true, true}).verdict,
            Verdict::kTfAlternative);

  // Crashes stay crashes.
  WorkerOutcome crash;
  crash.kind = WorkerOutcome::Kind::kCrash;
  EXPECT_EQ(judge(c, crash, {"tf-cpu", false, true}).verdict, Verdict::kCrash);
}

// A sanitizer's crash is keyed by its summary line (kind and place, numbers blanked), so two
// inputs that hit one bug group together and two bugs stay apart.
TEST(Judge, SanitizerCrashKeyedBySummary) {
  const conformance::Case c =
      space_to_batch_case("Maximum number of non-combined block dimensions is 5 but must not exceed 4");
  auto crash_with = [](const std::string& stderr_text) {
    WorkerOutcome r;
    r.kind = WorkerOutcome::Kind::kCrash;
    r.detail = "the implementation exited with status 1\n  stderr: " + stderr_text;
    return r;
  };
  const std::string a = judge(c,
                              crash_with("==11==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x6020\n"
                                         "SUMMARY: AddressSanitizer: heap-buffer-overflow k.cc:31:5 in count_rows\n"
                                         "==11==ABORTING\n"),
                              {})
                            .key;
  const std::string b = judge(c,
                              crash_with("==12==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x7031\n"
                                         "SUMMARY: AddressSanitizer: heap-buffer-overflow k.cc:31:9 in count_rows\n"),
                              {})
                            .key;
  const std::string other =
      judge(c, crash_with("SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior k.cc:40:2 in f\n"), {}).key;
  EXPECT_EQ(a, "AddressSanitizer: heap-buffer-overflow k.cc:#:# in count_rows");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, other);
  EXPECT_EQ(judge(c, crash_with("no report"), {}).key, "the implementation exited with status #");
  EXPECT_EQ(
      judge(c, crash_with("SUMMARY: AddressSanitizer: FPE (/lib/libarmnn.so.22+0x1416e2) (BuildId: 1323a5) in f\n"), {})
          .key,
      "AddressSanitizer: FPE (/lib/libarmnn.so.#+0x#) in f");
}

}  // namespace
}  // namespace opconform::validator
