#include "support/run_and_check.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include "opconform/conformance/format.h"
#include "opconform/optimized/op_table.h"
#include "opconform/generators/checks.h"
#include "opconform/conformance/unspecified.h"
#include "opconform/reference/op_table.h"

namespace opconform::properties {
namespace {

std::map<Op, std::map<std::string, std::int64_t>>& hits() {
  static std::map<Op, std::map<std::string, std::int64_t>> h;
  return h;
}

std::string current_test_id() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return info ? std::string(info->test_suite_name()) + "." + info->name() : "no-test";
}

std::filesystem::path from_env(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? std::filesystem::path(value) : std::filesystem::path(fallback);
}

}  // namespace

const std::vector<const OpTable*>& layers() {
  static const std::vector<const OpTable*> all = {&reference::op_table(), &optimized::op_table()};
  return all;
}
const OpTable& reference_layer() { return reference::op_table(); }
const OpTable& optimized_layer() { return optimized::op_table(); }

conformance::Outcome run(const OpTable& table, const conformance::Case& c, ExecOptions options) {
  conformance::Outcome outcome = conformance::run_case(table, c, options);
  classify_outcome(table, c, outcome);
  return outcome;
}

void classify_outcome(const OpTable& table, const conformance::Case& c, const conformance::Outcome& outcome) {
  if (outcome.status.ok()) return;
  const std::string_view check = generators::failed_check(c.op, outcome.status);
  record_check_hit(c.op, check);
  if (check == generators::kUnclassified)
    fail_with_counterexample(expect_reference_outcome(c),
                             std::string(table.name) +
                                 " returned an error that matches no check of the spec: " + outcome.status.to_string());
}

conformance::Outcome run_valid(const OpTable& table, const conformance::Case& c, std::string_view what) {
  conformance::Outcome outcome = run(table, c);
  if (!outcome.status.ok())
    fail_with_counterexample(expect_reference_outcome(c), std::string(table.name) + " " + std::string(what) +
                                                              " failed on a valid case: " + outcome.status.to_string());
  return outcome;
}

conformance::Case expect_outcome(conformance::Case c, const conformance::Outcome& outcome) {
  c.expected = conformance::oracle_expectation(c, outcome);
  return c;
}

conformance::Case expect_reference_outcome(const conformance::Case& c) {
  return expect_outcome(c, conformance::run_case(reference_layer(), c));
}

conformance::Case expect_outputs(conformance::Case c, conformance::Values outputs) {
  c.expected = {};
  c.expected.outputs = std::move(outputs);
  return c;
}

conformance::Outcome expect_conforms(const OpTable& table, const conformance::Case& expected_case, ExecOptions options,
                                     std::string_view what) {
  conformance::Outcome outcome = run(table, expected_case, options);
  const conformance::Judgement result = conformance::compare(expected_case, outcome);
  if (!result.pass)
    fail_with_counterexample(
        expected_case, std::string(what) + " (" + table.name + ", " + knobs_string(options) + "): " + result.detail);
  return outcome;
}

std::filesystem::path counterexample_dir() {
  return from_env("OPCONFORM_COUNTEREXAMPLES", OPCONFORM_DEFAULT_COUNTEREXAMPLES);
}
std::filesystem::path check_coverage_dir() {
  return from_env("OPCONFORM_CHECK_COVERAGE_DIR", OPCONFORM_DEFAULT_CHECK_COVERAGE);
}

void fail_with_counterexample(const conformance::Case& c, const std::string& why) {
  conformance::Case vector = c;
  const std::string id = current_test_id();
  vector.name = id;
  vector.provenance = "properties/: shrunk RapidCheck counterexample of " + id + ": " + why.substr(0, why.find('\n'));
  vector.tags = {"property:" + id};
  if (!vector.expected.unspecified.empty()) vector.tags.push_back("unspecified");
  std::error_code ignored;
  std::filesystem::create_directories(counterexample_dir(), ignored);
  const std::filesystem::path path = counterexample_dir() / (id + ".json");
  const Status saved = conformance::save_case_file(vector, path);
  RC_FAIL(why + "\n" + conformance::format_expected(vector, "  expected ") +
          (saved.ok() ? "\ncounterexample written to " + path.string()
                      : "\ncould not write the counterexample: " + saved.message()));
}

void require(bool ok, const conformance::Case& c, const std::string& why) {
  if (!ok) fail_with_counterexample(c, why);
}

void record_check_hit(Op op, std::string_view check) { ++hits()[op][std::string(check)]; }

void write_check_hits(const std::string& test_id) {
  for (const auto& [op, counts] : hits()) {
    const std::filesystem::path dir = check_coverage_dir() / op_name(op);
    std::error_code ignored;
    std::filesystem::create_directories(dir, ignored);
    std::ofstream out(dir / (test_id + ".counts"));
    for (const auto& [check, count] : counts) out << check << ' ' << count << '\n';
  }
  hits().clear();
}

void set_default_rapidcheck_params() {
  double scale = 1.0;
  if (const char* s = std::getenv("OPCONFORM_PROPERTY_SCALE"); s && *s) scale = std::atof(s);
  const long max_success = std::max(1L, std::lround(1000.0 * scale));
  std::string params = std::getenv("RC_PARAMS") ? std::getenv("RC_PARAMS") : "";
  if (params.find("max_success") == std::string::npos)
    params += (params.empty() ? "" : " ") + std::string("max_success=") + std::to_string(max_success);
  setenv("RC_PARAMS", params.c_str(), 1);
}

}  // namespace opconform::properties
