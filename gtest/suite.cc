#include "opconform/gtest/suite.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <vector>

#include "opconform/conformance/compare.h"
#include "opconform/conformance/format.h"
#include "opconform/conformance/run.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/conformance/vector.h"
#include "opconform/generators/op_generators.h"
#include "opconform/generators/check_pairs.h"
#include "opconform/generators/checks.h"
#include "opconform/reference/op_table.h"
#include "opconform/validator/expectations.h"
#include "opconform/validator/judge.h"

namespace opconform::gtest {
namespace {

namespace fs = std::filesystem;
using conformance::Case;
using conformance::Strictness;

// T of a case: the dtype of its data (values for SparseConcat), when the inputs have one.
std::optional<DType> element_dtype(const Case& c) {
  auto it = c.inputs.find(std::string(data_input(op_info(c.op)).name));
  if (it == c.inputs.end()) return std::nullopt;
  if (const Tensor* t = std::get_if<Tensor>(&it->second)) return t->dtype();
  const auto& list = std::get<std::vector<Tensor>>(it->second);
  if (list.empty()) return std::nullopt;
  return list[0].dtype();
}

// The implementation may decline the case: its T is not among the supported dtypes.
bool may_decline(const Case& c, const std::vector<DType>& supported) {
  if (supported.empty()) return false;
  const std::optional<DType> t = element_dtype(c);
  return t && std::find(supported.begin(), supported.end(), *t) == supported.end();
}

Strictness strictness(const SuiteOptions& o) { return o.strict_messages ? Strictness::kStrict : Strictness::kCodeOnly; }

// Whether RC_PARAMS, as the user set it, names a seed (register_suite then adds the suite's).
bool user_rc_seed() {
  static const bool named = [] {
    const char* rc = std::getenv("RC_PARAMS");
    return rc != nullptr && std::string(rc).find("seed=") != std::string::npos;
  }();
  return named;
}

// Whether `actual`, which failed the comparison with a tf-cpu expectation, differs from it as
// `profile` documents (docs/contract/profiles.md). `opconform validate`'s judge decides, so that
// the suite and validate --profile agree.
bool documented_difference(const Case& c, const conformance::Outcome& actual, const std::string& profile,
                           Strictness s) {
  if (profile == "tf-cpu" || c.profile != "tf-cpu") return false;
  validator::WorkerOutcome result;
  result.kind = validator::WorkerOutcome::Kind::kAnswer;
  result.answer.kind = actual.status.ok() ? validator::ImplAnswer::Kind::kOutputs : validator::ImplAnswer::Kind::kError;
  result.answer.outputs = actual.outputs;
  result.answer.error = actual.status;
  const validator::JudgeOptions options{.profile = profile, .strict_messages = s == Strictness::kStrict};
  return validator::judge(c, result, options).verdict == validator::Verdict::kProfileDifference;
}

std::string failure_text(const OpTable& table, const Case& c, const conformance::Outcome& actual,
                         const conformance::Judgement& result) {
  return result.detail + "\ncase:\n" + conformance::format_case(c) + "\n" + table.name + " returned:\n" +
         conformance::format_outcome(actual, "  ");
}

// The suite's expected-failure list, shared by its tests: the tallies of the vectors run so
// far, and per entry the vectors registered that it covers.
struct Expected {
  std::string path;
  validator::Expectations list;
  bool strict = false;
  std::vector<std::int64_t> registered;
};

class VectorTest : public testing::Test {
 public:
  VectorTest(const OpTable& table, std::string file, const SuiteOptions& o, std::shared_ptr<Expected> expected)
      : table_(table),
        file_(std::move(file)),
        s_(strictness(o)),
        dtypes_(o.dtypes),
        profile_(o.profile),
        expected_(std::move(expected)) {}
  void TestBody() override {
    Case c;
    const Status loaded = conformance::load_case_file(file_, &c);
    ASSERT_TRUE(loaded.ok()) << loaded.message();
    if (c.profile != "tf-cpu" && c.profile != profile_)
      GTEST_SKIP() << "profile " << c.profile << " (the suite judges " << profile_ << ")";
    const conformance::Outcome actual = conformance::run_case(table_, c);
    if (!actual.status.ok() && may_decline(c, dtypes_))
      GTEST_SKIP() << "declined: T=" << dtype_name(*element_dtype(c)) << " is not in SuiteOptions::dtypes";
    const conformance::Judgement result = conformance::compare_allowed(c, actual, profile_, s_).judgement;
    const bool pass = result.pass || documented_difference(c, actual, profile_, s_);
    if (expected_ && !expected_->list.empty()) {
      const std::string signature =
          pass ? ""
               : validator::in_process_signature(c, actual.status, actual.outputs, profile_, s_ == Strictness::kStrict);
      int entry = -1;
      const auto match = expected_->list.classify(validator::CaseFacts::of(c), !pass, signature, &entry);
      const std::string why =
          entry < 0 ? ""
                    : expected_->list.entries()[entry].reason + " (" + expected_->list.entries()[entry].where + ")";
      if (match == validator::Expectation::Match::kXfail)
        GTEST_SKIP() << "xfail: " << why << "\nsignature: " << signature << "\n"
                     << failure_text(table_, c, actual, result);
      if (match == validator::Expectation::Match::kXpass) {
        if (expected_->strict)
          ADD_FAILURE() << "xpass: the vector passed; remove its entry: " << why;
        else
          std::cout << "XPASS: " << why << "\n";
        return;
      }
    }
    EXPECT_TRUE(pass) << failure_text(table_, c, actual, result);
  }

 private:
  const OpTable& table_;
  std::string file_;
  Strictness s_;
  std::vector<DType> dtypes_;
  std::string profile_;
  std::shared_ptr<Expected> expected_;
};

// Runs after the vectors: each entry's status; an entry that covers no registered vector, and
// under strict_xfail a signature entry whose failure did not occur, fail under strict_xfail.
class ExpectedFailuresTest : public testing::Test {
 public:
  ExpectedFailuresTest(std::shared_ptr<Expected> expected, const OpTable& table)
      : expected_(std::move(expected)), table_(table) {}
  void TestBody() override {
    const auto& entries = expected_->list.entries();
    std::vector<const validator::Expectation*> unmatched;
    for (std::size_t i = 0; i < entries.size(); ++i)
      if (expected_->registered[i] == 0 && (!entries[i].op || provides(table_, *entries[i].op)))
        unmatched.push_back(&entries[i]);
    std::cout << expected_->list.summary(expected_->path, unmatched, expected_->strict);
    if (!expected_->strict) return;
    for (const validator::Expectation* e : unmatched)
      ADD_FAILURE() << "unmatched: " << e->where << " (" << e->matchers() << ") matches no vector: " << e->reason;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const validator::Expectation& e = entries[i];
      if (!e.signature.empty() && e.in_scope > 0 && e.in_scope == expected_->registered[i] && e.failing == 0)
        ADD_FAILURE() << "xpass: " << e.where << " (" << e.matchers() << "): the failure did not occur: " << e.reason;
    }
  }

 private:
  std::shared_ptr<Expected> expected_;
  const OpTable& table_;
};

// One generated case: the reference's outcome, widened by the unspecified rules, is expected.
void check_generated(const OpTable& table, const generators::GeneratedCase& g, Strictness s,
                     const std::vector<DType>& dtypes, const std::string& profile) {
  Case c = g.c;
  c.expected = conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
  const conformance::Outcome actual = conformance::run_case(table, c);
  if (!actual.status.ok() && may_decline(c, dtypes)) return;
  const conformance::Judgement result = conformance::compare(c, actual, s);
  if (!result.pass && !documented_difference(c, actual, profile, s)) RC_FAIL(failure_text(table, c, actual, result));
}

class PropertyTest : public testing::Test {
 public:
  PropertyTest(const OpTable& table, Op op, bool valid, const SuiteOptions& o)
      : table_(table),
        op_(op),
        valid_(valid),
        cases_(o.property_cases),
        s_(strictness(o)),
        dtypes_(o.dtypes),
        seed_(o.seed),
        profile_(o.profile) {}
  void TestBody() override {
    // As RC_GTEST_PROP does, with the configured parameters (RC_PARAMS: reproduce, ...) and this
    // suite's case count and seed unless RC_PARAMS sets max_success or seed.
    const testing::TestInfo* info = testing::UnitTest::GetInstance()->current_test_info();
    rc::detail::TestMetadata metadata;
    metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
    metadata.description = info->name();
    rc::detail::TestParams params = rc::detail::configuration().testParams;
    const char* env = std::getenv("RC_PARAMS");
    const std::string rc_params = env ? env : "";
    if (rc_params.find("max_success") == std::string::npos) params.maxSuccess = cases_;
    if (!user_rc_seed()) params.seed = seed_;
    const OpTable& table = table_;
    const Strictness s = s_;
    const Op op = op_;
    const std::vector<DType>& dtypes = dtypes_;
    const std::string& profile = profile_;
    const rc::detail::TestResult result =
        valid_ ? rc::detail::checkTestable(
                     [&] { check_generated(table, *generators::valid_case(op), s, dtypes, profile); }, metadata, params)
               : rc::detail::checkTestable(
                     [&] { check_generated(table, *generators::any_invalid_case(op), s, dtypes, profile); }, metadata,
                     params);
    if (!result.template is<rc::detail::SuccessResult>()) {
      std::ostringstream message;
      rc::detail::printResultMessage(result, message);
      FAIL() << message.str() << "\n(seed " << params.seed
             << "; when the test binary exits, RapidCheck prints the RC_PARAMS=\"reproduce=...\" "
             << "line that replays this case; add --gtest_filter=" << info->test_suite_name() << "." << info->name()
             << ")";
    }
  }

 private:
  const OpTable& table_;
  Op op_;
  bool valid_;
  int cases_;
  Strictness s_;
  std::vector<DType> dtypes_;
  std::uint64_t seed_;
  std::string profile_;
};

// One case per feasible pair of the op's checks (both broken), from the suite's seed: every pair
// the reference answers with its earlier check is judged; the pairs hit are printed.
class CheckPairsTest : public testing::Test {
 public:
  CheckPairsTest(const OpTable& table, Op op, const SuiteOptions& o)
      : table_(table), op_(op), s_(strictness(o)), dtypes_(o.dtypes), seed_(o.seed), profile_(o.profile) {}
  void TestBody() override {
    constexpr int kAttempts = 20;
    const std::uint64_t seed = seed_;
    rc::Random random(seed);
    const std::vector<generators::CheckPair> pairs = generators::feasible_pairs(op_);
    std::size_t hit = 0;
    for (const generators::CheckPair& pair : pairs) {
      Case c;
      const auto answers_first = [&](const generators::GeneratedCase& g) {
        c = g.c;
        c.expected = conformance::oracle_expectation(c, conformance::run_case(reference::op_table(), c));
        const Status answer = c.expected.error ? *c.expected.error : Status();
        return generators::failed_check(op_, answer) == pair.first;
      };
      if (!generators::find_pair_case(op_, pair, random, 50, kAttempts, answers_first)) continue;
      ++hit;
      const conformance::Outcome actual = conformance::run_case(table_, c);
      if (!actual.status.ok() && may_decline(c, dtypes_)) continue;
      const conformance::Judgement result = conformance::compare(c, actual, s_);
      EXPECT_TRUE(result.pass || documented_difference(c, actual, profile_, s_))
          << "checks " << pair.first << " then " << pair.second << " (seed " << seed
          << "): " << failure_text(table_, c, actual, result);
    }
    std::cout << op_name(op_) << " check pairs hit: " << hit << " / " << pairs.size() << " feasible, seed " << seed
              << "\n";
  }

 private:
  const OpTable& table_;
  Op op_;
  Strictness s_;
  std::vector<DType> dtypes_;
  std::uint64_t seed_;
  std::string profile_;
};

// Every *.json below `dir`, sorted; `error` says why a folder could not be listed.
std::vector<fs::path> vector_files(const fs::path& dir, std::string* error) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->path().extension() == ".json") files.push_back(it->path());
  if (ec)
    *error = "cannot list " + dir.string() + ": " + ec.message();
  else if (files.empty())
    *error = "no *.json vectors in " + dir.string();
  std::sort(files.begin(), files.end());
  return files;
}

// A test that fails with `message`: a broken install or a wrong path is never a silent pass.
void register_failure(const std::string& suite, const std::string& test, const std::string& message) {
  class Failure : public testing::Test {
   public:
    explicit Failure(std::string message) : message_(std::move(message)) {}
    void TestBody() override { FAIL() << message_; }

   private:
    std::string message_;
  };
  testing::RegisterTest(suite.c_str(), test.c_str(), nullptr, nullptr, __FILE__, __LINE__,
                        [message]() -> testing::Test* { return new Failure(message); });
}

// Prints the suite's seed and profile when the tests start (not when they are only listed).
class SuiteBanner : public testing::Environment {
 public:
  explicit SuiteBanner(std::string text) : text_(std::move(text)) {}
  void SetUp() override { std::cout << text_ << std::flush; }

 private:
  std::string text_;
};

}  // namespace

void register_suite(const std::string& name, const OpTable& table, const SuiteOptions& given) {
  SuiteOptions options = given;
  std::string seed_source = "SuiteOptions::seed";
  if (const char* env = std::getenv("OPCONFORM_SEED"); env && *env) {
    const std::string text = env;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), options.seed);
    if (ec != std::errc() || end != text.data() + text.size()) {
      register_failure(name + "/Options", "seed",
                       "OPCONFORM_SEED=" + text + " is not a seed (an unsigned 64-bit integer)");
      return;
    }
    seed_source = "OPCONFORM_SEED";
  }
  if (options.profile != "tf-cpu" && options.profile != "xla" && options.profile != "tflite") {
    register_failure(name + "/Options", "profile",
                     "SuiteOptions::profile \"" + options.profile + "\" (tf-cpu, xla, tflite)");
    return;
  }
  // RapidCheck prints the seed it is configured with: make that the suite's (the first suite's,
  // when several are registered; each runs with its own).
  if (const char* rc = std::getenv("RC_PARAMS"); !user_rc_seed() && (rc == nullptr || !std::strstr(rc, "seed="))) {
    const std::string params = (rc && *rc ? std::string(rc) + " " : "") + "seed=" + std::to_string(options.seed);
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  testing::AddGlobalTestEnvironment(
      new SuiteBanner("opconform::gtest " + name + ": " + table.name + ", seed " + std::to_string(options.seed) + " (" +
                      seed_source + "; OPCONFORM_SEED=N draws other cases), profile " + options.profile + "\n"));
  validator::Selection selection;
  for (const std::string& selector : options.select) {
    if (std::string why = selection.add(selector); !why.empty()) {
      register_failure(name + "/Options", "select", "SuiteOptions::select: " + why);
      return;
    }
  }
  std::shared_ptr<Expected> expected;
  if (!options.expected_failures.empty()) {
    expected = std::make_shared<Expected>();
    expected->path = options.expected_failures;
    expected->strict = options.strict_xfail;
    if (std::string why = validator::Expectations::load(options.expected_failures, &expected->list); !why.empty()) {
      register_failure(name + "/Options", "expected_failures", "SuiteOptions::expected_failures: " + why);
      return;
    }
    expected->registered.assign(expected->list.entries().size(), 0);
  }
  const fs::path dir = options.vectors_dir;
  for (Op op : kAllOps) {
    if (!provides(table, op)) continue;
    if (options.vectors) {
      std::string error;
      const std::vector<fs::path> files = vector_files(dir / op_snake_name(op), &error);
      if (!error.empty())
        register_failure(name + "/Vectors", std::string(op_snake_name(op)) + "/vectors_readable", error);
      for (const fs::path& file : files) {
        // With a selection or a list, the vector is read now: its name and tags decide.
        Case c;
        if ((!selection.empty() || expected) && conformance::load_case_file(file.string(), &c).ok()) {
          const validator::CaseFacts facts = validator::CaseFacts::of(c);
          if (!selection.selects(facts)) continue;
          for (std::size_t i = 0; expected && i < expected->registered.size(); ++i)
            expected->registered[i] += expected->list.entries()[i].covers(facts);
        }
        // <op>/<path below the op's folder, without .json>: stable across runs and installs.
        const std::string test = std::string(op_snake_name(op)) + "/" +
                                 file.lexically_relative(dir / op_snake_name(op)).replace_extension().string();
        const std::string path = file.string();
        testing::RegisterTest((name + "/Vectors").c_str(), test.c_str(), nullptr, nullptr, path.c_str(), 1,
                              [&table, path, options, expected]() -> testing::Test* {
                                return new VectorTest(table, path, options, expected);
                              });
      }
    }
    if (options.properties && !selection.vectors_only()) {
      for (bool valid : {true, false}) {
        const std::string test = std::string(op_name(op)) + (valid ? "_valid" : "_invalid");
        testing::RegisterTest(
            (name + "/Properties").c_str(), test.c_str(), nullptr, nullptr, __FILE__, __LINE__,
            [&table, op, valid, options]() -> testing::Test* { return new PropertyTest(table, op, valid, options); });
      }
      testing::RegisterTest((name + "/Properties").c_str(), (std::string(op_name(op)) + "_check_pairs").c_str(),
                            nullptr, nullptr, __FILE__, __LINE__, [&table, op, options]() -> testing::Test* {
                              return new CheckPairsTest(table, op, options);
                            });
    }
  }
  if (expected && !expected->list.empty())
    testing::RegisterTest((name + "/ExpectedFailures").c_str(), "entries", nullptr, nullptr, __FILE__, __LINE__,
                          [expected, &table]() -> testing::Test* { return new ExpectedFailuresTest(expected, table); });
}

}  // namespace opconform::gtest
